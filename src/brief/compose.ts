// The brief (docs/brief.md): seeds in parallel → one hop → score-aware fusion → relevance (rerank
// blended with the fused score), a model's synthesis beside it → tiers and the relevance floor →
// budget by relevance → the local synthesis, of the items sent → stored, with a receipt. Every
// step answers to the deadline; a cut or failing step is a warning, never an error. Only active records are knowledge: a relevant
// proposal is sent once, in the `proposed` group, and never reaches a tier or the synthesis.
import type { Sql } from '../db/connect.js';
import { getCollection } from '../graph/collections.js';
import { newId } from '../lib/ids.js';
import { escapeRegExp } from '../lib/escape-regexp.js';
import type { Embedder } from '../providers/embedder.js';
import type { Reranker } from '../providers/reranker.js';
import type { Synthesis, SynthesisItem, Synthesizer } from '../providers/synthesizer.js';
import type { VectorStore } from '../providers/vector/port.js';
import type { Db } from '../db/connect.js';
import { isBrokenConnection, isRecoveryConflict } from '../db/read-replica.js';
import { fitToBudget, MAX_FULL_ITEMS, MAX_LINE_ITEMS, type Candidate } from './budget.js';
import { capConnectorSources } from './connector-cap.js';
import { withProse, type CandidateMeta, type CandidateRow } from '../retrieval/candidates.js';
import { Deadline, step, type StepOutcome } from '../lib/deadline.js';
import { findGaps } from './gaps.js';
import { matchableWords, explainMatch, explainPathShare, termSet } from '../retrieval/because.js';
import { CODE_KEYWORDS, EDIT_TOOL_WORDS, isEditAsk, withoutPaths } from '../text/ask-words.js';
import { GENERIC_WORDS } from '../text/generic-words.js';
import type { TermLookup } from '../text/tokenize.js';
import { redactAsk } from './redact-ask.js';
import { receiptLine } from './render.js';
import { storeBrief } from './stored.js';
import { keepToSent } from './synthesis-sent.js';
import { termSetOfText, termsOfText, versionKey } from './text-terms.js';
import { namingLines, readableText, readableTextNaming } from '../text/readable/readable-text.js';
import { retrieveCandidates, touchedNames, withTouchedNames, type Retrieval } from '../retrieval/retrieve.js';
import { readingFrom, type ReadingDeps } from '../retrieval/reader.js';
import { namePattern } from '../retrieval/code-terms.js';
import { coverClauses } from './clause-cover.js';
import { priorRelevance, rerankByClause, type RerankInput } from './rerank.js';
import { changedSince, isPrinciple, placeInTiers, standingReason } from './tiers.js';
import { notInForceNote, withStatusNote } from '../text/adr-status.js';
import { liftExactTouches } from './touch-floor.js';
import { isProposal, sinceToDate, TIER_ORDER, type Brief, type BriefRequest, type Group, type Item, type TierName } from './types.js';
import { wellFormedDeep } from '../lib/well-formed.js';

/** `sql` and `db` are the primary, where the brief is stored; it reads through `reads` when set (retrieval/reader.ts). */
export interface BriefDeps extends ReadingDeps {
  sql: Sql;
  db: Db;
  embedder: Embedder;
  store: VectorStore;
  reranker: Reranker;
  synthesizer: Synthesizer;
  /** Eval only: receives the rerank pool's evidence (eval/pool-trace.ts reads it); unset, nothing is handed out. */
  trace?: (pool: PoolEvidence) => void;
}

/** What the brief knew of its rerank pool: the raw evidence an eval's feature dump is built from. */
export interface PoolEvidence {
  reranker: string;
  /** The ask (with the touched paths' names) and its clauses, as the reranker read them. */
  queries: string[];
  pool: string[];
  head: RerankInput[];
  rows: Map<string, CandidateMeta>;
  retrieval: Pick<Retrieval, 'seeds' | 'scores' | 'fused' | 'touches'>;
  byClause: Map<string, number>[];
  relevance: Map<string, number>;
}

/** Words a because line never names: the edit tool's name, and words that name no topic ('file', 'instead'). */
const UNNAMED: ReadonlySet<string> = new Set([...EDIT_TOOL_WORDS, ...GENERIC_WORDS]);
/** On an edit, whose ask is a line of code, its keywords and types too ('package', 'json'). */
const UNNAMED_IN_CODE: ReadonlySet<string> = new Set([...UNNAMED, ...CODE_KEYWORDS]);

/** How many fused candidates may become items (before the floor and the budget). */
const POOL = 60;
/** How many of them may be proposals (drafting or queued: shown apart, never knowledge). */
const POOL_PROPOSALS = 8;
const RERANK_TOP = 50;
/** Items the synthesis reads, the most relevant first. */
const SYNTHESIS_ITEMS = 12;
/** What a synthesis of the items sent may take once the deadline has passed (the local one takes ~1 ms). */
const AFTER_BUDGET_SYNTHESIS_MS = 250;
/** A synthesis that did not run, or failed (named in the warnings). */
const NO_SYNTHESIS: Synthesis = { text: '', cites: [] };
/** Prose the reranker reads of each candidate. */
const RERANK_CHARS = 2000;

/** Divides every approved candidate's relevance by the best approved one's, when proposals ranked above it. */
function knowledgeScaledToOne(relevance: Map<string, number>, proposal: (id: string) => boolean): void {
  let best = 0;
  for (const [id, r] of relevance) if (!proposal(id)) best = Math.max(best, r);
  if (best <= 0 || best >= 1) return;
  for (const [id, r] of relevance) if (!proposal(id)) relevance.set(id, Math.min(1, r / best));
}

function sourceOf(row: CandidateMeta): Item['source'] {
  const kind = typeof row.body.source_kind === 'string' ? row.body.source_kind : 'record';
  const pointer = row.body.pointer && typeof row.body.pointer === 'object' ? (row.body.pointer as Record<string, unknown>) : {};
  return { kind: kind as Item['source']['kind'], pointer };
}

type BriefContext = { workspaceId: string; principalId: string | null };

/**
 * Composes a brief from the replica when one is in use (after the caller's own changeset when
 * asked `after_changeset`), and stores it on the primary.
 */
export async function composeBrief(deps: BriefDeps, ctx: BriefContext, asked: BriefRequest): Promise<Brief> {
  return (await composeVersionedBrief(deps, ctx, asked)).brief;
}

/** A brief and the version of the record each of its items was read at: a hook's session memory keeps those. */
export interface VersionedBrief {
  brief: Brief;
  /** By item id, for the items that are records (a collection's goal or policy has none). */
  versions: ReadonlyMap<string, number>;
  /** The standing orders left out because the reader already holds them at the version read (`held`). */
  alreadyHeld: string[];
}

/**
 * What the reader of a brief already holds: a hook session's records, by id, at the version it
 * was given. A standing order it holds unchanged is not sent again and spends none of the
 * budget: the constitution's one-line orders are carried by every brief whatever the ask, and a
 * session given them at its start had them take up to the whole of the hook's 1,500 tokens,
 * then dropped as held, leaving the ask's own items the rest (docs/agents.md). Awaited only
 * when the budget is spent, so reading it never delays retrieval.
 */
export interface BriefReader {
  held?: PromiseLike<ReadonlyMap<string, number>>;
}

/** A composed brief, stored: with its JSON as stored, which is what an answer in JSON sends. */
export interface StoredBrief extends VersionedBrief {
  json: string;
}

export async function composeVersionedBrief(
  deps: BriefDeps,
  ctx: BriefContext,
  asked: BriefRequest,
  reader: BriefReader = {},
): Promise<StoredBrief> {
  const drafted = await readingFrom(deps, ctx.workspaceId, asked.after_changeset, (handles) =>
    draftBrief({ ...deps, sql: handles.sql, db: handles.db }, ctx, asked, reader),
  );
  // Every string well-formed: a cut anywhere that split a surrogate pair must not reach the agent (src/lib/well-formed.ts).
  const brief = wellFormedDeep(drafted.brief);
  const { req, versions, alreadyHeld } = drafted;
  const json = await storeBrief(deps.sql, ctx, req, brief);
  return { brief, versions, alreadyHeld, json };
}

/** Everything of a brief but storing it: reads only, on the handles `deps` holds. */
async function draftBrief(
  deps: BriefDeps,
  ctx: BriefContext,
  asked: BriefRequest,
  reader: BriefReader,
): Promise<VersionedBrief & { req: BriefRequest }> {
  const started = performance.now();
  const { req, warning } = redactAsk(asked);
  const deadline = new Deadline(req.deadline_ms);
  const warnings: string[] = warning ? [warning] : [];
  // As of T, "in motion" means changed in the `since` window before T.
  const asOf = req.as_of === undefined ? undefined : new Date(req.as_of);
  const since = sinceToDate(req.since, asOf);
  const target = req.collection ? await getCollection(deps.db, ctx.workspaceId, req.collection) : undefined;
  const keep = <T>(o: StepOutcome<T>, fallback: T): T => {
    if (o.ok) return o.value;
    // A database connection that broke under a step (or a standby's replay that cancelled it)
    // fails the draft rather than thinning it: readingFrom sends it again to the primary.
    if (o.error !== undefined && (isBrokenConnection(o.error) || isRecoveryConflict(o.error))) throw o.error;
    warnings.push(o.warning);
    return fallback;
  };

  // 1–3. Seeds, one hop, fusion; retired records drop out here, having brought their replacements,
  // and proposals past the first few: however many an agent writes, they never take approved
  // knowledge's places (a hostile review's 100 queued records emptied other agents' briefs).
  const usable = (ids: string[], rows: Map<string, CandidateMeta>) => {
    let proposals = 0;
    return capConnectorSources(
      ids.filter((id) => {
        const row = rows.get(id);
        if (!row || row.lifecycle === 'retired') return false;
        return !isProposal(row) || proposals++ < POOL_PROPOSALS;
      }),
      rows,
      since,
    );
  };
  const retrieval = await retrieveCandidates(
    deps,
    ctx.workspaceId,
    { ...req, ...(asOf ? { asOf } : {}), textAhead: POOL, rowsSuffice: (rows) => usable([...rows.keys()], rows).length >= POOL },
    deadline,
    keep,
  );
  const { rows, scores, order, clauses, clauseShares, touches, glossary, codeTerms, hopped, constitution, searched } = retrieval;
  const timings: Record<string, number> = { ...retrieval.timings };
  let mark = performance.now();
  const lap = (label: string) => {
    const now = performance.now();
    timings[label] = Math.round((now - mark) * 10) / 10;
    mark = now;
  };
  const pool = [...new Set([...usable(order, rows).slice(0, POOL), ...constitution.map((c) => c.id)])];
  // Only the pool's text is read: retrieval ranked the candidates without it.
  const pooled = await withProse(deps.sql, ctx.workspaceId, pool, rows);
  lap('pool_text');

  // 4–5. Relevance (the reranker blended with the fused score), and a model's synthesis beside it;
  // a synthesizer `fromSentItems` (the local one) runs after the budget instead.
  const query = withTouchedNames(req.about, req.touching);
  const inputs = pool.map((id) => ({ id, text: rerankText(pooled.get(id)!), prior: scores.get(id) ?? 0 }));
  // Each candidate is tokenized once (text-terms.ts): the local reranker, the because line and the gaps all read its terms.
  const keyOf = (id: string, text: string) => versionKey(id, pooled.get(id)!.version, text);
  const head = inputs.slice(0, RERANK_TOP).map((i) => ({ ...i, terms: termsOfText(i.text, keyOf(i.id, i.text)) }));
  // Only approved records are knowledge: the synthesis never draws on a proposal.
  const synthesisItem = (id: string, tier: string): SynthesisItem => {
    const row = pooled.get(id)!;
    const note = notInForceNote(row.body);
    const names = codeTerms?.named?.get(id);
    return {
      id,
      tier,
      title: row.title,
      text: readableText(row.prose, readableKey(id, row)).slice(0, 600),
      ...(note ? { note } : {}),
      ...(names ? { names } : {}),
    };
  };
  const synthesize = (items: SynthesisItem[], until = deadline) =>
    step('synthesis', until, (signal) => deps.synthesizer.synthesize(req.about, items, signal, req.touching ?? []));
  const knowledge = head.filter((i) => !isProposal(pooled.get(i.id)!));
  const [reranked, early] = await Promise.all([
    step('rerank', deadline, (signal) => rerankByClause(deps.reranker, [query, ...clauses], head, clauseShares, signal)),
    deps.synthesizer.fromSentItems
      ? undefined
      : synthesize(knowledge.slice(0, SYNTHESIS_ITEMS).map((i) => synthesisItem(i.id, tierHint(pooled.get(i.id)!, since)))),
  ]);
  const { relevance, byClause } = keep(reranked, { relevance: priorRelevance(head), byClause: [] });
  // Beyond the reranked head, candidates rank below its least relevant, by their fused score.
  const headPrior = Math.max(1e-9, ...head.map((i) => i.prior));
  const headFloor = Math.min(1, ...relevance.values());
  for (const i of inputs.slice(RERANK_TOP)) relevance.set(i.id, headFloor * Math.min(1, i.prior / headPrior));
  // Knowledge is judged against the best knowledge: proposals worded like the ask, scaled to 1
  // above it, put approved records under the relevance floor (a hostile review's flood).
  knowledgeScaledToOne(relevance, (id) => isProposal(pooled.get(id)!));
  liftExactTouches(relevance, touches);
  // Each concern of a multi-part ask keeps a place among the first items (clause-cover.ts).
  coverClauses(relevance, byClause);
  deps.trace?.({ reranker: deps.reranker.name, queries: [query, ...clauses], pool, head, rows: pooled, retrieval, byClause, relevance });
  lap('rerank_and_synthesis');

  // Tiers, with the reason each item is there; what falls under the relevance floor is not sent.
  const byRelevance = [...pool].sort((a, b) => (relevance.get(b) ?? 0) - (relevance.get(a) ?? 0));
  const terms = new Map<string, TermLookup>();
  const rerankTexts = new Map(inputs.map((i) => [i.id, i.text]));
  const termsOf = (id: string) => {
    let set = terms.get(id);
    if (!set) {
      const row = pooled.get(id)!;
      // The rerank text holds the same terms as title and prose unless it had to cut the prose.
      const text = rerankTexts.get(id) ?? rerankText(row);
      set = sameTerms(row) ? termSetOfText(text, keyOf(id, text)) : termSet(`${row.title}\n${row.prose}`);
      terms.set(id, set);
    }
    return set;
  };
  // `because` names the ask's own words: a touched path's fragments ('app', 'routes', 'tsx') are
  // said as "touches <path>" or not at all.
  const askWords = withoutPaths(req.about, req.touching ?? []);
  const placed = placeInTiers(byRelevance, pooled, relevance, since);
  const unnamed = isEditAsk(req.about) ? UNNAMED_IN_CODE : UNNAMED;
  const namable = matchableWords(askWords, unnamed);
  // An item that holds none of those may be there for a touched path's names ('ruler', 'frontend').
  const pathWords = (req.touching ?? []).map((path) => ({ path, words: matchableWords(touchedNames(path).join(' '), unnamed) }));
  // How many of the items that may be sent (the first MAX_FULL_ITEMS + MAX_LINE_ITEMS placed)
  // hold a term: the because line names the ask's words that set this item apart. Their terms are
  // the ones their own because lines read.
  const heldCounts = new Map<string, number>();
  let sendable: TermLookup[] | undefined;
  const heldBy = (term: string) => {
    sendable ??= placed.slice(0, MAX_FULL_ITEMS + MAX_LINE_ITEMS).map((p) => termsOf(p.id));
    let n = heldCounts.get(term);
    if (n === undefined) heldCounts.set(term, (n = sendable.reduce((k, set) => k + (set.has(term) ? 1 : 0), 0)));
    return n;
  };
  const why = (id: string, tier: Group): string => {
    const row = pooled.get(id)!;
    for (const list of [touches, glossary, codeTerms]) if (list?.because.has(id)) return list.because.get(id)!;
    return (
      standingReason(row, tier) ??
      hopped.because.get(id) ??
      explainMatch(namable, termsOf(id), 3, unnamed, heldBy) ??
      explainPathShare(pathWords, termsOf(id)) ??
      'similar to the ask'
    );
  };
  // A section of an ADR that is not in force says so wherever it is sent: it is what was turned
  // down or not yet agreed, not what to do.
  const reasons = (id: string, tier: Group): string => withStatusNote(why(id, tier), pooled.get(id)!.body);
  // An item there for an identifier of the code being written, or for a path the work touches,
  // shows where it names it (budget.ts).
  const anchorOf = (id: string) => {
    const name = codeTerms?.named?.get(id);
    if (name) return { anchor: namePattern(name) };
    const path = touches?.named?.get(id);
    return path ? { anchor: pathPattern(path) } : {};
  };
  const candidates: Candidate[] = target ? targetItems(target) : [];
  for (const p of placed) {
    const row = pooled.get(p.id)!;
    const anchored = anchorOf(p.id);
    candidates.push({
      id: p.id,
      node_type: row.node_type,
      collection: row.collection,
      lifecycle: row.lifecycle,
      title: row.title,
      because: reasons(p.id, p.tier),
      score: Number(p.relevance.toFixed(6)),
      updated_at: row.updated_at.toISOString(),
      source: sourceOf(row),
      fullText:
        readableTextNaming(row.prose, readableKey(p.id, row), anchored.anchor) || namingLines(row.prose, anchored.anchor) || row.title,
      tier: p.tier,
      standing: p.standing,
      ...anchored,
    });
  }

  // 6. Budget, gaps, receipt; the brief is stored so a receipt or commit trailer can link to it.
  lap('tiers');
  // A standing order the reader holds unchanged is not sent and costs nothing; it still covers
  // the ask's words (gaps, below). Items the ask chose keep their places held or not: the reader
  // drops those it holds (a session's memory), and the brief reaches no further down for them.
  const held = reader.held ? await reader.held : undefined;
  const isHeld = (c: Candidate) => c.standing && pooled.has(c.id) && held?.get(c.id) === pooled.get(c.id)!.version;
  const alreadyHeld = held ? candidates.filter(isHeld).map((c) => c.id) : [];
  const fitted = fitToBudget(alreadyHeld.length ? candidates.filter((c) => !isHeld(c)) : candidates, req.budget, termSet(query));
  // An item there because it touches a path covers that path's words too: a replacement that
  // inherited the touch of app/routes/billing.tsx covers "billing" without naming it.
  const touched = (id: string) => touches?.because.get(id)?.replace(/^touches /, '') ?? '';
  // findGaps asks whether any set holds a term, so the path's terms go beside the item's own
  // rather than into a copy of them (a copy per touched item, every brief that touches a path).
  const coveredBy = (c: Candidate): TermLookup[] => {
    const own = pooled.has(c.id) ? termsOf(c.id) : termSet(`${c.title}\n${c.fullText}`);
    const path = touched(c.id);
    return path ? [own, termSet(path)] : [own];
  };
  // Standing orders count too: "nothing names logging" is false when a rule about logs is sent.
  const gaps = findGaps(askWords, candidates.flatMap(coveredBy));
  const items = TIER_ORDER.reduce((n, t) => n + fitted.tiers[t].length, fitted.proposed.length);
  lap('budget_and_gaps');
  // The items sent, by relevance, under the tier each was sent in (proposals are not in the tiers).
  const sentTier = new Map(TIER_ORDER.flatMap((t) => fitted.tiers[t].map((i) => [i.id, t] as const)));
  const synth = early
    ? // A model's, written before the budget: what rests only on items held back is taken out.
      keepToSent(keep(early, NO_SYNTHESIS), new Set(sentTier.keys()))
    : keep(
        await synthesize(
          byRelevance
            .filter((id) => sentTier.has(id))
            .slice(0, SYNTHESIS_ITEMS)
            .map((id) => synthesisItem(id, sentTier.get(id)!)),
          // Like the budget, the brief's own work: it runs even when a slow reranker spent the deadline.
          new Deadline(Math.max(deadline.remaining, AFTER_BUDGET_SYNTHESIS_MS)),
        ),
        NO_SYNTHESIS,
      );
  if (!early) lap('synthesis');
  const stats = {
    candidates: rows.size,
    items,
    held_back: fitted.heldBack,
    searched_tokens: searched,
    sent_tokens: fitted.sentTokens,
    elapsed_ms: Math.round(performance.now() - started),
  };
  const brief: Brief = {
    brief_id: newId('brief'),
    about: req.about,
    touching: req.touching,
    budget: req.budget,
    since: req.since,
    ...(asOf ? { as_of: asOf.toISOString() } : {}),
    tiers: fitted.tiers,
    proposed: fitted.proposed,
    gaps,
    synthesis: synth,
    warnings,
    stats,
    receipt: receiptLine(stats),
    timings,
  };
  const versions = new Map([...pooled].map(([id, row]) => [id, row.version]));
  return { brief, req, versions, alreadyHeld };
}

/**
 * Names one record text: its version and length, and when that version was written (a record
 * deleted and made again under its id starts at version 1 again, prose-cache.ts).
 */
const readableKey = (id: string, row: CandidateRow) => `${versionKey(id, row.version, row.prose)}@${row.updated_at.getTime()}`;

/** A path as a text names it: not inside a longer name (a URL's folders before it are fine). */
const pathPattern = (path: string) => new RegExp(`(?<![\\w.-])${escapeRegExp(path)}(?![\\w-])`);

/** What the reranker reads of a candidate: its title and the first 2,000 characters of its prose (the title again when it has none). */
const rerankText = (row: CandidateRow) => `${row.title}\n${(row.prose || row.title).slice(0, RERANK_CHARS)}`;
/** Whether rerankText's terms, as a set, are those of the title and the whole prose (a repeated title adds no term). */
const sameTerms = (row: CandidateRow) => row.prose.length <= RERANK_CHARS;

/**
 * The tier the synthesis names an item by, known before relevance is (the synthesis runs beside
 * the rerank): the tier its type and its changes give it (tiers.ts). An architecture principle
 * stands under must obey only when relevant enough, which is not known yet, so it is named as what
 * it is.
 */
function tierHint(row: CandidateMeta, since: Date): TierName | 'architecture' {
  if (row.template === 'constitution' || row.node_type === 'rule') return 'must_obey';
  if (row.node_type === 'decision') return 'already_decided';
  if (isPrinciple(row)) return 'architecture';
  return changedSince(row, since) ? 'in_motion' : 'background';
}

function targetItems(target: Awaited<ReturnType<typeof getCollection>>): Candidate[] {
  const base = {
    collection: target.slug,
    lifecycle: 'active',
    score: 1,
    tier: 'must_obey' as const,
    standing: true,
    updated_at: target.created_at.toISOString(),
    source: { kind: 'record' as const, pointer: { collection: target.slug } },
  };
  return [
    {
      ...base,
      id: `collection:${target.slug}`,
      node_type: 'goal',
      title: `Goal of ${target.name}`,
      because: 'goal of the target collection',
      fullText: target.goal,
    },
    ...target.policies.map((p) => ({
      ...base,
      id: `policy:${target.slug}/${p.id}`,
      node_type: 'policy',
      title: `Policy ${p.id}`,
      because: 'policy of the target collection',
      fullText:
        p.kind === 'judge' ? `${p.text} (${p.action})` : `A ${p.node_types?.join('/') ?? 'record'} here needs ${p.fields.join(', ')}.`,
    })),
  ];
}
