// The hosted embedder: Voyage AI's embeddings endpoint through the voyageai client, in
// batches, with the shared retry policy (retry.ts; the client's own retries are off).
import { VoyageAIClient } from 'voyageai';
import { normalised, type Embedder, type InputType } from './embedder.js';
import { ProviderError, retryPolicy, type RetryOptions } from '../lib/retry.js';
import { voyageFailure } from './voyage-failure.js';

export interface VoyageEmbedderOptions {
  apiKey: string;
  /** e.g. "http://127.0.0.1:P/v1": the client posts to `${baseUrl}/embeddings`. */
  baseUrl?: string;
  /** Default "voyage-3.5". */
  model?: string;
  /** Sent as output_dimension. Default 1,024. */
  dimensions?: number;
  /** Texts per request. Default 128, Voyage's documented maximum list length. */
  batchSize?: number;
  /** Per request. Default 60 s (the client's own default). */
  fetchTimeoutMs?: number;
  /** Default 4 tries per batch, waits from 500 ms up to 20 s: the drain runs in the background and can wait. */
  retry?: RetryOptions;
}

/**
 * Voyage embeddings. Documents and queries are embedded with their `input_type`, which Voyage
 * prefixes differently, so a query must be embedded as a query. Identity
 * `voyage/<model>/<dimensions>`. Failures throw ProviderError naming the last HTTP status (or
 * timeout / network error) and the number of attempts.
 *
 * @example voyageEmbedder({ apiKey, baseUrl: process.env.VOYAGE_BASE_URL }).embed(['…'], 'query')
 * // POST {baseUrl}/embeddings {input: ['…'], model: 'voyage-3.5', input_type: 'query', output_dimension: 1024}
 */
export function voyageEmbedder(opts: VoyageEmbedderOptions): Embedder {
  const model = opts.model ?? 'voyage-3.5';
  const dimensions = opts.dimensions ?? 1024;
  const batchSize = opts.batchSize ?? 128;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
  const policy = retryPolicy('voyage', { maxAttempts: 4, baseDelayMs: 500, maxDelayMs: 20_000 }, opts.retry);
  const client = new VoyageAIClient({
    apiKey: opts.apiKey,
    ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {}),
    maxRetries: 0,
    ...(opts.fetchTimeoutMs ? { timeoutInSeconds: opts.fetchTimeoutMs / 1000 } : {}),
  });

  const request = (input: string[], inputType: InputType) =>
    policy.run('embeddings', () => client.embed({ input, model, inputType, outputDimension: dimensions }), voyageFailure);

  /** One batch's vectors in input order, placed by each item's `index`. */
  async function embedBatch(input: string[], inputType: InputType): Promise<Float32Array[]> {
    const response = await request(input, inputType);
    const vectors: (Float32Array | undefined)[] = new Array(input.length);
    const malformed = (why: string) =>
      new ProviderError({
        provider: 'voyage',
        message: `voyage embeddings answered a malformed response: ${why}`,
        upstreamStatus: 200,
        attempts: 1,
      });
    for (const item of response.data ?? []) {
      const { index, embedding } = item;
      if (index === undefined || !Number.isInteger(index) || index < 0 || index >= input.length || vectors[index]) {
        throw malformed(`bad or repeated index ${String(index)} for ${input.length} inputs`);
      }
      if (!embedding || embedding.length !== dimensions) {
        throw malformed(`embedding ${index} has ${embedding?.length ?? 0} values, expected ${dimensions}`);
      }
      vectors[index] = normalised(embedding);
    }
    const missing = vectors.findIndex((v) => v === undefined); // holes count as undefined
    if (missing >= 0) throw malformed(`no embedding for input ${missing}`);
    return vectors as Float32Array[];
  }

  return {
    identity: `voyage/${model}/${dimensions}`,
    dimensions,
    async embed(texts: string[], inputType: InputType): Promise<Float32Array[]> {
      const out: Float32Array[] = [];
      // One batch at a time: a workspace's backfill should not trip Voyage's rate limits.
      for (let i = 0; i < texts.length; i += batchSize) {
        out.push(...(await embedBatch(texts.slice(i, i + batchSize), inputType)));
      }
      return out;
    },
  };
}
