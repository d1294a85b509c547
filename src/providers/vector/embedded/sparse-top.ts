// BM25's best k with dynamic pruning, exactly the hits and scores of scoring every posting.
// Terms are scored rarest-first (by their largest possible contribution) into a dense buffer
// until no document outside it can reach the k best: the k best so far, scored in full by lookups,
// beat everything the terms left could give. The documents found so far then take the remaining
// terms one at a time, in slot order, each looked up by galloping through the term's postings,
// and a document leaves as soon as it cannot reach the k-th best, which rises as others complete
// (MaxScore-style, after Turtle & Flood, and Moffat & Zobel's quit/continue). Common terms'
// long postings are then probed instead of read whole. Every pruning test keeps a margin far
// above floating-point error, and the final few are rescored with their terms added in the
// query's order, as the full scan adds them, so even the last bit and every tie come out the same.
import type { Weights } from './postings.js';
import { ScoreFloor } from './score-floor.js';
import { TopK } from './top-k.js';

/** One query term's postings (slots ascending) with its IDF and largest contribution. */
export interface QueryTerm {
  slots: Int32Array;
  /** Codes into `table` (the index's distinct weights, postings.ts), or the weights themselves when it is undefined. */
  weights: Weights;
  table: Float32Array | undefined;
  len: number;
  idf: number;
  /** idf × the posting's largest weight: no document gains more from this term. */
  bound: number;
}

export interface ScoredSlot {
  slot: number;
  score: number;
}

/** Scratch space reused between searches: `scores` all zero, both at least the index's size. */
export interface SparseBuffers {
  scores: Float64Array;
  touched: Int32Array;
}

/** Relative slack for every pruning comparison: rounding differences are ~1e-15 of a score. */
const SLACK = 1e-9;
const margin = (x: number) => SLACK * (1 + Math.abs(x));

/**
 * Below this many postings in all, every posting is scored: pruning pays on long lists only.
 * Where the documents all score alike it never pays, however long the lists: the duplicate
 * guard's query (a record's own words, `StoreQuery.recordWords`) scores every posting.
 */
export const PRUNE_FROM_POSTINGS = 50_000;

/**
 * The k best matching slots by BM25, best first (equal scores: lower slot first). `terms` in the
 * query's order. Pruned or not (`pruneFrom` postings in all), the answer is the same to the bit.
 */
export function sparseTopK(
  terms: QueryTerm[],
  k: number,
  match: (slot: number) => boolean,
  alive: Uint8Array,
  buffers: SparseBuffers,
  pruneFrom = PRUNE_FROM_POSTINGS,
): ScoredSlot[] {
  if (k <= 0 || terms.length === 0) return [];
  let postings = 0;
  for (const t of terms) postings += t.len;
  if (postings < pruneFrom) return scoreEveryPosting(terms, k, match, alive, buffers);
  const { scores, touched } = buffers;
  const ranked = [...terms].sort((a, b) => b.bound - a.bound);
  // after[i]: the most the terms from ranked[i] on can add to any document.
  const after = new Float64Array(ranked.length + 1);
  for (let i = ranked.length - 1; i >= 0; i--) after[i] = after[i + 1]! + ranked[i]!.bound;
  // touched[runs[i]…runs[i + 1]) are the documents ranked[i] brought first, in slot order.
  const runs = [0];
  let scored = 0;
  let threshold = -Infinity;
  while (scored < ranked.length) {
    runs.push(addAll(ranked[scored]!, alive, scores, touched, runs[scored]!));
    scored++;
    const rest = after[scored]!;
    // The k-th best is at most the best possible score of the terms scored so far.
    if (runs[scored]! < k || rest >= after[0]! - rest) continue;
    threshold = Math.max(threshold, probeThreshold(ranked, scored, touched.subarray(0, runs[scored]), scores, match, k));
    if (threshold - rest > margin(threshold)) break;
  }
  const found = touched.subarray(0, runs[scored]);
  const pool =
    scored < ranked.length
      ? finishCandidates(
          ranked,
          after,
          scored,
          inSlotOrder(touched, runs, scores, threshold - margin(threshold) - after[scored]!, match),
          scores,
          threshold,
          k,
        )
      : found.filter(match);
  const result = exactTop(terms, pool, scores, k);
  for (const slot of found) scores[slot] = 0;
  return result;
}

/** Every term added whole, in the query's order, then the k best of the documents touched. */
function scoreEveryPosting(
  terms: QueryTerm[],
  k: number,
  match: (slot: number) => boolean,
  alive: Uint8Array,
  buffers: SparseBuffers,
): ScoredSlot[] {
  const { scores, touched } = buffers;
  let n = 0;
  for (const t of terms) n = addAll(t, alive, scores, touched, n);
  const top = new TopK(k);
  for (let i = 0; i < n; i++) {
    const slot = touched[i]!;
    const score = scores[slot]!;
    scores[slot] = 0;
    if (score >= top.floor && match(slot)) top.push(slot, score);
  }
  return top.sorted();
}

/** Adds one term's contribution to every live document holding it; returns the new count of touched. */
function addAll(t: QueryTerm, alive: Uint8Array, scores: Float64Array, touched: Int32Array, n: number): number {
  const { slots, len, idf, table } = t;
  // Two loops, each reading one kind of array: the common one (codes) stays monomorphic.
  if (table) {
    const codes = t.weights as Uint16Array;
    for (let i = 0; i < len; i++) {
      const slot = slots[i]!;
      if (!alive[slot]) continue;
      if (scores[slot] === 0) touched[n++] = slot;
      scores[slot] = scores[slot]! + idf * table[codes[i]!]!;
    }
    return n;
  }
  const weights = t.weights as Float32Array;
  for (let i = 0; i < len; i++) {
    const slot = slots[i]!;
    if (!alive[slot]) continue;
    if (scores[slot] === 0) touched[n++] = slot;
    scores[slot] = scores[slot]! + idf * weights[i]!;
  }
  return n;
}

/** Entry i's weight: through the table when the weights are codes. */
const weightAt = (t: QueryTerm, i: number): number => (t.table ? t.table[t.weights[i]!]! : t.weights[i]!);

/** The matching touched documents scoring at least `bar` so far, in slot order: the runs filtered and merged. */
function inSlotOrder(touched: Int32Array, runs: number[], scores: Float64Array, bar: number, match: (slot: number) => boolean): Int32Array {
  const parts: Int32Array[] = [];
  for (let r = 0; r + 1 < runs.length; r++) {
    const part = new Int32Array(runs[r + 1]! - runs[r]!);
    let n = 0;
    for (let i = runs[r]!; i < runs[r + 1]!; i++) {
      const slot = touched[i]!;
      if (scores[slot]! >= bar && match(slot)) part[n++] = slot;
    }
    parts.push(part.subarray(0, n));
  }
  if (parts.length === 1) return parts[0]!;
  const out = new Int32Array(parts.reduce((n, p) => n + p.length, 0));
  const heads = new Int32Array(parts.length);
  for (let o = 0; o < out.length; o++) {
    let best = -1;
    for (let p = 0; p < parts.length; p++)
      if (heads[p]! < parts[p]!.length && (best < 0 || parts[p]![heads[p]!]! < parts[best]![heads[best]!]!)) best = p;
    out[o] = parts[best]![heads[best]!++]!;
  }
  return out;
}

/** One term's contribution to `slot` (0 when it lacks the term), searching on from cursors[j], which moves past it. */
function lookup(t: QueryTerm, cursors: Int32Array, j: number, slot: number): number {
  let pos = gallop(t.slots, t.len, cursors[j]!, slot);
  let gain = 0;
  while (pos < t.len && t.slots[pos] === slot) gain += t.idf * weightAt(t, pos++);
  cursors[j] = pos;
  return gain;
}

/**
 * A lower bound on the final k-th best score: the documents of the k best partial scores scored
 * in full (k lookups per term left), which is far above the k-th best partial score.
 */
function probeThreshold(
  ranked: QueryTerm[],
  scored: number,
  touched: Int32Array,
  scores: Float64Array,
  match: (slot: number) => boolean,
  k: number,
): number {
  const best = bestSlots(touched, scores, match, k).sort();
  if (best.length < k) return -Infinity;
  const cursors = new Int32Array(ranked.length);
  const floor = new ScoreFloor(k);
  for (const slot of best) {
    let score = scores[slot]!;
    for (let j = scored; j < ranked.length; j++) score += lookup(ranked[j]!, cursors, j, slot);
    floor.push(score);
  }
  return floor.value;
}

/**
 * Document at a time in slot order: each candidate takes the remaining terms one by one while it
 * can still reach the k-th best, which rises as candidates complete. Returns those that
 * complete, their full scores in `scores`.
 */
function finishCandidates(
  ranked: QueryTerm[],
  after: Float64Array,
  from: number,
  candidates: Int32Array,
  scores: Float64Array,
  threshold: number,
  k: number,
): number[] {
  const cursors = new Int32Array(ranked.length);
  const floor = new ScoreFloor(k);
  const done: number[] = [];
  let bar = threshold - margin(threshold);
  for (let c = 0; c < candidates.length; c++) {
    const slot = candidates[c]!;
    let score = scores[slot]!;
    let j = from;
    for (; j < ranked.length && score + after[j]! >= bar; j++) score += lookup(ranked[j]!, cursors, j, slot);
    if (j < ranked.length || score < bar) continue;
    scores[slot] = score;
    done.push(slot);
    floor.push(score);
    if (floor.value > threshold) {
      threshold = floor.value;
      bar = threshold - margin(threshold);
    }
  }
  return done;
}

/**
 * The k best of the pool rescored exactly: each term's contribution added in the query's order,
 * as scoring every posting adds them. Only the pool's near-top is rescored; the rest trails the
 * k-th best by far more than rounding.
 */
function exactTop(terms: QueryTerm[], pool: ArrayLike<number>, scores: Float64Array, k: number): ScoredSlot[] {
  let kth = -Infinity;
  if (pool.length > k) {
    const floor = new ScoreFloor(k);
    for (let i = 0; i < pool.length; i++) floor.push(scores[pool[i]!]!);
    kth = floor.value;
  }
  const near: number[] = [];
  for (let i = 0; i < pool.length; i++) if (scores[pool[i]!]! >= kth - margin(kth)) near.push(pool[i]!);
  near.sort((a, b) => a - b);
  const exact = near.map((slot) => ({ slot, score: 0 }));
  const cursors = new Int32Array(terms.length);
  // Term by term in the query's order, as the full scan adds them.
  for (let j = 0; j < terms.length; j++) for (const e of exact) e.score = e.score + lookup(terms[j]!, cursors, j, e.slot);
  return exact.sort((a, b) => b.score - a.score || a.slot - b.slot).slice(0, k);
}

/** The first position at or after `from` whose slot is ≥ `slot` (len when none): doubling steps, then bisection. */
export function gallop(slots: Int32Array, len: number, from: number, slot: number): number {
  if (from >= len || slots[from]! >= slot) return from;
  let lo = from;
  let step = 1;
  let hi = from + 1;
  while (hi < len && slots[hi]! < slot) {
    lo = hi;
    step *= 2;
    hi = lo + step;
  }
  if (hi > len) hi = len;
  // slots[lo] < slot; the answer lies in (lo, hi].
  while (lo + 1 < hi) {
    const mid = (lo + hi) >>> 1;
    if (slots[mid]! < slot) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** Up to k matching slots with the best scores (which of equal scores: any). */
function bestSlots(slots: Int32Array, scores: Float64Array, match: (slot: number) => boolean, k: number): Int32Array {
  const cut = new ScoreFloor(k);
  for (const slot of slots) if (scores[slot]! > cut.value && match(slot)) cut.push(scores[slot]!);
  const out = new Int32Array(k);
  let n = 0;
  for (const slot of slots) if (n < k && scores[slot]! >= cut.value && match(slot)) out[n++] = slot;
  return out.subarray(0, n);
}
