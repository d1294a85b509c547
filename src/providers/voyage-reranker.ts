// The hosted reranker: Voyage's rerank endpoint (rerank-2.5 by default) through the `voyageai`
// client, with our own retries so backoff is short, jittered and stops the moment the brief's
// deadline fires.
import { VoyageAIClient, VoyageAIError, VoyageAITimeoutError } from 'voyageai';
import type { RerankCandidate, Reranker } from './reranker.js';

export interface VoyageRerankerOptions {
  apiKey: string;
  /** The API root including its version, as the client expects: default `https://api.voyageai.com/v1`. */
  baseUrl?: string;
  /** Default `rerank-2.5`. */
  model?: string;
  /** Tries in all, the first included (default 3). Only 429, 5xx, timeouts and transport failures are retried. */
  maxAttempts?: number;
  /** Base of the exponential backoff between tries (default 500 ms): base·2ⁿ⁻¹, jittered to 50–100%. */
  backoffMs?: number;
  /** Per-request timeout (default 10 s). */
  timeoutMs?: number;
}

/** A failed rerank, after its retries. `status` is the last HTTP status, if any answered. */
export class VoyageRerankError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'VoyageRerankError';
  }
}

const abortError = () => new DOMException('voyage rerank aborted', 'AbortError');

/** Waits `ms`, or rejects with an AbortError as soon as `signal` fires. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Why a try failed, and whether another try could help. */
function classify(err: unknown): { status: number | undefined; retryable: boolean; what: string } {
  if (err instanceof VoyageAITimeoutError) return { status: undefined, retryable: true, what: 'timed out' };
  if (err instanceof VoyageAIError) {
    const status = err.statusCode;
    if (status === undefined) return { status, retryable: true, what: `failed (${err.message.split('\n')[0]})` };
    return { status, retryable: status === 429 || status >= 500, what: `answered HTTP ${status}` };
  }
  return { status: undefined, retryable: false, what: `failed (${err instanceof Error ? err.message : String(err)})` };
}

/** Scores in input order from Voyage's list, which comes sorted by relevance and names each document's index. */
function scoresInInputOrder(data: { index?: number; relevanceScore?: number }[] | undefined, count: number): number[] {
  const scores = new Array<number | undefined>(count).fill(undefined);
  for (const item of data ?? []) {
    const { index, relevanceScore } = item;
    if (index === undefined || !Number.isInteger(index) || index < 0 || index >= count || typeof relevanceScore !== 'number') {
      throw new VoyageRerankError(`voyage rerank answered a malformed item: ${JSON.stringify(item)}`, 200);
    }
    scores[index] = relevanceScore;
  }
  const missing = scores.findIndex((s) => s === undefined);
  if (missing >= 0) throw new VoyageRerankError(`voyage rerank answered no score for document ${missing} of ${count}`, 200);
  return scores as number[];
}

export function voyageReranker(opts: VoyageRerankerOptions): Reranker {
  const model = opts.model ?? 'rerank-2.5';
  const maxAttempts = Math.max(1, opts.maxAttempts ?? 3);
  const backoffMs = opts.backoffMs ?? 500;
  const timeoutInSeconds = (opts.timeoutMs ?? 10_000) / 1000;
  // maxRetries 0: the client's own retries wait a second or more and cannot be cut short.
  const client = new VoyageAIClient({ apiKey: opts.apiKey, baseUrl: opts.baseUrl, maxRetries: 0 });

  async function once(query: string, documents: string[], signal: AbortSignal | undefined): Promise<number[]> {
    const response = await client.rerank(
      { query, documents, model },
      { abortSignal: signal, timeoutInSeconds, maxRetries: 0 },
    );
    return scoresInInputOrder(response.data, documents.length);
  }

  return {
    name: `voyage:${model}`,
    async score(query: string, candidates: RerankCandidate[], signal?: AbortSignal): Promise<number[]> {
      if (signal?.aborted) throw abortError();
      if (candidates.length === 0) return [];
      // Voyage refuses an empty query; there is nothing to rank against, so nothing is asked.
      if (query.trim() === '') return candidates.map(() => 0);
      const documents = candidates.map((c) => c.text);
      let last: ReturnType<typeof classify> | undefined;
      let lastError: unknown;
      for (let attempt = 1; attempt <= maxAttempts; attempt++) {
        try {
          return await once(query, documents, signal);
        } catch (err) {
          // The client reports an abort as a plain error; the signal says what really happened.
          if (signal?.aborted) throw abortError();
          if (err instanceof VoyageRerankError) throw err;
          last = classify(err);
          lastError = err;
          if (!last.retryable) break;
          if (attempt < maxAttempts) {
            const base = backoffMs * 2 ** (attempt - 1);
            await sleep(base / 2 + Math.random() * (base / 2), signal);
          }
        }
      }
      const tries = maxAttempts === 1 || !last?.retryable ? '' : ` after ${maxAttempts} attempts`;
      throw new VoyageRerankError(`voyage rerank ${last?.what ?? 'failed'}${tries}`, last?.status, { cause: lastError });
    },
  };
}
