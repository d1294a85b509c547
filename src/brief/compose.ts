// The brief (DESIGN §4): seeds in parallel → one hop → weighted RRF → tiers → rerank within
// each tier and synthesis in parallel → budget → stored, with a receipt. Every step answers to
// the deadline; a cut or failing step is a warning, never an error.
import type { Sql } from '../db/connect.js';
import { getCollection } from '../graph/collections.js';
import { newId } from '../graph/ids.js';
import type { Embedder } from '../providers/embedder.js';
import type { Reranker } from '../providers/reranker.js';
import type { Synthesizer } from '../providers/synthesizer.js';
import type { VectorStore } from '../search/vector-store.js';
import type { Db } from '../db/connect.js';
import { fitToBudget } from './budget.js';
import type { CandidateRow } from './candidates.js';
import { Deadline, step, type StepOutcome } from './deadline.js';
import { findGaps } from './gaps.js';
import { explainMatch } from './because.js';
import { redactAsk } from './redact-ask.js';
import { receiptLine } from './render.js';
import { retrieveCandidates, withTouchedNames } from './retrieve.js';
import { rerankWithPrior } from './rerank.js';
import { standingReason, tierOf } from './tiers.js';
import { sinceToDate, TIER_ORDER, type Brief, type BriefRequest, type Item, type TierName } from './types.js';

export interface BriefDeps {
  sql: Sql;
  db: Db;
  embedder: Embedder;
  store: VectorStore;
  reranker: Reranker;
  synthesizer: Synthesizer;
}

/** How many fused candidates become items (before the budget); the rest stay candidates. */
const POOL = 60;
const RERANK_TOP = 50;
const CONNECTOR_PER_SOURCE = 10;
const CONNECTOR_KINDS = new Set(['github', 'slack', 'notion', 'drive']);

type Ranked = Omit<Item, 'text' | 'expanded'> & { fullText: string };

function sourceOf(row: CandidateRow): Item['source'] {
  const kind = typeof row.body.source_kind === 'string' ? row.body.source_kind : 'record';
  const pointer = row.body.pointer && typeof row.body.pointer === 'object' ? (row.body.pointer as Record<string, unknown>) : {};
  return { kind: kind as Item['source']['kind'], pointer };
}

export async function composeBrief(deps: BriefDeps, ctx: { workspaceId: string; principalId: string | null }, asked: BriefRequest): Promise<Brief> {
  const started = performance.now();
  const { req, warning } = redactAsk(asked);
  const deadline = new Deadline(req.deadline_ms);
  const warnings: string[] = warning ? [warning] : [];
  const since = sinceToDate(req.since);
  const target = req.collection ? await getCollection(deps.db, ctx.workspaceId, req.collection) : undefined;
  const keep = <T>(o: StepOutcome<T>, fallback: T): T => {
    if (o.ok) return o.value;
    warnings.push(o.warning);
    return fallback;
  };

  // 1–3. Seeds, one hop, fusion; retired records drop out here, having brought their replacements.
  const { rows, scores, order, touches, glossary, hopped, constitution, searched } = await retrieveCandidates(deps, ctx.workspaceId, req, deadline, keep);
  const constitutionIds = new Set(constitution.map((c) => c.id));
  const live = order.filter((id) => rows.get(id)?.lifecycle !== 'retired');
  const pool = [...new Set([...live.slice(0, POOL), ...live.filter((id) => constitutionIds.has(id))])];

  // 4. Tiers, with the reason each item is there.
  const reasons = (id: string): string => {
    const row = rows.get(id)!;
    for (const list of [touches, glossary]) if (list?.because.has(id)) return list.because.get(id)!;
    return standingReason(row) ?? hopped.because.get(id) ?? explainMatch(req.about, `${row.title}\n${row.prose}`) ?? 'similar to the ask';
  };
  const ranked: Record<TierName, Ranked[]> = { must_obey: [], already_decided: [], in_motion: [], background: [] };
  if (target) ranked.must_obey.push(...targetItems(target));
  const perConnector = new Map<string, number>();
  for (const id of pool) {
    const row = rows.get(id)!;
    const source = sourceOf(row);
    if (CONNECTOR_KINDS.has(source.kind)) {
      const n = (perConnector.get(source.kind) ?? 0) + 1;
      perConnector.set(source.kind, n);
      if (n > CONNECTOR_PER_SOURCE) continue;
    }
    ranked[tierOf(row, since)].push({
      id, node_type: row.node_type, collection: row.collection, lifecycle: row.lifecycle, title: row.title, because: reasons(id),
      score: Number((scores.get(id) ?? 0).toFixed(6)), updated_at: row.updated_at.toISOString(), source, fullText: row.prose || row.title,
    });
  }

  // 5. Rerank inside each tier (never across) and synthesis, in parallel.
  const [reranked, synthesis] = await Promise.all([
    step('rerank', deadline, (signal) => rerankTiers(deps.reranker, withTouchedNames(req.about, req.touching), ranked, signal)),
    step('synthesis', deadline, (signal) =>
      deps.synthesizer.synthesize(req.about, TIER_ORDER.flatMap((t) => ranked[t].slice(0, 8).map((i) => ({ id: i.id, tier: t, title: i.title, text: i.fullText.slice(0, 600) }))), signal),
    ),
  ]);
  const finalRanked = keep(reranked, ranked);
  const synth = keep(synthesis, { text: '', cites: [] });

  // 6. Budget, gaps, receipt; the brief is stored so a receipt or commit trailer can link to it.
  const fitted = fitToBudget(finalRanked, req.budget);
  const gaps = findGaps(req.about, TIER_ORDER.flatMap((t) => finalRanked[t].map((i) => `${i.title}\n${i.fullText}`)));
  const items = TIER_ORDER.reduce((n, t) => n + fitted.tiers[t].length, 0);
  const stats = {
    candidates: rows.size, items, held_back: fitted.heldBack, searched_tokens: searched,
    sent_tokens: fitted.sentTokens, elapsed_ms: Math.round(performance.now() - started),
  };
  const brief: Brief = {
    brief_id: newId('brief'), about: req.about, touching: req.touching, budget: req.budget, since: req.since,
    tiers: fitted.tiers, gaps, synthesis: synth, warnings, stats, receipt: receiptLine(stats),
  };
  await deps.sql`
    insert into doco.briefs (id, workspace_id, principal_id, request, response)
    values (${brief.brief_id}, ${ctx.workspaceId}, ${ctx.principalId}, ${deps.sql.json(req as never)}, ${deps.sql.json(brief as never)})`;
  return brief;
}

function targetItems(target: Awaited<ReturnType<typeof getCollection>>): Ranked[] {
  const base = { collection: target.slug, lifecycle: 'active', score: 1, updated_at: target.created_at.toISOString(), source: { kind: 'record' as const, pointer: { collection: target.slug } } };
  return [
    { ...base, id: `collection:${target.slug}`, node_type: 'goal', title: `Goal of ${target.name}`, because: 'goal of the target collection', fullText: target.goal },
    ...target.policies.map((p) => ({
      ...base,
      id: `policy:${target.slug}/${p.id}`,
      node_type: 'policy',
      title: `Policy ${p.id}`,
      because: 'policy of the target collection',
      fullText: p.kind === 'judge' ? `${p.text} (${p.action})` : `A ${p.node_types?.join('/') ?? 'record'} here needs ${p.fields.join(', ')}.`,
    })),
  ];
}

async function rerankTiers(reranker: Reranker, about: string, ranked: Record<TierName, Ranked[]>, signal: AbortSignal): Promise<Record<TierName, Ranked[]>> {
  const out = { ...ranked };
  await Promise.all(
    TIER_ORDER.map(async (tier) => {
      const items = ranked[tier];
      const head = items.slice(0, RERANK_TOP);
      if (head.length < 2) return;
      const order = await rerankWithPrior(reranker, about, head.map((i) => ({ id: i.id, text: `${i.title}\n${i.fullText.slice(0, 2000)}`, prior: i.score })), signal);
      const byId = new Map(head.map((i) => [i.id, i]));
      out[tier] = [...order.map((id) => byId.get(id)!), ...items.slice(RERANK_TOP)];
    }),
  );
  return out;
}
