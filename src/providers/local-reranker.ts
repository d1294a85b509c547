// The local cross-scorer: reranks a tier's candidates against the ask without a model, from the
// same terms the BM25 index uses, so it needs no key and gives the same answer every time.
import { BM25, bm25Idf, tokenize } from '../text/tokenize.js';
import type { RerankCandidate, Reranker } from './reranker.js';

/**
 * How much each signal counts; they sum to 1, so a score lies in [0, 1]. Coverage leads: a
 * candidate that names every part of the ask should beat one that repeats a single word.
 */
const WEIGHTS = { coverage: 0.4, saturated: 0.3, adjacency: 0.2, lead: 0.1 } as const;

/** Terms of the "lead": the first line, or its first words when that line runs long. */
const LEAD_TERMS = 16;

interface Candidate {
  terms: readonly string[];
  /** How often each of the asks' terms occurs (a term that does not occur has no entry). */
  tf: Map<string, number>;
  lead: Set<string>;
}

/** The already-aborted case, named the way fetch names it, so callers test `name === 'AbortError'`. */
function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new DOMException('local rerank aborted', 'AbortError');
}

/**
 * `asked`: every term of the asks being scored, the only ones whose counts are read. Counting
 * only those, where every term of the text was counted, spared a brief 50 maps of a few hundred
 * entries each: under load their allocation was a tenth of the server's. `terms` are the text's
 * tokens when the caller holds them already (the brief tokenizes each candidate once).
 */
function prepare(text: string, asked: ReadonlySet<string>, given?: readonly string[]): Candidate {
  const terms = given ?? tokenize(text);
  const tf = new Map<string, number>();
  for (const t of terms) if (asked.has(t)) tf.set(t, (tf.get(t) ?? 0) + 1);
  return { terms, tf, lead: new Set(tokenize(firstLine(text)).slice(0, LEAD_TERMS)) };
}

/** The first line holding more than whitespace, or '' (without splitting the whole text into lines). */
function firstLine(text: string): string {
  for (let from = 0; ;) {
    const end = text.indexOf('\n', from);
    const line = end < 0 ? text.slice(from) : text.slice(from, end);
    if (line.trim() !== '') return line;
    if (end < 0) return '';
    from = end + 1;
  }
}

/** Adjacent pairs of the ask's terms ("partial refund" → partial·refund), stop words already gone, each once. */
function pairsOf(terms: string[]): [string, string][] {
  const pairs = new Map<string, [string, string]>();
  for (let i = 1; i < terms.length; i++)
    if (terms[i - 1] !== terms[i]) pairs.set(`${terms[i - 1]} ${terms[i]}`, [terms[i - 1]!, terms[i]!]);
  return [...pairs.values()];
}

/** Does `terms` hold `a` directly followed by `b`? */
function holdsPair(terms: readonly string[], a: string, b: string): boolean {
  for (let i = 1; i < terms.length; i++) if (terms[i] === b && terms[i - 1] === a) return true;
  return false;
}

/** Does the candidate hold the ask's terms contiguously, in the ask's order? */
function containsRun(haystack: readonly string[], run: string[]): boolean {
  if (run.length === 0 || run.length > haystack.length) return false;
  outer: for (let i = 0; i + run.length <= haystack.length; i++) {
    for (let j = 0; j < run.length; j++) if (haystack[i + j] !== run[j]) continue outer;
    return true;
  }
  return false;
}

/**
 * Adjacency: the share of the ask's adjacent pairs found adjacent in the candidate, lifted to 1
 * when the whole ask appears as one run (an exact phrase match). An ask of one term has none.
 */
function adjacencyScore(c: Candidate, queryTerms: string[], pairs: [string, string][]): number {
  if (pairs.length === 0) return 0;
  // A run or pair can only be there if all its terms are: the term counts rule out most
  // candidates before any scan of their terms.
  if (queryTerms.every((t) => c.tf.has(t)) && containsRun(c.terms, queryTerms)) return 1;
  let found = 0;
  for (const [a, b] of pairs) if (c.tf.has(a) && c.tf.has(b) && holdsPair(c.terms, a, b)) found++;
  return found / pairs.length;
}

/**
 * BM25 over the candidate set: IDF from how many candidates hold each term, tf saturated with
 * length normalised against the set's own mean length, divided by the best possible sum so a
 * candidate scores in [0, 1] whatever the ask's length.
 */
function saturatedScore(c: Candidate, distinct: string[], idf: Map<string, number>, meanTerms: number): number {
  const norm = BM25.k1 * (1 - BM25.b + (BM25.b * c.terms.length) / meanTerms);
  let got = 0;
  let best = 0;
  for (const term of distinct) {
    const weight = idf.get(term)!;
    const tf = c.tf.get(term) ?? 0;
    got += (weight * tf * (BM25.k1 + 1)) / (tf + norm);
    best += weight * (BM25.k1 + 1);
  }
  return best > 0 ? got / best : 0;
}

/**
 * Scores every candidate in [0, 1]; an ask with no searchable terms (empty, only stop words)
 * scores every candidate 0. Pure: the same input always gives the same scores.
 */
export function scoreLexically(query: string, candidates: RerankCandidate[]): number[] {
  return scoreLexicallyEach([query], candidates)[0]!;
}

/** scoreLexically for several queries, reading each candidate's text once. */
export function scoreLexicallyEach(queries: string[], candidates: RerankCandidate[]): number[][] {
  return lexicalFeaturesEach(queries, candidates).map((scores) => scores.map(blendLexical));
}

/** Each signal of the local reranker for one candidate, each in [0, 1] (WEIGHTS blends them). */
export interface LexicalFeatures {
  coverage: number;
  saturated: number;
  adjacency: number;
  lead: number;
}

const NO_FEATURES: LexicalFeatures = { coverage: 0, saturated: 0, adjacency: 0, lead: 0 };

/** The blend scoreLexically returns, from one candidate's features. */
export const blendLexical = (f: LexicalFeatures) =>
  WEIGHTS.coverage * f.coverage + WEIGHTS.saturated * f.saturated + WEIGHTS.adjacency * f.adjacency + WEIGHTS.lead * f.lead;

/**
 * scoreLexicallyEach's signals before they are blended, per query and candidate (the eval's
 * feature dump reads them; the brief only needs the blend).
 */
export function lexicalFeaturesEach(queries: string[], candidates: RerankCandidate[]): LexicalFeatures[][] {
  const asks = queries.map((query) => {
    const queryTerms = tokenize(query);
    return { queryTerms, distinct: [...new Set(queryTerms)] };
  });
  const asked = new Set(asks.flatMap((a) => a.distinct));
  let prepared: Candidate[] | undefined;
  return asks.map(({ queryTerms, distinct }) => {
    if (distinct.length === 0 || candidates.length === 0) return candidates.map(() => NO_FEATURES);
    prepared ??= candidates.map((c) => prepare(c.text, asked, c.terms));
    return featuresPrepared(queryTerms, distinct, prepared);
  });
}

function featuresPrepared(queryTerms: string[], distinct: string[], prepared: Candidate[]): LexicalFeatures[] {
  const meanTerms = Math.max(1, prepared.reduce((sum, c) => sum + c.terms.length, 0) / prepared.length);
  const idf = new Map<string, number>();
  for (const term of distinct) {
    const holders = prepared.filter((c) => c.tf.has(term)).length;
    idf.set(term, bm25Idf(prepared.length, holders));
  }
  const pairs = pairsOf(queryTerms);

  return prepared.map((c) => {
    if (c.terms.length === 0) return NO_FEATURES;
    return {
      coverage: distinct.filter((t) => c.tf.has(t)).length / distinct.length,
      saturated: saturatedScore(c, distinct, idf, meanTerms),
      adjacency: adjacencyScore(c, queryTerms, pairs),
      lead: distinct.filter((t) => c.lead.has(t)).length / distinct.length,
    };
  });
}

/** The default reranker: lexical, local, deterministic. Throws an AbortError when `signal` has fired. */
export function localReranker(): Reranker {
  return {
    name: 'local-lexical-v1',
    async score(query, candidates, signal) {
      throwIfAborted(signal);
      return scoreLexically(query, candidates);
    },
    async scoreEach(queries, candidates, signal) {
      throwIfAborted(signal);
      return scoreLexicallyEach(queries, candidates);
    },
  };
}
