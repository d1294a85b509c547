// A team's own embedding model behind an OpenAI-compatible POST /v1/embeddings (Ollama,
// llama.cpp server, LM Studio, vLLM, Text Embeddings Inference, Infinity; docs/models.md): in
// batches, with the shared retry policy (src/lib/retry.ts), vectors checked against the
// dimensions the index holds.
import { createHash } from 'node:crypto';
import { normalised, type Embedder, type InputType } from './embedder.js';
import { ProviderError, retryPolicy, type RetryOptions } from '../lib/retry.js';
import { modelServerFailure, postJson } from './model-server-http.js';

export interface OpenAiCompatibleEmbedderOptions {
  /** The full endpoint, e.g. http://127.0.0.1:11434/v1/embeddings (config/model-servers.ts builds it). */
  url: string;
  model: string;
  /** The length of the model's vectors: part of the identity, and every answer is checked against it. */
  dimensions: number;
  /** Sent as `Authorization: Bearer …` when set. */
  apiKey?: string | undefined;
  /** Texts per request. Default 32. */
  batchSize?: number;
  /** Per request. Default 60 s. */
  timeoutMs?: number;
  /** Put before each query's, or each document's, text. Part of the identity when set. */
  queryPrefix?: string;
  documentPrefix?: string;
  /** Default 4 tries per batch, waits from 500 ms up to 20 s, as for Voyage: the drain can wait. */
  retry?: RetryOptions;
}

/** A vector as a server sends it: a list of numbers, or base64 of little-endian float32s (encoding_format base64). */
function vectorOf(embedding: unknown): ArrayLike<number> | undefined {
  if (Array.isArray(embedding)) return embedding.every((x) => typeof x === 'number' && Number.isFinite(x)) ? embedding : undefined;
  if (typeof embedding !== 'string') return undefined;
  const bytes = Buffer.from(embedding, 'base64');
  if (bytes.length % 4) return undefined;
  return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
}

/**
 * `openai-compatible/<host>/<model>/<dimensions>`, plus a hash of the prefixes when there are any:
 * a new server, model, size or prefix is a new vector space, so every chunk re-embeds under it
 * (the identity is in each chunk's hash and names the index's snapshot or Qdrant collection).
 */
export function openAiCompatibleIdentity(
  opts: Pick<OpenAiCompatibleEmbedderOptions, 'url' | 'model' | 'dimensions' | 'queryPrefix' | 'documentPrefix'>,
): string {
  const base = `openai-compatible/${new URL(opts.url).host}/${opts.model}/${opts.dimensions}`;
  if (!opts.queryPrefix && !opts.documentPrefix) return base;
  const prefixes = createHash('sha256')
    .update(JSON.stringify([opts.queryPrefix ?? '', opts.documentPrefix ?? '']))
    .digest('hex');
  return `${base}/prefixes-${prefixes.slice(0, 8)}`;
}

/**
 * @example openAiCompatibleEmbedder({ url: 'http://127.0.0.1:11434/v1/embeddings', model: 'nomic-embed-text', dimensions: 768 })
 * // POST {url} {model: 'nomic-embed-text', input: ['…', …], encoding_format: 'float'}
 * // → {data: [{index, embedding: number[768]}], model, usage}
 */
export function openAiCompatibleEmbedder(opts: OpenAiCompatibleEmbedderOptions): Embedder {
  const { url, model, dimensions } = opts;
  const batchSize = opts.batchSize ?? 32;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
  if (!Number.isInteger(dimensions) || dimensions < 1) throw new RangeError(`dimensions must be a positive integer, got ${dimensions}`);
  const host = new URL(url).host;
  const provider = `embedding server ${host}`;
  const policy = retryPolicy(provider, { maxAttempts: 4, baseDelayMs: 500, maxDelayMs: 20_000 }, opts.retry);
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const identity = openAiCompatibleIdentity(opts);
  const malformed = (why: string) =>
    new ProviderError({
      provider,
      message: `${provider} answered a malformed embeddings response: ${why}`,
      upstreamStatus: 200,
      attempts: 1,
    });

  /** One batch's vectors in input order, placed by each item's `index` (its position when a server leaves it out). */
  async function embedBatch(input: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const body = { model, input, encoding_format: 'float' };
    const response = await policy.run(
      'embeddings',
      () => postJson({ provider, url, apiKey: opts.apiKey, body, timeoutMs, signal }),
      modelServerFailure,
      signal,
    );
    const data = (response as { data?: unknown }).data;
    if (!Array.isArray(data)) throw malformed('no data list');
    const vectors: (Float32Array | undefined)[] = new Array(input.length);
    data.forEach((item: { index?: unknown; embedding?: unknown }, position) => {
      const index = item?.index ?? position;
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= input.length || vectors[index]) {
        throw malformed(`bad or repeated index ${String(index)} for ${input.length} inputs`);
      }
      const values = vectorOf(item.embedding);
      if (!values) throw malformed(`embedding ${index} is not a list of numbers`);
      if (values.length !== dimensions) {
        throw new ProviderError({
          provider,
          message:
            `${provider} answered ${values.length}-dimensional vectors for ${model}, but the index holds ${dimensions}-dimensional ones ` +
            `(DOCO_EMBED_SERVER_DIMENSIONS): vectors of two sizes are never mixed. If the model changed, set ` +
            `DOCO_EMBED_SERVER_DIMENSIONS=${values.length} and restart: every record is embedded again under the new size`,
          upstreamStatus: 200,
          attempts: 1,
        });
      }
      vectors[index] = normalised(values);
    });
    const missing = vectors.findIndex((x) => x === undefined); // holes count as undefined
    if (missing >= 0) throw malformed(`no embedding for input ${missing} of ${input.length}`);
    return vectors as Float32Array[];
  }

  return {
    identity,
    dimensions,
    async embed(texts: string[], inputType: InputType, signal?: AbortSignal): Promise<Float32Array[]> {
      const prefix = inputType === 'query' ? (opts.queryPrefix ?? '') : (opts.documentPrefix ?? '');
      // Some servers refuse an empty input; a blank text gets one space.
      const input = texts.map((t) => `${prefix}${t}` || ' ');
      const out: Float32Array[] = [];
      // One batch at a time: a backfill should not queue hundreds of requests on one model server.
      for (let i = 0; i < input.length; i += batchSize) out.push(...(await embedBatch(input.slice(i, i + batchSize), signal)));
      return out;
    },
  };
}
