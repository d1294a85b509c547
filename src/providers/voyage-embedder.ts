// The hosted embedder: Voyage AI's embeddings endpoint through the voyageai client, in
// batches, with our own retry policy (the client's retries are off so the policy is testable).
import { VoyageAIClient, VoyageAIError, VoyageAITimeoutError } from 'voyageai';
import { AppError } from '../errors.js';
import type { Embedder, InputType } from './embedder.js';

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
  /** Tries per batch, the first included. Default 4. */
  maxAttempts?: number;
  /** Per request. Default 60 s (the client's own default). */
  fetchTimeoutMs?: number;
  /** The first retry waits about this long, each later one about twice the last. Default 500 ms. */
  backoffBaseMs?: number;
  /** No wait exceeds this, Retry-After included. Default 20 s. */
  backoffMaxMs?: number;
}

/**
 * How long to wait after `attempt` failed tries: "equal jitter", half the exponential ceiling
 * plus a random part of the other half, so retries spread out but never come back at once.
 */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
  return ceiling / 2 + random() * (ceiling / 2);
}

interface Failure {
  retry: boolean;
  /** e.g. "HTTP 429", "timeout", "network error: …" */
  what: string;
  status?: number;
  retryAfterMs?: number;
}

/** Request timeouts, network failures, 408, 429 and 5xx are worth retrying; other statuses
 * (a bad key, a bad request) are not. */
function classify(err: unknown): Failure {
  if (err instanceof VoyageAITimeoutError) return { retry: true, what: 'timeout' };
  if (!(err instanceof VoyageAIError)) throw err;
  const status = err.statusCode;
  if (status === undefined) return { retry: true, what: `network error: ${err.message}` };
  const retry = status === 408 || status === 429 || status >= 500;
  const detail = (err.body as { detail?: unknown } | undefined)?.detail;
  const what = `HTTP ${status}${typeof detail === 'string' ? ` (${detail.slice(0, 200)})` : ''}`;
  const retryAfter = Number(err.rawResponse?.headers?.get('retry-after'));
  return { retry, what, status, ...(retryAfter > 0 ? { retryAfterMs: retryAfter * 1000 } : {}) };
}

/** Scales to unit length (a zero vector stays zero). */
function normalised(values: number[]): Float32Array {
  const v = Float32Array.from(values);
  let sum = 0;
  for (const x of v) sum += x * x;
  if (sum > 0) {
    const scale = 1 / Math.sqrt(sum);
    for (let i = 0; i < v.length; i++) v[i]! *= scale;
  }
  return v;
}

/**
 * Voyage embeddings. Documents and queries are embedded with their `input_type`, which Voyage
 * prefixes differently, so a query must be embedded as a query. Identity
 * `voyage/<model>/<dimensions>`. Failures throw AppError('unavailable') naming the last
 * HTTP status (or timeout / network error) and the number of attempts.
 *
 * @example voyageEmbedder({ apiKey, baseUrl: process.env.VOYAGE_BASE_URL }).embed(['…'], 'query')
 * // POST {baseUrl}/embeddings {input: ['…'], model: 'voyage-3.5', input_type: 'query', output_dimension: 1024}
 */
export function voyageEmbedder(opts: VoyageEmbedderOptions): Embedder {
  const model = opts.model ?? 'voyage-3.5';
  const dimensions = opts.dimensions ?? 1024;
  const batchSize = opts.batchSize ?? 128;
  const maxAttempts = opts.maxAttempts ?? 4;
  const baseMs = opts.backoffBaseMs ?? 500;
  const maxMs = opts.backoffMaxMs ?? 20_000;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError(`maxAttempts must be a positive integer, got ${maxAttempts}`);
  const client = new VoyageAIClient({
    apiKey: opts.apiKey,
    ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {}),
    maxRetries: 0,
    ...(opts.fetchTimeoutMs ? { timeoutInSeconds: opts.fetchTimeoutMs / 1000 } : {}),
  });

  async function requestWithRetries(input: string[], inputType: InputType) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await client.embed({ input, model, inputType, outputDimension: dimensions });
      } catch (err) {
        const failure = classify(err);
        if (!failure.retry || attempt >= maxAttempts) {
          throw new AppError('unavailable', `Voyage embeddings failed: ${failure.what} after ${attempt} attempt(s)`, {
            provider: 'voyage',
            status: failure.status,
            attempts: attempt,
          });
        }
        const delay = Math.min(maxMs, Math.max(backoffDelay(attempt, baseMs, maxMs), failure.retryAfterMs ?? 0));
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  /** One batch's vectors in input order, placed by each item's `index`. */
  async function embedBatch(input: string[], inputType: InputType): Promise<Float32Array[]> {
    const response = await requestWithRetries(input, inputType);
    const vectors: (Float32Array | undefined)[] = new Array(input.length);
    const malformed = (why: string) => new AppError('unavailable', `Voyage embeddings response malformed: ${why}`, { provider: 'voyage' });
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
