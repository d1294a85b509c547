// Retrieval, the part of the brief that finds and orders candidates (DESIGN §4 steps 1–3):
// the four seed retrievers in parallel, one hop over the graph, then weighted RRF with PageRank
// and recency as tie-breakers. The brief tiers what this returns; the eval measures it.
import type { Sql } from '../db/connect.js';
import type { Embedder } from '../providers/embedder.js';
import type { VectorStore } from './vector-store.js';
import { loadCandidates, loadConstitution, searchedTokens, type CandidateRow } from './candidates.js';
import { step, type Deadline, type StepOutcome } from './deadline.js';
import { fuseByReciprocalRank, rankedByValue, sortByScore, type RankedList } from './fuse.js';
import { hop, type HopResult } from './hop.js';
import { fulltextSeeds, glossarySeeds, touchSeeds, vectorSeeds, type SeedList } from './retrievers.js';

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
}

export interface Retrieval {
  rows: Map<string, CandidateRow>;
  scores: Map<string, number>;
  /** Every candidate, best first (retired ones included: they brought their replacements). */
  order: string[];
  touches: SeedList | undefined;
  glossary: SeedList | undefined;
  hopped: HopResult;
  constitution: CandidateRow[];
  searched: number;
  /** Milliseconds per stage, for benchmarks and debugging. */
  timings: Record<string, number>;
}

/**
 * The ask plus the names in the paths it touches: an edit of consensus/wal.go is about the
 * consensus WAL even when the ask does not say so. File extensions and issue numbers add nothing.
 */
export function withTouchedNames(about: string, touching: string[]): string {
  const names = new Set<string>();
  for (const t of touching) {
    if (/^https?:\/\//i.test(t) || /#\d+$/.test(t) || /^[a-z]+_[0-9A-HJKMNP-TV-Z]{26}$/.test(t)) continue;
    const parts = t.replace(/^(\.{1,2}\/|\/)+/, '').split('/').filter(Boolean).slice(-2);
    const last = parts.pop();
    if (last) names.add(last.replace(/\.[A-Za-z0-9]+$/, ''));
    for (const folder of parts) names.add(folder);
  }
  const extra = [...names].map((n) => n.replace(/[_.-]+/g, ' ')).join(' ');
  return extra ? `${about} ${extra}` : about;
}

type Keep = <T>(outcome: StepOutcome<T>, fallback: T) => T;

export async function retrieveCandidates(deps: RetrievalDeps, workspaceId: string, req: RetrievalRequest, deadline: Deadline, keep: Keep): Promise<Retrieval> {
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
  const timed = <T>(label: string, fn: () => Promise<T>) => async () => {
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      timings[`seed_${label}`] = Math.round((performance.now() - t0) * 10) / 10;
    }
  };
  const [vector, fulltext, touchList, glossaryList, constitutionRows, searched] = await Promise.all([
    step('vector retriever', deadline, timed('vector', () => vectorSeeds(deps, workspaceId, searchText)), cap),
    step('full-text retriever', deadline, timed('fulltext', () => fulltextSeeds(deps.sql, workspaceId, searchText)), cap),
    step('touches retriever', deadline, timed('touches', () => touchSeeds(deps.sql, workspaceId, req.touching)), cap),
    step('glossary retriever', deadline, timed('glossary', () => glossarySeeds(deps.sql, workspaceId, req.about)), cap),
    step('constitution', deadline, timed('constitution', () => loadConstitution(deps.sql, workspaceId)), cap),
    step('index size', deadline, timed('index_size', () => searchedTokens(deps.sql, workspaceId)), cap),
  ]);
  lap('seeds');
  const touches = keep(touchList, undefined);
  const glossary = keep(glossaryList, undefined);
  const seedLists = [...keep(vector, []), keep(fulltext, undefined), touches, glossary].filter((l): l is SeedList => !!l);
  const seedOrder = sortByScore(fuseByReciprocalRank(seedLists.map((l) => ({ name: l.name, weight: 1, ids: l.ids }))));

  const [rows, hopOutcome] = await Promise.all([
    loadCandidates(deps.sql, workspaceId, seedOrder),
    step('graph hop', deadline, () => hop(deps.sql, workspaceId, seedOrder), cap),
  ]);
  const hopped = keep(hopOutcome, { ids: [], because: new Map(), replacements: new Map() });
  lap('load_seeds_and_hop');
  const constitution = keep(constitutionRows, []);
  for (const c of constitution) rows.set(c.id, c);
  const missing = hopped.ids.filter((id) => !rows.has(id));
  for (const [id, row] of await loadCandidates(deps.sql, workspaceId, missing)) rows.set(id, row);
  lap('load_hop');

  // Authority and freshness only break ties between records some retriever or the hop found:
  // a standing order with no bearing on the ask gets no lift from them (it is in must_obey anyway).
  const found = new Set([...seedOrder, ...hopped.ids]);
  const all = [...rows.values()].filter((r) => found.has(r.id));
  const lists: RankedList[] = [
    ...seedLists.map((l) => ({ name: l.name, weight: 1, ids: l.ids })),
    { name: 'hop', weight: 0.75, ids: hopped.ids },
    rankedByValue('pagerank', 0.25, all.map((r) => ({ id: r.id, value: Math.round(r.pagerank * 1000) }))),
    // Freshness by the day: records written in one sitting are equally fresh.
    rankedByValue('recency', 0.25, all.map((r) => ({ id: r.id, value: Math.floor(r.updated_at.getTime() / 86_400_000) }))),
  ];
  const scores = fuseByReciprocalRank(lists);
  const order = sortByScore(scores);
  lap('fuse');
  return { rows, scores, order, touches, glossary, hopped, constitution, searched: keep(searched, 0), timings };
}
