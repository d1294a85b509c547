// The rankings the eval compares, all over the same index in the same process:
//   brief     — the real brief (src/brief/compose.ts) at the default 4,000-token budget: its
//               items pooled across tiers and ordered by `score`, as an agent's client would
//               read them; `sent` is the set of items it sent in full (`expanded: true`). The
//               brief is asked again at each of BRIEF_BUDGETS (the hooks' 1,500 too): what an
//               agent gets at that size (`briefs`); the baselines do not depend on a budget;
//   rrf_seed  — the seed's fusion as a named baseline: equal-weight reciprocal-rank fusion
//               (k = 60) of the seed lists, the hop at 0.75, PageRank and recency at 0.25;
//   bm25_path — BM25 over the ask, with the records that name a touched path verbatim first;
//   bm25      — the vector store's sparse (BM25) hits alone, chunks mapped to records;
//   vector    — the vector store's dense hits alone (diagnostic).
// Only the brief, rrf_seed and bm25_path see `touching`; bm25 and vector get the ask's text, as
// a plain search box would.
import { composeBrief } from '../src/brief/compose.js';
import { tracePool, type PoolTrace } from './pool-trace.js';
import { TIER_ORDER, type Brief } from '../src/brief/types.js';
import { Deadline, type StepOutcome } from '../src/lib/deadline.js';
import { fuseByReciprocalRank, rankedByValue, sortByScore } from '../src/retrieval/fuse.js';
import { retrieveCandidates } from '../src/retrieval/retrieve.js';
import type { EvalDoco } from './harness.js';

export const SYSTEMS = ['brief', 'rrf_seed', 'bm25_path', 'bm25', 'vector'] as const;
export type SystemName = (typeof SYSTEMS)[number];

export const QUERY_KINDS = ['lexical', 'paraphrase', 'path', 'multi', 'edit'] as const;
export type QueryKind = (typeof QUERY_KINDS)[number];

/** The budgets the brief is measured at: the default, and the hooks' (docs/brief.md). The first is `brief`. */
export const BRIEF_BUDGETS = [4000, 1500] as const;

/** How deep each ranking is kept (MRR looks at the top 100). */
export const DEPTH = 100;
/** Generous: the eval measures ranking, not the deadline (a cut step is still reported). */
const DEADLINE_MS = 60_000;
/** The seed's original retrievers: the baseline fuses these and nothing added since. */
const SEED_LISTS = new Set(['vector', 'bm25', 'fulltext', 'touches', 'glossary']);

export interface EvalQuery {
  id: string;
  kind: QueryKind | undefined;
  about: string;
  touching: string[];
  relevant: string[];
  /** An edit ask's code terms, as its hook event gives them (queries.ts): the brief is asked with them. */
  codeTerms?: string[];
}

/** What the brief sent: items, of which in full, and tokens. */
export interface BriefSize {
  items: number;
  expanded: number;
  tokens: number;
  held_back: number;
}

/** The brief at one budget: its ranking, what it sent in full and its size. */
export interface BriefAtBudget {
  budget: number;
  ranked: string[];
  sent: Set<string>;
  size: BriefSize;
}

export interface Rankings {
  ranked: Record<SystemName, string[]>;
  /** Record ids the brief sent in full. */
  sent: Set<string>;
  /** The brief's own per-step milliseconds. */
  steps: Record<string, number>;
  /** What the brief sent at the first of BRIEF_BUDGETS. */
  size: BriefSize;
  /** The brief at each of BRIEF_BUDGETS, in that order (the first is `brief`, `sent` and `size`). */
  briefs: BriefAtBudget[];
  ms: Record<SystemName, number>;
  warnings: string[];
}

const firstOccurrence = (ids: string[], limit = DEPTH) => [...new Set(ids)].slice(0, limit);

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const value = await fn();
  return [performance.now() - t0, value];
}

/** Records naming a touched path verbatim (or a path it ends with, from its second segment on). */
async function exactPathIds(doco: EvalDoco, touching: string[]): Promise<Set<string>> {
  const paths = touching.filter((t) => !/^https?:\/\//i.test(t) && !t.includes('#')).map((t) => t.replace(/^(\.{1,2}\/|\/)+/, ''));
  if (!paths.length) return new Set();
  const variants = paths.flatMap((p) => {
    const parts = p.split('/');
    return parts.slice(0, Math.max(1, parts.length - 1)).map((_, i) => parts.slice(i).join('/'));
  });
  const rows = await doco.sql<{ node_id: string }[]>`
    select distinct node_id from doco.touches where workspace_id = ${doco.workspaceId} and kind = 'path' and value = any(${variants})`;
  return new Set(rows.map((r) => r.node_id));
}

/** A brief's items pooled across tiers by score, as an agent's client reads them. */
function atBudget(budget: number, brief: Brief): BriefAtBudget {
  const items = TIER_ORDER.flatMap((t) => brief.tiers[t]).sort((a, b) => b.score - a.score);
  const sent = new Set(items.filter((i) => i.expanded).map((i) => i.id));
  return {
    budget,
    ranked: items.map((i) => i.id).slice(0, DEPTH),
    sent,
    size: { items: items.length, expanded: sent.size, tokens: brief.stats.sent_tokens, held_back: brief.stats.held_back },
  };
}

/** `trace`, when given, receives the brief's rerank pool with its evidence (the feature dump). */
export async function rankQuery(
  doco: EvalDoco,
  q: EvalQuery,
  trace?: (pool: PoolTrace) => void,
  /** Ask edit asks without their code terms (`--without-code-terms`): the brief as it was before them. */
  withoutCodeTerms = false,
): Promise<Rankings> {
  const { sql, db, providers, workspaceId, principalId } = doco;
  const warnings: string[] = [];
  const keep = <T>(o: StepOutcome<T>, fallback: T): T => {
    if (o.ok) return o.value;
    warnings.push(o.warning);
    return fallback;
  };

  const ask = (budget: number, withTrace: boolean) =>
    composeBrief(
      { sql, db, ...providers, ...(withTrace && trace ? { trace: (evidence) => trace(tracePool(evidence)) } : {}) },
      { workspaceId, principalId },
      {
        about: q.about,
        touching: q.touching,
        ...(q.codeTerms?.length && !withoutCodeTerms ? { code_terms: q.codeTerms } : {}),
        budget,
        since: '7d',
        deadline_ms: DEADLINE_MS,
      },
    );
  const [briefMs, brief] = await timed(() => ask(BRIEF_BUDGETS[0], true));
  const briefs = [atBudget(BRIEF_BUDGETS[0], brief)];
  // The other budgets: the same ask, so the same pool; only the budget's cut differs.
  for (const budget of BRIEF_BUDGETS.slice(1)) briefs.push(atBudget(budget, await ask(budget, false)));
  warnings.push(...brief.warnings);
  const { ranked: briefRanked, sent, size } = briefs[0]!;

  // The seed's fusion over the same seed lists the brief's retrieval found.
  const [rrfMs, rrf] = await timed(async () => {
    const r = await retrieveCandidates(
      { sql, embedder: providers.embedder, store: providers.store },
      workspaceId,
      { about: q.about, touching: q.touching, deadline_ms: DEADLINE_MS },
      new Deadline(DEADLINE_MS),
      keep,
    );
    const found = new Set([...r.seeds.flatMap((l) => l.ids), ...r.hopped.ids]);
    const rows = [...r.rows.values()].filter((row) => found.has(row.id));
    const scores = fuseByReciprocalRank([
      ...r.seeds.filter((l) => SEED_LISTS.has(l.name)).map((l) => ({ name: l.name, weight: 1, ids: l.ids })),
      { name: 'hop', weight: 0.75, ids: r.hopped.ids },
      rankedByValue(
        'pagerank',
        0.25,
        rows.map((row) => ({ id: row.id, value: Math.round(row.pagerank * 1000) })),
      ),
      rankedByValue(
        'recency',
        0.25,
        rows.map((row) => ({ id: row.id, value: Math.floor(row.updated_at.getTime() / 86_400_000) })),
      ),
    ]);
    return sortByScore(scores).filter((id) => r.rows.get(id)?.lifecycle !== 'retired');
  });

  // The store's two halves, alone: the same call the vector retriever makes, on the ask alone.
  const [storeMs, hits] = await timed(async () => {
    const [vector] = await providers.embedder.embed([q.about], 'query');
    return providers.store.search({ tenant: workspaceId, vector: vector!, text: q.about, limit: DEPTH * 3 });
  });
  const bm25 = firstOccurrence(hits.sparse.map((h) => h.nodeId));
  const [pathMs, exact] = await timed(() => exactPathIds(doco, q.touching));
  const bm25Path = firstOccurrence([...bm25.filter((id) => exact.has(id)), ...exact, ...bm25]);

  return {
    ranked: {
      brief: briefRanked,
      rrf_seed: rrf.slice(0, DEPTH),
      bm25_path: bm25Path,
      bm25,
      vector: firstOccurrence(hits.dense.map((h) => h.nodeId)),
    },
    sent,
    steps: brief.timings ?? {},
    size,
    briefs,
    ms: { brief: briefMs, rrf_seed: rrfMs, bm25_path: storeMs + pathMs, bm25: storeMs, vector: storeMs },
    warnings,
  };
}
