// The one-time conversion: a wink-embeddings JSON file → the encoded word table (word-table.ts),
// streamed so memory stays near the table's own size (~35 MB) rather than JSON.parse's ~1 GB.
import { JsonSyntaxError } from './json-tokens.js';
import { quantise, encodeTable } from './word-table.js';
import { readWinkJson, type OnWordVector, type WinkHeader } from './wink-json.js';

export class SourceFormatError extends Error {
  constructor(file: string, message: string) {
    super(`${file}: ${message}`);
    this.name = 'SourceFormatError';
  }
}

/** A growable int8 buffer of rows and their scales and ranks, in the order entries arrive. */
class Rows {
  vectors = new Int8Array(0);
  scales = new Float32Array(0);
  ranks = new Int32Array(0);
  words: string[] = [];

  constructor(readonly dims: number) {}

  add(word: string, values: Float64Array, rank: number): void {
    const n = this.words.length;
    if (n === this.ranks.length) this.grow(Math.max(1024, n * 2));
    this.scales[n] = quantise(values, this.dims, this.vectors, n * this.dims);
    this.ranks[n] = rank;
    this.words.push(word);
  }

  private grow(capacity: number): void {
    const vectors = new Int8Array(capacity * this.dims);
    vectors.set(this.vectors);
    const scales = new Float32Array(capacity);
    scales.set(this.scales);
    const ranks = new Int32Array(capacity);
    ranks.set(this.ranks);
    Object.assign(this, { vectors, scales, ranks });
  }
}

/** readWinkJson with a syntax error naming the file. */
async function readNaming(file: string, onVector: OnWordVector): Promise<WinkHeader> {
  try {
    return await readWinkJson(file, onVector);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw new SourceFormatError(file, err.message);
    throw err;
  }
}

/**
 * Converts and checks: every entry must have `dims` values then its L2 norm and its rank, the
 * ranks must be distinct and below `size`, and the header must agree. Words holding a newline
 * (the vocabulary's separator) are dropped. Rows are written in rank order.
 */
export async function convertWinkJson(file: string, source: string): Promise<{ bytes: Buffer; words: number }> {
  const seen: { rows?: Rows } = {}; // the first entry fixes the dimensions
  const header = await readNaming(file, (word, values, length) => {
    if (length < 3)
      throw new SourceFormatError(file, `the vector of "${word}" has ${length} values: too few for a vector, its norm and its rank`);
    const rows = (seen.rows ??= new Rows(length - 2));
    if (length !== rows.dims + 2)
      throw new SourceFormatError(file, `the vector of "${word}" has ${length} values, expected ${rows.dims + 2}`);
    const rank = values[rows.dims + 1]!;
    if (!Number.isInteger(rank) || rank < 0) throw new SourceFormatError(file, `the vector of "${word}" ends in ${rank}, not a rank`);
    if (!word.includes('\n') && word !== '') rows.add(word, values, rank);
  });
  const rows = seen.rows;
  if (!rows || rows.words.length === 0) throw new SourceFormatError(file, 'no word vectors');
  const { dims } = rows;
  if (header.dimensions !== dims || header.l2NormIndex !== dims || header.wordIndex !== dims + 1) {
    throw new SourceFormatError(
      file,
      `the header says ${header.dimensions} dimensions (norm at ${header.l2NormIndex}, rank at ${header.wordIndex}); entries have ${dims}`,
    );
  }
  const n = rows.words.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => rows.ranks[a]! - rows.ranks[b]!);
  for (let i = 0; i < n; i++) {
    const rank = rows.ranks[order[i]!]!;
    if (rank >= header.size || (i > 0 && rank === rows.ranks[order[i - 1]!]))
      throw new SourceFormatError(file, `rank ${rank} repeated or beyond size ${header.size}`);
  }
  const vectors = new Int8Array(n * dims);
  const scales = new Float32Array(n);
  order.forEach((from, to) => {
    vectors.set(rows.vectors.subarray(from * dims, (from + 1) * dims), to * dims);
    scales[to] = rows.scales[from]!;
  });
  const words = order.map((i) => rows.words[i]!);
  return { bytes: encodeTable({ source, dims, count: n, vectors, scales, words }), words: n };
}
