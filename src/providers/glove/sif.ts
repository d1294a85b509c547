// Sentence vectors from word vectors by smooth inverse frequency (Arora, Liang & Ma, "A Simple
// but Tough-to-Beat Baseline for Sentence Embeddings", 2017): the weighted sum of a text's
// word vectors (repeats counted), each word weighted a / (a + p(w)), so "the"-like words
// barely count and rare ones count fully.
//
// The paper then removes the first principal component of a corpus's sentence vectors. That
// would make every vector depend on the corpus (re-embedding all chunks as it grows), and an
// estimate from the table alone (the p(w)-weighted mean direction, projected out) measured
// mixed: SIF alone, section-level recall@10 +.024 on the CometBFT docs' 41 queries and −.034
// on Ledgerly's 58 (MRR within ±.01); in the eval at w = 1, brief recall@10 +.023 (Ledgerly) and
// +.008 (CometBFT), fused recall@10 +.007 and −.017, vector MRR −.028 and ±0. Left out.
import type { WordTable } from './word-table.js';
import { wordRows } from './words.js';

/**
 * p(w) is estimated from rank, not counted: GloVe's vocabulary is ordered by corpus frequency
 * and the package ships no counts, so Zipf's law with exponent 1 gives p(rank r) =
 * 1 / ((r + 1) · H_N), H_N the N-th harmonic number. a = 1e-3 is the paper's usual value: a
 * word at rank ~75 gets weight 0.5, one beyond rank ~7,500 more than 0.9. (a from 1e-2 to
 * 1e-4 moved section-level recall@10 by under .03 on the corpora above; 1e-3 sat between.)
 */
export const SIF_A = 1e-3;

/** Per row: SIF weight × the row's quantisation scale, so embedding multiplies once per word. */
function rowWeights(table: WordTable, a: number): Float32Array {
  let harmonic = 0;
  for (let r = 1; r <= table.count; r++) harmonic += 1 / r;
  const weights = new Float32Array(table.count);
  for (let r = 0; r < table.count; r++) {
    const p = 1 / ((r + 1) * harmonic);
    weights[r] = (a / (a + p)) * table.scales[r]!;
  }
  return weights;
}

/**
 * A function giving a text's unit SIF vector (all zeros when it has no word GloVe knows).
 * Reuses scratch state between calls (synchronous, so calls never interleave).
 */
export function sifEmbedder(table: WordTable, opts: { a?: number } = {}): (text: string) => Float32Array {
  const { dims, vectors, rowOf } = table;
  const weights = rowWeights(table, opts.a ?? SIF_A);
  const rows: number[] = [];
  const sum = new Float64Array(dims);
  return (text) => {
    rows.length = 0;
    wordRows(text, rowOf, rows);
    sum.fill(0);
    for (const row of rows) {
      const w = weights[row]!;
      const base = row * dims;
      for (let d = 0; d < dims; d++) sum[d]! += w * vectors[base + d]!;
    }
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += sum[d]! * sum[d]!;
    const out = new Float32Array(dims);
    if (norm === 0) return out;
    const k = 1 / Math.sqrt(norm);
    for (let d = 0; d < dims; d++) out[d] = sum[d]! * k;
    return out;
  };
}
