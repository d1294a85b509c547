// Retrieval, the part of the brief that finds and orders candidates (docs/brief.md, steps 1–3):
// the four seed retrievers in parallel, one hop over the graph, then weighted RRF with PageRank
// and recency as tie-breakers. The brief tiers what this returns; the eval measures it.
import type { Sql } from '../db/connect.js';
import type { Embedder } from '../providers/embedder.js';
import type { VectorStore } from '../providers/vector/port.js';
import { loadCandidatesAsOf, predecessorsAsOf } from './as-of.js';
import { loadBriefContext } from './brief-context.js';
import { loadCandidateMeta, loadProseAhead, type CandidateMeta, type CandidateRow } from './candidates.js';
import { isTextOf } from './prose-cache.js';
import { step, type Deadline, type StepOutcome } from '../lib/deadline.js';
import { splitClauses } from './clauses.js';
import { codeTermSeeds } from './code-terms.js';
import { fuseByScore, sortByScore } from './fuse.js';
import { hop, type HopResult } from './hop.js';
import { bm25Seeds, fulltextSeeds, indexSeeds, SEED_LIMIT, touchSeeds, type SeedList } from './retrievers.js';

export interface RetrievalDeps {
  sql: Sql;
  embedder: Embedder;
  store: VectorStore;
}

/** What retrieval needs of a brief request. */
export interface RetrievalRequest {
  about: string;
  touching: string[];
  deadline_ms: number;
  /** Answer as the records stood at this time: candidates from today's index, their text, type and lifecycle from their versions then. */
  asOf?: Date;
  /** Load the text of this many of the best seeds with the rest (the brief reads its pool's); none by default. */
  textAhead?: number;
  /** Identifiers of the code being written (an edit hook's): records naming them are a seed list of their own. */
  code_terms?: string[];
  /**
   * Whether the rows read hold all the caller needs of them (a brief: its pool of live records).
   * While they do not, and more candidates were ranked, the next CANDIDATE_ROWS are read too.
   */
  rowsSuffice?: (rows: Map<string, CandidateMeta>) => boolean;
}

export interface Retrieval {
  /** Every candidate without its text (but the constitution's and, as of a time, all of them: withProse reads what is missing). */
  rows: Map<string, CandidateMeta>;
  scores: Map<string, number>;
  /** The seed lists' fusion alone, before the hop and PageRank added to it (`scores`). */
  fused: Map<string, number>;
  /** Every candidate, best first (retired ones included: they brought their replacements). */
  order: string[];
  /** The ask's concerns when it has several (each was also retrieved on its own), else []. */
  clauses: string[];
  /** Per clause (same order), each record's share of that clause's best lexical score. */
  clauseShares: Map<string, number>[];
  /** Every seed list that answered, for explanations and for baselines in the eval. */
  seeds: SeedList[];
  touches: SeedList | undefined;
  glossary: SeedList | undefined;
  /** Records naming an identifier of the code being written, when the request carried code terms. */
  codeTerms: SeedList | undefined;
  hopped: HopResult;
  constitution: CandidateRow[];
  searched: number;
  /** Milliseconds per stage, for benchmarks and debugging. */
  timings: Record<string, number>;
}

/**
 * The names in a touched path that say what it is about: its file's name without the extension
 * and its folder's, split at '_', '.' and '-' (pkg/ruler/frontend_client.go: 'ruler', 'frontend
 * client'). A URL, an issue number or a record id names nothing.
 */
export function touchedNames(touched: string): string[] {
  if (/^https?:\/\//i.test(touched) || /#\d+$/.test(touched) || /^[a-z]+_[0-9A-HJKMNP-TV-Z]{26}$/.test(touched)) return [];
  const parts = touched
    .replace(/^(\.{1,2}\/|\/)+/, '')
    .split('/')
    .filter(Boolean)
    .slice(-2);
  const last = parts.pop();
  return [...(last ? [last.replace(/\.[A-Za-z0-9]+$/, '')] : []), ...parts].map((n) => n.replace(/[_.-]+/g, ' '));
}

/**
 * The ask plus the names in the paths it touches: an edit of consensus/wal.go is about the
 * consensus WAL even when the ask does not say so. File extensions and issue numbers add nothing.
 */
export function withTouchedNames(about: string, touching: string[]): string {
  const extra = [...new Set(touching.flatMap(touchedNames))].join(' ');
  return extra ? `${about} ${extra}` : about;
}

type Keep = <T>(outcome: StepOutcome<T>, fallback: T) => T;

/**
 * Each seed list's weight in the score-aware fusion (fuse.ts), chosen by `npm run eval` on three
 * labelled corpora (docs/eval.md). BM25 leads; the dense list over hashed features mostly
 * agrees with it, so it weighs less, and Postgres full text (the same words again) least; an
 * exact touch of the file outweighs a top lexical hit, so a vague ask about a touched file
 * still brings the docs that name it. A glossary term the ask names is as precise as a top
 * lexical hit: the team said which record defines it. A record naming an identifier of the
 * code being written (an edit's code terms) weighs 2: the best of a sweep on the first 25 edit
 * asks, kept only after 24 held-out edit asks written later agreed (docs/eval.md, "Session 20").
 */
export const SEED_WEIGHTS: Record<SeedList['name'], number> = {
  bm25: 1,
  vector: 0.7,
  fulltext: 0.3,
  touches: 1.2,
  glossary: 1,
  clauses: 0.5,
  code_terms: 2,
};
/**
 * How many of the fused candidates (seeds and the hop's neighbours) are read from Postgres at a
 * time. A brief ranks ~320 at 10k records and reads the text of its best 60 live ones; reading
 * the rest's rows was half of what a brief asked of Postgres. The next ones are read only when
 * those above hold too few the brief may use (retired records, or more of one connector's than
 * the connector cap lets through), up to MAX_CANDIDATE_ROWS in all.
 */
export const CANDIDATE_ROWS = 100;
export const MAX_CANDIDATE_ROWS = 400;
/** A neighbour of a seed scores this share of the seed's score; a replacement takes all of it. */
export const HOP_SHARE = 0.3;
/** PageRank only breaks ties: at most this much of a score. */
const PAGERANK_SHARE = 0.02;

export const scoredSeedLists = (lists: SeedList[]) =>
  lists.map((l) => ({
    name: l.name,
    weight: SEED_WEIGHTS[l.name],
    ids: l.ids,
    scores: l.scores,
    floor: l.name === 'vector' ? ('tail' as const) : ('zero' as const),
  }));

export async function retrieveCandidates(
  deps: RetrievalDeps,
  workspaceId: string,
  req: RetrievalRequest,
  deadline: Deadline,
  keep: Keep,
): Promise<Retrieval> {
  // Retrievers get at most 60% of the deadline, so later steps keep time to answer.
  const cap = req.deadline_ms * 0.6;
  const timings: Record<string, number> = {};
  let mark = performance.now();
  const lap = (label: string) => {
    const now = performance.now();
    timings[label] = Math.round((now - mark) * 10) / 10;
    mark = now;
  };
  const searchText = withTouchedNames(req.about, req.touching);
  const timed =
    <T>(label: string, fn: (signal: AbortSignal) => Promise<T>) =>
    async (signal: AbortSignal) => {
      const t0 = performance.now();
      try {
        return await fn(signal);
      } finally {
        timings[`seed_${label}`] = Math.round((performance.now() - t0) * 10) / 10;
      }
    };
  const clauses = splitClauses(req.about);
  const { asOf } = req;
  const load = (ids: string[]): Promise<Map<string, CandidateMeta>> =>
    asOf ? loadCandidatesAsOf(deps.sql, workspaceId, ids, asOf) : loadCandidateMeta(deps.sql, workspaceId, ids);
  const codeTerms = req.code_terms ?? [];
  const [vector, fulltext, touchList, context, clauseList, codeTermList] = await Promise.all([
    step(
      'vector retriever',
      deadline,
      timed('vector', (signal) => indexSeeds(deps, workspaceId, searchText, undefined, SEED_LIMIT, signal)),
      cap,
    ),
    step(
      'full-text retriever',
      deadline,
      // Approved records only: however many proposals match the ask (they fill the index's lists
      // by the hundred when an agent floods them), this list still brings the knowledge.
      timed('fulltext', () => fulltextSeeds(deps.sql, workspaceId, searchText, undefined, SEED_LIMIT, { approvedOnly: true })),
      cap,
    ),
    step(
      'touches retriever',
      deadline,
      timed('touches', () => touchSeeds(deps.sql, workspaceId, req.touching, clauses.length > 1)),
      cap,
    ),
    step(
      'constitution, glossary and index size',
      deadline,
      timed('context', () => loadBriefContext(deps.sql, workspaceId, req.about, asOf)),
      cap,
    ),
    clauses.length
      ? step(
          'clause retriever',
          deadline,
          timed('clauses', () => clauseSeeds(deps, workspaceId, clauses)),
          cap,
        )
      : undefined,
    codeTerms.length
      ? step(
          'code-terms retriever',
          deadline,
          timed('code_terms', () => codeTermSeeds(deps, workspaceId, codeTerms)),
          cap,
        )
      : undefined,
  ]);
  lap('seeds');
  const touches = keep(touchList, undefined);
  const { constitution, glossary, searched } = keep<{ constitution: CandidateRow[]; glossary: SeedList | undefined; searched: number }>(
    context,
    {
      constitution: [],
      glossary: undefined,
      searched: 0,
    },
  );
  const vectorLists = keep(vector, []);
  for (const [step, ms] of Object.entries(vectorLists[0]?.storeTimings ?? {})) timings[`seed_vector_${step}`] = ms;
  // The store answered but in a degraded way (its scan workers failed): the brief says so.
  for (const w of vectorLists.flatMap((l) => l.warnings ?? [])) keep({ ok: false, warning: w }, undefined);
  const byClause = clauseList && keep(clauseList, undefined);
  const codeTermsList = codeTermList && keep(codeTermList, undefined);
  const seedLists = [...vectorLists, keep(fulltext, undefined), touches, glossary, byClause?.list, codeTermsList].filter(
    (l): l is SeedList => !!l,
  );
  const seedScores = fuseByScore(scoredSeedLists(seedLists));
  const seedOrder = sortByScore(seedScores);

  // The brief's pool is nearly always among the seeds ranked first: their text loads beside the
  // hop instead of in a round trip after fusion (withProse loads what this missed). As of a time,
  // every row comes with its text.
  const ahead = asOf ? [] : seedOrder.slice(0, req.textAhead ?? 0);
  const [hopOutcome, prose] = await Promise.all([
    step('graph hop', deadline, () => hop(deps.sql, workspaceId, seedOrder, asOf), cap),
    loadProseAhead(deps.sql, workspaceId, ahead),
  ]);
  const hopped = keep(hopOutcome, { ids: [], because: new Map(), replacements: new Map(), via: new Map() });
  lap('hop');

  let rows: Map<string, CandidateMeta> = new Map();
  if (asOf) {
    // As of a time every candidate is read: one absent then stands for the record it replaced.
    rows = await load([...new Set([...seedOrder, ...hopped.ids])]);
    for (const c of constitution) rows.set(c.id, c);
    await restateAsOf(deps.sql, workspaceId, asOf, seedScores, rows);
  }
  // A neighbour inherits a share of the score of the seed that brought it; a replacement stands
  // where the record it replaced stood.
  const scores = new Map(seedScores);
  for (const id of hopped.ids) {
    const from = hopped.via.get(id);
    const inherited = (from ? (seedScores.get(from) ?? 0) : 0) * (hopped.replacements.get(from ?? '') === id ? 1 : HOP_SHARE);
    scores.set(id, Math.max(scores.get(id) ?? 0, inherited));
  }
  if (!asOf) {
    // Only the best CANDIDATE_ROWS are read, and more only when the caller needs more of them.
    const ranked = sortByScore(scores);
    rows = await load(ranked.slice(0, CANDIDATE_ROWS));
    let read = CANDIDATE_ROWS;
    while (read < Math.min(ranked.length, MAX_CANDIDATE_ROWS) && req.rowsSuffice && !req.rowsSuffice(rows)) {
      for (const [id, row] of await load(ranked.slice(read, read + CANDIDATE_ROWS))) rows.set(id, row);
      read += CANDIDATE_ROWS;
    }
    for (const c of constitution) rows.set(c.id, c);
  }
  for (const [id, entry] of prose) {
    const row = rows.get(id);
    // A text read before its row, of the version the row was read at (withProse reads the rest).
    if (!row || !isTextOf(entry, row)) continue;
    const full: CandidateRow = { ...row, prose: entry.prose };
    rows.set(id, full);
  }
  lap('load_candidates');

  // As of T, a neighbour is one at T; anything without a state at T is not handed out. Otherwise
  // what was not read ranks too low to matter, and is not handed out either.
  for (const id of scores.keys()) if (!rows.has(id)) scores.delete(id);
  // PageRank breaks ties among what was found, and lifts nothing that was not: a standing order
  // with no bearing on the ask stays at 0.
  const maxRank = Math.max(1e-9, ...[...scores.keys()].map((id) => rows.get(id)?.pagerank ?? 0));
  const best = Math.max(1e-9, ...scores.values());
  for (const [id, s] of scores) scores.set(id, s + PAGERANK_SHARE * best * ((rows.get(id)?.pagerank ?? 0) / maxRank));
  const order = sortByScore(scores);
  lap('fuse');
  return {
    rows,
    scores,
    fused: seedScores,
    order,
    clauses,
    clauseShares: byClause?.shares ?? [],
    seeds: seedLists,
    touches,
    glossary,
    codeTerms: codeTermsList,
    hopped,
    constitution,
    searched,
    timings,
  };
}

/**
 * A brief as of T: a candidate that did not exist then stands for the record it replaced, if
 * that one was live at T (the index holds only the replacement); what has no state at T leaves.
 */
async function restateAsOf(
  sql: Sql,
  workspaceId: string,
  asOf: Date,
  seedScores: Map<string, number>,
  rows: Map<string, CandidateMeta>,
): Promise<void> {
  const absent = [...seedScores.keys()].filter((id) => !rows.has(id));
  const predecessors = await predecessorsAsOf(sql, workspaceId, absent, asOf);
  for (const id of absent) {
    const score = seedScores.get(id)!;
    seedScores.delete(id);
    const row = predecessors.get(id);
    if (!row) continue;
    rows.set(row.id, row);
    seedScores.set(row.id, Math.max(seedScores.get(row.id) ?? 0, score));
  }
}

/**
 * Each clause of a multi-part ask searched on its own by BM25; a record scores its best
 * clause's share, so a concern the rest of the ask drowns out still brings its own docs, and a
 * record answering several concerns gains nothing twice.
 */
async function clauseSeeds(
  deps: RetrievalDeps,
  workspaceId: string,
  clauses: string[],
): Promise<{ list: SeedList; shares: Map<string, number>[] }> {
  // BM25 alone per clause: a dense scan per clause would cost as much as the whole ask's (tens
  // of milliseconds at 100k records) for no measured gain (docs/eval.md).
  const perClause = await Promise.all(clauses.map(async (c) => [await bm25Seeds(deps, workspaceId, c)]));
  const best = new Map<string, number>();
  const shares = perClause.map((lists) => {
    const scores = fuseByScore(scoredSeedLists(lists));
    const top = Math.max(1e-9, ...scores.values());
    const share = new Map([...scores].map(([id, s]) => [id, s / top]));
    for (const [id, s] of share) best.set(id, Math.max(best.get(id) ?? 0, s));
    return share;
  });
  const ranked = [...best.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, SEED_LIMIT);
  return { list: { name: 'clauses', ids: ranked.map(([id]) => id), scores: ranked.map(([, s]) => s), because: new Map() }, shares };
}
