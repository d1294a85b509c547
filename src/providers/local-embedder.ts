// The local default embedder: deterministic, model-free signed feature hashing of a text's
// terms, adjacent term pairs and character n-grams, so the embedded default needs no key,
// no download and no network, and two runs always give the same vectors.
import { tokenize } from '../search/tokenize.js';
import type { Embedder, InputType } from './embedder.js';

/**
 * 256 dimensions, measured (scratch script, not kept; 4,000 chunks of 1,600 characters cut
 * from the Markdown under node_modules, 400 queries of 4–8 content words drawn from one
 * sentence of a chunk, exact cosine top-10 over all 4,000):
 *
 * | dims | recall@1 | recall@10 | mean unrelated cosine |
 * | ---  | ---      | ---       | ---                   |
 * | 128  | 0.683    | 0.863     | 0.101                 |
 * | 256  | 0.773    | 0.923     | 0.071                 |
 * | 384  | 0.790    | 0.935     | 0.058                 |
 * | 512  | 0.810    | 0.943     | 0.050                 |
 * | 1024 | 0.825    | 0.950     | 0.036                 |
 * | 2^20 (≈ no collisions) | 0.843 | 0.955 | 0.017    |
 *
 * 256 keeps ~97% of the collision-free recall@10 at a quarter of 1,024's memory and exact-scan
 * time (the dense side is a recall net under BM25 and the reranker, not the final ranking);
 * 128 loses too much. See the report in the commit that added this file.
 */
export const DEFAULT_LOCAL_DIMENSIONS = 256;

// Each family is normalised on its own and then weighted, so a weight is that family's share
// of the vector whatever the text's length (a term yields ~3L n-grams but one term feature).
const WEIGHTS = { term: 1, pair: 0.5, gram: 0.7 } as const;
const SEEDS = { term: 0x811c9dc5, pair: 0x050c5d1f, gram: 0x2b992ddf } as const;
const FNV_PRIME = 0x01000193;
const [GRAM_MIN, GRAM_MAX] = [3, 5];
const BEGIN = 0x3c; // "<": never inside a term (terms are letters and digits only)
const END = 0x3e; // ">"

/** FNV-1a over UTF-16 code units, continuing from state `h` (not finalised). */
function fnv(text: string, h: number): number {
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h;
}

/** MurmurHash3's finaliser: spreads FNV's state so the low bits (dimension) and the top bit
 * (sign) are independent. */
function fmix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Adds `weight` at the hash's dimension with the hash's sign. */
function addHashed(into: Float32Array, hash: number, weight: number): void {
  into[(hash & 0x7fffffff) % into.length]! += hash >>> 31 ? -weight : weight;
}

const sublinear = (tf: number) => 1 + Math.log(tf);

function count<K>(counts: Map<K, number>, key: K, by = 1): void {
  counts.set(key, (counts.get(key) ?? 0) + by);
}

/** The n-gram hashes (3–5 code units) of `<term>`, each passed to `emit`. */
function forEachGram(term: string, emit: (hash: number) => void): void {
  const length = term.length + 2;
  const at = (i: number) => (i === 0 ? BEGIN : i === length - 1 ? END : term.charCodeAt(i - 1));
  for (let start = 0; start + GRAM_MIN <= length; start++) {
    let h: number = SEEDS.gram;
    const stop = Math.min(start + GRAM_MAX, length);
    for (let j = start; j < stop; j++) {
      h = Math.imul(h ^ at(j), FNV_PRIME);
      if (j - start + 1 >= GRAM_MIN) emit(fmix(h));
    }
  }
}

/** Scales `v` to unit length in place (a zero vector stays zero); returns it. */
function normalise(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  if (sum === 0) return v;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < v.length; i++) v[i]! *= scale;
  return v;
}

/** Hashes each feature's sublinear weight into a scratch vector, normalises it, and adds it
 * to `into` with the family's weight. */
function addFamily(into: Float32Array, scratch: Float32Array, counts: Map<number, number>, weight: number): void {
  scratch.fill(0);
  for (const [hash, tf] of counts) addHashed(scratch, hash, sublinear(tf));
  normalise(scratch);
  for (let i = 0; i < into.length; i++) into[i]! += weight * scratch[i]!;
}

/** One text's vector: unit length, or all zeros when the text has no terms. */
export function hashEmbed(text: string, dimensions: number): Float32Array {
  const terms = tokenize(text);
  const termStates = new Map<string, number>();
  const termCounts = new Map<number, number>();
  const pairCounts = new Map<number, number>();
  const gramCounts = new Map<number, number>();
  const termTf = new Map<string, number>();
  let prevState: number | undefined;
  for (const term of terms) {
    let state = termStates.get(term);
    if (state === undefined) termStates.set(term, (state = fnv(term, SEEDS.term)));
    count(termCounts, fmix(state));
    count(termTf, term);
    // A pair hashes as `a b` from a's term state, re-seeded so it never equals a term.
    if (prevState !== undefined) count(pairCounts, fmix(Math.imul(prevState ^ SEEDS.pair, FNV_PRIME) ^ state));
    prevState = state;
  }
  // An n-gram's count is the sum, over the terms containing it, of their frequencies.
  for (const [term, tf] of termTf) forEachGram(term, (hash) => count(gramCounts, hash, tf));

  const vector = new Float32Array(dimensions);
  const scratch = new Float32Array(dimensions);
  addFamily(vector, scratch, termCounts, WEIGHTS.term);
  addFamily(vector, scratch, pairCounts, WEIGHTS.pair);
  addFamily(vector, scratch, gramCounts, WEIGHTS.gram);
  return normalise(vector);
}

/**
 * The local embedder. Symmetric: a query and a document are embedded alike (`inputType` is
 * accepted for the port and ignored). Its identity names the scheme version and dimensions;
 * "v1" pins the weights, n-gram range, hashing and src/search/tokenize.ts's behaviour, so any
 * change to those must bump it (a new identity re-embeds every chunk).
 *
 * @example localEmbedder().identity // → "local-hash-v1/256"
 */
export function localEmbedder(opts: { dimensions?: number } = {}): Embedder {
  const dimensions = opts.dimensions ?? DEFAULT_LOCAL_DIMENSIONS;
  if (!Number.isInteger(dimensions) || dimensions < 1) {
    throw new RangeError(`local embedder dimensions must be a positive integer, got ${dimensions}`);
  }
  return {
    identity: `local-hash-v1/${dimensions}`,
    dimensions,
    async embed(texts: string[], _inputType: InputType): Promise<Float32Array[]> {
      return texts.map((text) => hashEmbed(text, dimensions));
    },
  };
}
