// The local default embedder: deterministic, model-free signed feature hashing of a text's
// terms, adjacent term pairs and character n-grams, so the embedded default needs no key,
// no download and no network, and two runs always give the same vectors.
import { mapYielding } from '../lib/yield-often.js';
import { tokenize } from '../text/tokenize.js';
import type { Embedder, InputType } from './embedder.js';

/**
 * 512 dimensions, from a measurement (scratch script, not kept): 3,118 chunks cut by
 * chunkText from the Markdown and @types/node docs under node_modules; 1,000 queries of 3–8
 * words of one sentence (half a contiguous phrase, half scattered words), a query hitting when
 * a chunk holding all its words ranks in the exact-cosine top 10. "Varied" queries have 40% of
 * their words' endings changed (refund → refunds, configure → configured). 2^20 dimensions
 * stands for no collisions at all.
 *
 * | dims               | 128  | 256  | 384  | 512  | 768  | 1024 | 2^20 |
 * | ---                | ---  | ---  | ---  | ---  | ---  | ---  | ---  |
 * | recall@10 verbatim | .696 | .824 | .880 | .907 | .914 | .920 | .954 |
 * | recall@10 varied   | .635 | .769 | .845 | .872 | .896 | .903 | .945 |
 * | recall@1 verbatim  | .459 | .557 | .639 | .674 | .700 | .716 | .766 |
 *
 * Collisions cost recall quickly below 512 (−2.7 points at 384, −8 at 256) and little above
 * it (+0.7 to +3 points for twice the dimensions), so 512 keeps 92–95% of the collision-free
 * recall@10 at half of 1,024's memory and exact-scan time (~28 ms per query at 100k chunks,
 * scaling the 56 ms measured at 1,024). A chunk averages 79 distinct terms, 122 pairs and 1,045
 * n-grams: at 512, 14% of its terms share a dimension with another of its terms, while the
 * n-grams fill nearly every dimension (they act as a random projection of spelling). The
 * mean |cosine| of random chunk pairs is ~0.15 at every size: common n-grams, not collisions.
 *
 * Weights (term 1, pair 0.3, n-gram 1.5) came from a first run (400 of these queries, 256
 * dimensions, n-grams counted exactly rather than per slot): n-grams lifted varied recall@10
 * from .68 (terms only) to .80 and verbatim from .81 to .85, flat beyond 1.5; pairs above 0.3
 * helped phrase queries a little and hurt scattered ones more.
 */
export const DEFAULT_LOCAL_DIMENSIONS = 512;

// Each family is normalised on its own and then weighted, so a weight is that family's share
// of the vector whatever the text's length (a term yields ~3L n-grams but one term feature).
const WEIGHTS = { term: 1, pair: 0.3, gram: 1.5 } as const;
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

// A feature lands in one dimension with a sign; both are packed into one integer as
// dimension * 2 + (1 when negative), so cached term features add without rehashing.
const slotOf = (hash: number, dimensions: number) => (((hash & 0x7fffffff) % dimensions) << 1) | (hash >>> 31);

function addAt(into: Float32Array, slot: number, weight: number): void {
  into[slot >> 1]! += slot & 1 ? -weight : weight;
}

// Counts are whole numbers, mostly small: a table spares a Math.log per feature.
const SUBLINEAR = Float64Array.from({ length: 64 }, (_, tf) => (tf === 0 ? 0 : 1 + Math.log(tf)));
const sublinear = (tf: number) => (tf < 64 ? SUBLINEAR[tf]! : 1 + Math.log(tf));

/** What a term contributes wherever it occurs: its FNV state (pairs build on it), its own
 * slot, and the slots of the n-grams (3–5 code units) of `<term>`. `text` and `tf` count its
 * occurrences in the text being embedded (a Map per text cost more than the hashing). */
interface TermFeatures {
  state: number;
  slot: number;
  grams: Int32Array;
  text: number;
  tf: number;
}

function termFeatures(term: string, dimensions: number): TermFeatures {
  const state = fnv(term, SEEDS.term);
  const length = term.length + 2;
  const grams: number[] = [];
  for (let start = 0; start + GRAM_MIN <= length; start++) {
    let h: number = SEEDS.gram;
    const stop = Math.min(start + GRAM_MAX, length);
    for (let j = start; j < stop; j++) {
      const code = j === 0 ? BEGIN : j === length - 1 ? END : term.charCodeAt(j - 1);
      h = Math.imul(h ^ code, FNV_PRIME);
      if (j - start + 1 >= GRAM_MIN) grams.push(slotOf(fmix(h), dimensions));
    }
  }
  return { state, slot: slotOf(fmix(state), dimensions), grams: Int32Array.from(grams), text: -1, tf: 0 };
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

/** Adds the unit-length `family` vector to `into` with `weight`, then zeroes `family`. */
function addFamily(into: Float32Array, family: Float32Array, weight: number): void {
  normalise(family);
  for (let i = 0; i < into.length; i++) into[i]! += weight * family[i]!;
  family.fill(0);
}

// Terms follow Zipf's law, so a bounded memo of their features saves most hashing; it is
// dropped whole when full (results never depend on it).
const TERM_CACHE_LIMIT = 50_000;

/**
 * A function giving one text's vector: unit length, or all zeros when the text has no terms.
 * Weights are sublinear in frequency: 1 + ln tf for a term, a pair and an n-gram slot. `terms`
 * are tokenize(text) when the caller holds them already. It reuses scratch state between calls
 * (synchronous, so calls never interleave).
 */
export function hashEmbedder(dimensions: number): (text: string, terms?: readonly string[]) => Float32Array {
  const cache = new Map<string, TermFeatures>();
  const family = new Float32Array(dimensions);
  const gramTf = new Int32Array(dimensions * 2); // by slot: dimension and sign; whole counts, so the table above reads them
  // Pairs counted by slot, and the slots in the order they first occur: a family's dimension sums
  // its slots' weights in float32, so the order of addition is part of the vector's bits.
  const pairTf = new Int32Array(dimensions * 2);
  const pairSlots: number[] = [];
  const features = (term: string) => {
    let f = cache.get(term);
    if (f === undefined) cache.set(term, (f = termFeatures(term, dimensions)));
    return f;
  };
  let texts = 0;
  return (text, terms = tokenize(text)) => {
    // Only ever between texts: a term must map to one feature object throughout a text.
    if (cache.size >= TERM_CACHE_LIMIT) cache.clear();
    const id = texts++;
    const distinct: TermFeatures[] = [];
    let prev: TermFeatures | undefined;
    for (let t = 0; t < terms.length; t++) {
      const f = features(terms[t]!);
      if (f.text !== id) {
        f.text = id;
        f.tf = 0;
        distinct.push(f);
      }
      f.tf += 1;
      // A pair hashes as "a, b" from a's FNV state, re-seeded so it never equals a term.
      if (prev) {
        const pair = slotOf(fmix(Math.imul(prev.state ^ SEEDS.pair, FNV_PRIME) ^ f.state), dimensions);
        if (pairTf[pair] === 0) pairSlots.push(pair);
        pairTf[pair]! += 1;
      }
      prev = f;
    }
    const vector = new Float32Array(dimensions);
    for (const f of distinct) addAt(family, f.slot, sublinear(f.tf));
    addFamily(vector, family, WEIGHTS.term);
    for (const slot of pairSlots) {
      addAt(family, slot, sublinear(pairTf[slot]!));
      pairTf[slot] = 0;
    }
    pairSlots.length = 0;
    addFamily(vector, family, WEIGHTS.pair);
    // N-grams are counted per slot (dimension and sign) before the log, so a common n-gram
    // ("ion") is damped like a common term. Counting per n-gram instead (a hash table) was
    // 20% slower for about a point of recall@10 at 384 dimensions, within noise.
    for (const f of distinct) {
      const grams = f.grams;
      for (let g = 0; g < grams.length; g++) gramTf[grams[g]!]! += f.tf;
    }
    for (let slot = 0; slot < gramTf.length; slot++) {
      if (gramTf[slot]! > 0) addAt(family, slot, sublinear(gramTf[slot]!));
    }
    gramTf.fill(0);
    addFamily(vector, family, WEIGHTS.gram);
    return normalise(vector);
  };
}

/**
 * The local embedder. Symmetric: a query and a document are embedded alike (`inputType` is
 * accepted for the port and ignored). Its identity names the scheme version and dimensions;
 * "v1" pins the weights, n-gram range, hashing and src/text/tokenize.ts's behaviour, so any
 * change to those must bump it (a new identity re-embeds every chunk).
 *
 * @example localEmbedder().identity // → "local-hash-v1/512"
 */
export function localEmbedder(opts: { dimensions?: number } = {}): Embedder {
  const dimensions = opts.dimensions ?? DEFAULT_LOCAL_DIMENSIONS;
  if (!Number.isInteger(dimensions) || dimensions < 1) {
    throw new RangeError(`local embedder dimensions must be a positive integer, got ${dimensions}`);
  }
  const embedOne = hashEmbedder(dimensions);
  return {
    identity: `local-hash-v1/${dimensions}`,
    dimensions,
    async embed(
      texts: string[],
      _inputType: InputType,
      _signal?: AbortSignal,
      terms?: readonly (readonly string[])[],
    ): Promise<Float32Array[]> {
      // A drain's batch is hundreds of texts: in slices, so `doco serve` keeps answering meanwhile.
      return mapYielding(texts, (text, i) => embedOne(text, terms?.[i]));
    },
  };
}
