// A team's own cross-encoder behind a rerank endpoint of the Cohere/Jina shape (llama.cpp
// server, Infinity, and the hosted APIs of that shape; docs/models.md), with the shared retry
// policy (src/lib/retry.ts): short waits that stop the moment the brief's deadline fires.
import type { RerankCandidate, Reranker } from './reranker.js';
import { ProviderError, retryPolicy, type RetryOptions } from '../lib/retry.js';
import { modelServerFailure, postJson } from './model-server-http.js';

export interface RerankServerRerankerOptions {
  /** The full endpoint, e.g. http://127.0.0.1:7997/rerank (config/model-servers.ts builds it). */
  url: string;
  /** Sent as `model` when set. */
  model?: string | undefined;
  apiKey?: string | undefined;
  /** Per request. Default 10 s. */
  timeoutMs?: number;
  /** Default 3 tries, waits from 500 ms up to 5 s, as for Voyage: a brief is waiting. */
  retry?: RetryOptions;
}

const abortError = () => new DOMException('rerank aborted', 'AbortError');
const logistic = (x: number) => 1 / (1 + Math.exp(-x));

/**
 * Scores in input order from the `results` list, which names each document's index (servers sort
 * it by relevance). Some servers answer raw logits: when a score falls outside [0, 1] every score
 * goes through the logistic function, which keeps the order and puts them on the scale the
 * brief's blend expects (src/brief/rerank.ts).
 */
function scoresInInputOrder(provider: string, results: unknown, count: number): number[] {
  const malformed = (why: string) =>
    new ProviderError({ provider, message: `${provider} answered a malformed rerank response: ${why}`, upstreamStatus: 200, attempts: 1 });
  if (!Array.isArray(results)) throw malformed('no results list');
  const scores = new Array<number | undefined>(count).fill(undefined);
  for (const item of results as { index?: unknown; relevance_score?: unknown }[]) {
    const { index, relevance_score: score } = item ?? {};
    if (
      typeof index !== 'number' ||
      !Number.isInteger(index) ||
      index < 0 ||
      index >= count ||
      typeof score !== 'number' ||
      !Number.isFinite(score)
    ) {
      throw malformed(`an item ${JSON.stringify(item).slice(0, 120)}`);
    }
    scores[index] = score;
  }
  const missing = scores.findIndex((s) => s === undefined);
  if (missing >= 0) throw malformed(`no score for document ${missing} of ${count}`);
  const all = scores as number[];
  return all.some((s) => s < 0 || s > 1) ? all.map(logistic) : all;
}

/**
 * @example rerankServerReranker({ url: 'http://127.0.0.1:7997/rerank', model: 'BAAI/bge-reranker-base' }).score(q, candidates)
 * // POST {url} {model, query, documents: [...], top_n: documents.length} → {results: [{index, relevance_score}]}
 */
export function rerankServerReranker(opts: RerankServerRerankerOptions): Reranker {
  const host = new URL(opts.url).host;
  const provider = `rerank server ${host}`;
  const policy = retryPolicy(provider, { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 5_000 }, opts.retry);
  const timeoutMs = opts.timeoutMs ?? 10_000;
  return {
    name: `rerank-server:${host}${opts.model ? `/${opts.model}` : ''}`,
    async score(query: string, candidates: RerankCandidate[], signal?: AbortSignal): Promise<number[]> {
      if (signal?.aborted) throw abortError();
      if (candidates.length === 0) return [];
      // Nothing to rank against: nothing is asked (some servers refuse an empty query).
      if (query.trim() === '') return candidates.map(() => 0);
      const documents = candidates.map((c) => c.text);
      const body = { ...(opts.model ? { model: opts.model } : {}), query, documents, top_n: documents.length };
      const response = await policy.run(
        'rerank',
        () => postJson({ provider, url: opts.url, apiKey: opts.apiKey, body, timeoutMs, signal }),
        modelServerFailure,
        signal,
      );
      return scoresInInputOrder(provider, (response as { results?: unknown }).results, documents.length);
    },
  };
}
