// BM25 tokenisation and weights, shared by every store (embedded and Qdrant) so lexical
// matching behaves identically whichever index answers.
//
// Terms: Unicode-folded (NFKD, marks stripped), lowercased, split on anything that is not a
// letter or digit (so `billing.tsx` gives `billing`, `tsx`; `state_sync` gives `state`, `sync`),
// camelCase split too (the whole word is kept as well), English stop words dropped, and a light
// plural stemmer (Harman's S-stemmer) so "refunds" matches "refund". A chunk's header (its
// record's title and heading path) weighs more than its body, as a BM25F field would.
import { hashStep, rememberWord, termsOfWordAt, WORD_HASH_SEED } from './word-table.js';

/**
 * Bump whenever tokenize() would give different terms or a document's BM25 weights change: it
 * is part of every chunk's content hash (see record-source.ts), so a record drained again gets
 * its chunks' BM25 vectors recomputed. 2: header terms weigh HEADER_WEIGHT. 3: a record's file
 * path words join its header (chunker.ts's lexicalFields).
 */
export const TOKENIZER_VERSION = 3;

const STOP_WORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have how i if in into is it its ' +
    'may might must no not of on or our should so such than that the their them then there these they this ' +
    'those to was we were what when where which while who why will with would you your'
  ).split(' '),
);

export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  if (word.endsWith('ies') && !word.endsWith('eies') && !word.endsWith('aies')) return `${word.slice(0, -3)}y`;
  if (word.endsWith('es') && !word.endsWith('aes') && !word.endsWith('ees') && !word.endsWith('oes')) {
    // "processes" → "process", "caches" → "cache" is imperfect but symmetric for docs and queries.
    return /(ss|x|ch|sh|zz)es$/.test(word) ? word.slice(0, -2) : word.slice(0, -1);
  }
  if (word.endsWith('s') && !word.endsWith('us') && !word.endsWith('ss') && !word.endsWith('is')) return word.slice(0, -1);
  return word;
}

/** NFKD with combining marks stripped: "café" → "cafe". */
export const fold = (text: string) => text.normalize('NFKD').replace(/\p{M}+/gu, '');

export const isStopWord = (lowercase: string) => STOP_WORDS.has(lowercase);

/** A text's terms as a set, for membership: a Set, or a remembered text's (src/brief/text-terms.ts). */
export interface TermLookup extends Iterable<string> {
  has(term: string): boolean;
}

/** The BM25 terms of a text, in order, with repeats. */
export function tokenize(text: string): string[] {
  return tokenizeFast(text);
}

/** A word's term, or '' when the word is dropped (too short, a stop word). */
function termOf(word: string, hasDigit: boolean): string {
  const lower = word.toLowerCase();
  if (lower.length < 2 && !hasDigit) return '';
  if (STOP_WORDS.has(lower)) return '';
  return hasDigit || lower.length <= 3 ? lower : stem(lower);
}

/**
 * Most text (docs, code, records) is ASCII: scanning it by char code gives the same terms as
 * the Unicode path at a fraction of the cost, which every drain and brief pays. A stretch
 * between ASCII separators that holds any other character goes through the Unicode path on its
 * own: ASCII separators stay separators after NFKD folding, so the result is the same as
 * tokenizing the whole text that way.
 */
function tokenizeFast(text: string): string[] {
  const out: string[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    let c = text.charCodeAt(i);
    if (c < 128 && !isAlnum(c)) {
      i++;
      continue;
    }
    const start = i;
    let hasDigit = false;
    let humps = 0;
    let prevLower = false;
    let other = false;
    let hash = WORD_HASH_SEED;
    while (i < n && ((c = text.charCodeAt(i)) >= 128 || isAlnum(c))) {
      if (c >= 128) other = true;
      else {
        if (c >= 65 && c <= 90 && prevLower) humps++;
        if (c >= 48 && c <= 57) hasDigit = true;
      }
      prevLower = c >= 97 && c <= 122;
      hash = hashStep(hash, c);
      i++;
    }
    if (other) {
      for (const term of tokenizeUnicode(text.slice(start, i))) out.push(term);
      continue;
    }
    let terms = termsOfWordAt(text, start, i, hash);
    if (terms === undefined) {
      const raw = ownCopy(text.slice(start, i));
      terms = asciiWordTerms(raw, hasDigit, humps > 0);
      rememberWord(raw, hash, terms);
    }
    for (let k = 0; k < terms.length; k++) out.push(terms[k]!);
  }
  return out;
}

/**
 * A word the table keeps, as a string of its own. V8 makes a slice of 13 or more characters a view
 * of the whole text it was cut from, and the table (which keeps words for the life of the process)
 * kept every text that first brought a long word alive with it: 2,000 texts of 20,000 characters
 * each with one new identifier held 38 MB after a full GC. The word is ASCII here.
 */
const ownCopy = (word: string) => (word.length < 13 ? word : Buffer.from(word, 'latin1').toString('latin1'));

/** An ASCII word's terms: its own, then its camelCase parts' when it has humps. */
function asciiWordTerms(raw: string, hasDigit: boolean, humps: boolean): readonly string[] {
  const terms: string[] = [];
  const add = (word: string, digit: boolean) => {
    const term = termOf(word, digit);
    if (term) terms.push(term);
  };
  add(raw, hasDigit);
  if (humps) {
    let from = 0;
    for (let j = 1; j < raw.length; j++) {
      const a = raw.charCodeAt(j - 1);
      const b = raw.charCodeAt(j);
      if (a >= 97 && a <= 122 && b >= 65 && b <= 90) {
        const part = raw.slice(from, j);
        add(part, /\d/.test(part));
        from = j;
      }
    }
    const last = raw.slice(from);
    add(last, /\d/.test(last));
  }
  return terms;
}

const isAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

function tokenizeUnicode(text: string): string[] {
  const out: string[] = [];
  for (const raw of fold(text).split(/[^\p{L}\p{N}]+/u)) {
    if (!raw) continue;
    const parts = raw.split(/(?<=\p{Ll})(?=\p{Lu})/u);
    const words = parts.length > 1 ? [raw, ...parts] : [raw];
    for (const w of words) {
      const lower = w.toLowerCase();
      if (lower.length < 2 && !/\d/.test(lower)) continue;
      if (STOP_WORDS.has(lower)) continue;
      out.push(stem(lower));
    }
  }
  return out;
}

export function termFrequencies(terms: readonly string[]): Map<string, number> {
  const tf = new Map<string, number>();
  for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
  return tf;
}

/**
 * BM25's saturating term-frequency part. Document length is normalised against a fixed
 * average (chunks are bounded at ~1,600 characters, ~220 terms), so a store needs no corpus
 * statistics but IDF — which the embedded index computes from its postings and Qdrant from its
 * `idf` modifier.
 */
export const BM25 = { k1: 1.2, b: 0.75, avgDocTerms: 220 } as const;

export function bm25TermWeight(tf: number, docTerms: number): number {
  const norm = BM25.k1 * (1 - BM25.b + (BM25.b * docTerms) / BM25.avgDocTerms);
  return (tf * (BM25.k1 + 1)) / (tf + norm);
}

/** Inverse document frequency as Qdrant computes it for the `idf` modifier. */
export function bm25Idf(docCount: number, docsWithTerm: number): number {
  return Math.log(1 + (docCount - docsWithTerm + 0.5) / (docsWithTerm + 0.5));
}

/** A term's sparse-vector index: 32-bit FNV-1a, kept within Qdrant's uint32 indices. */
export function termIndex(term: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) {
    h ^= term.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export interface SparseVector {
  indices: number[];
  values: number[];
}

function toSparse(weights: Map<number, number>): SparseVector {
  const indices = [...weights.keys()].sort((a, b) => a - b);
  return { indices, values: indices.map((i) => weights.get(i)!) };
}

/**
 * How many times a term of a chunk's header (its record's title and heading path) counts toward
 * its BM25 term frequency, against once in the body: a BM25F-style field weight, so a section
 * whose heading names what the ask is about outranks one that mentions it in passing. Document
 * length stays the count of terms, so a long title is not penalised for the weight. Measured
 * with `npm run eval` on three corpora (docs/eval.md): 2 lifted CometBFT's lexical recall and
 * cost nothing elsewhere; 3 cost multi-part asks.
 */
export const HEADER_WEIGHT = 2;

/**
 * A document's BM25 sparse vector (term index → saturated tf weight). `header` is the part of
 * `text` that is the chunk's title and heading path (see embedHeader in chunker.ts): its terms
 * count HEADER_WEIGHT times. `terms` are tokenize(text) when the caller holds them already (the
 * drain tokenizes a chunk once for its embedder and this).
 */
export function sparseDocumentVector(text: string, header = '', terms: readonly string[] = tokenize(text)): SparseVector {
  const tfs = termFrequencies(terms);
  if (header) for (const term of tokenize(header)) if (tfs.has(term)) tfs.set(term, tfs.get(term)! + HEADER_WEIGHT - 1);
  if (tfs.size >= ORDER_SPAN) return sparseByMap(tfs, terms.length);
  // Each distinct term as one number, its index then its order of first occurrence
  // (index × 2^21 + order < 2^53, exact), so one numeric sort of a typed array orders them by
  // index, and two terms that hash alike sum in the order a Map of indices would add them.
  const keys = new Float64Array(tfs.size);
  const weights = new Float64Array(tfs.size);
  let k = 0;
  for (const [term, tf] of tfs) {
    keys[k] = termIndex(term) * ORDER_SPAN + k;
    weights[k] = bm25TermWeight(tf, terms.length);
    k++;
  }
  keys.sort();
  const indices: number[] = [];
  const values: number[] = [];
  for (let j = 0; j < keys.length; j++) {
    const index = Math.floor(keys[j]! / ORDER_SPAN);
    const weight = weights[keys[j]! - index * ORDER_SPAN]!;
    if (indices.length > 0 && indices[indices.length - 1] === index) values[values.length - 1]! += weight;
    else {
      indices.push(index);
      values.push(weight);
    }
  }
  return { indices, values };
}

/** Distinct terms a document may have for sparseDocumentVector's packed sort (2^21). */
const ORDER_SPAN = 2 ** 21;

/** sparseDocumentVector through a Map of indices, for a text of more distinct terms than the packed sort holds. */
function sparseByMap(tfs: Map<string, number>, docTerms: number): SparseVector {
  const weights = new Map<number, number>();
  for (const [term, tf] of tfs) {
    const i = termIndex(term);
    weights.set(i, (weights.get(i) ?? 0) + bm25TermWeight(tf, docTerms));
  }
  return toSparse(weights);
}

/** A query's sparse vector: each distinct term once, weight 1 (IDF comes from the store). */
export function sparseQueryVector(text: string): SparseVector {
  const weights = new Map<number, number>();
  for (const term of new Set(tokenize(text))) weights.set(termIndex(term), 1);
  return toSparse(weights);
}
