// The hosted reranker: Voyage's rerank endpoint (rerank-2.5 by default) through the `voyageai`
// client, with the shared retry policy (retry.ts): short jittered waits that stop the moment the
// brief's deadline fires. The client's own retries are off: they wait a second or more and
// cannot be cut short.
import { VoyageAIClient } from 'voyageai';
import type { RerankCandidate, Reranker } from './reranker.js';
import { ProviderError, retryPolicy, type RetryOptions } from '../lib/retry.js';
import { voyageFailure } from './voyage-failure.js';

export interface VoyageRerankerOptions {
  apiKey: string;
  /** The API root including its version, as the client expects: default `https://api.voyageai.com/v1`. */
  baseUrl?: string;
  /** Default `rerank-2.5`. */
  model?: string;
  /** Default 3 tries, waits from 500 ms up to 5 s: a brief is waiting. */
  retry?: RetryOptions;
  /** Per-request timeout (default 10 s). */
  timeoutMs?: number;
}

const abortError = () => new DOMException('voyage rerank aborted', 'AbortError');

/** Scores in input order from Voyage's list, which comes sorted by relevance and names each document's index. */
function scoresInInputOrder(data: { index?: number; relevanceScore?: number }[] | undefined, count: number): number[] {
  const malformed = (why: string) =>
    new ProviderError({ provider: 'voyage', message: `voyage rerank answered ${why}`, upstreamStatus: 200, attempts: 1 });
  const scores = new Array<number | undefined>(count).fill(undefined);
  for (const item of data ?? []) {
    const { index, relevanceScore } = item;
    if (index === undefined || !Number.isInteger(index) || index < 0 || index >= count || typeof relevanceScore !== 'number') {
      throw malformed(`a malformed item: ${JSON.stringify(item)}`);
    }
    scores[index] = relevanceScore;
  }
  const missing = scores.findIndex((s) => s === undefined);
  if (missing >= 0) throw malformed(`no score for document ${missing} of ${count}`);
  return scores as number[];
}

export function voyageReranker(opts: VoyageRerankerOptions): Reranker {
  const model = opts.model ?? 'rerank-2.5';
  const timeoutInSeconds = (opts.timeoutMs ?? 10_000) / 1000;
  const policy = retryPolicy('voyage', { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 5_000 }, opts.retry);
  const client = new VoyageAIClient({ apiKey: opts.apiKey, baseUrl: opts.baseUrl, maxRetries: 0 });

  return {
    name: `voyage:${model}`,
    async score(query: string, candidates: RerankCandidate[], signal?: AbortSignal): Promise<number[]> {
      if (signal?.aborted) throw abortError();
      if (candidates.length === 0) return [];
      // Voyage refuses an empty query; there is nothing to rank against, so nothing is asked.
      if (query.trim() === '') return candidates.map(() => 0);
      const documents = candidates.map((c) => c.text);
      const response = await policy.run(
        'rerank',
        () => client.rerank({ query, documents, model }, { abortSignal: signal, timeoutInSeconds, maxRetries: 0 }),
        voyageFailure,
        signal,
      );
      return scoresInInputOrder(response.data, documents.length);
    },
  };
}
