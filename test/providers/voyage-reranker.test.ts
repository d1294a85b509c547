// The Voyage reranker against a loopback fake of Voyage's rerank endpoint, through the real
// `voyageai` client: order mapping, auth, our retries, failure naming the status, abort.
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { voyageReranker } from '../../src/providers/voyage-reranker.js';
import { JsonServer, parsed } from '../helpers/json-server.js';
import { noWait, stalledSleep } from '../helpers/retry.js';

interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: { query: string; documents: string[]; model: string };
}
/** A reply, or 'hang' to hold the request open until the client gives up on it. */
type Reply = { status: number; json: unknown } | 'hang';

/**
 * Stands in for Voyage AI's rerank API (POST https://api.voyageai.com/v1/rerank): takes
 * {query, documents, model} and answers {object: 'list', data: [{index, relevance_score}] sorted
 * by descending score, model, usage: {total_tokens}}, or an error body {detail}.
 */
class FakeVoyage {
  seen: SeenRequest[] = [];
  replies: Reply[] = [];
  /** Resolves when a held ('hang') request has arrived, so a test can abort mid-request. */
  hanging: Promise<void> = Promise.resolve();
  private markHanging: () => void = () => {};
  private server = new JsonServer((req) => {
    const seen: SeenRequest = parsed(req);
    this.seen.push(seen);
    if (req.method !== 'POST' || req.url !== '/v1/rerank') return { status: 404, json: { detail: 'Not Found' } };
    const reply = this.replies.shift() ?? FakeVoyage.ranked(seen);
    if (reply === 'hang') this.markHanging();
    return reply;
  });

  /** Replies fully written to the socket. */
  get answered(): number {
    return this.server.answered;
  }
  set answered(n: number) {
    this.server.answered = n;
  }

  expectHang() {
    this.replies.push('hang');
    this.hanging = new Promise((resolve) => (this.markHanging = resolve));
  }

  /** A deterministic ranking: a document's score is its length over the longest, best first. */
  static ranked(req: SeenRequest): Reply {
    const longest = Math.max(...req.body.documents.map((d) => d.length));
    const data = req.body.documents
      .map((d, index) => ({ index, relevance_score: d.length / longest }))
      .sort((a, b) => b.relevance_score - a.relevance_score);
    return { status: 200, json: { object: 'list', data, model: req.body.model, usage: { total_tokens: 42 } } };
  }
  static error(status: number): Reply {
    return { status, json: { detail: status === 429 ? 'Rate limit exceeded' : 'Internal server error' } };
  }

  async start(): Promise<string> {
    return `${await this.server.start()}/v1`;
  }
  stop = () => this.server.stop();
}

let fake: FakeVoyage;
let baseUrl: string;
const docs = (...texts: string[]) => texts.map((text, i) => ({ id: `node_${i}`, text }));

beforeAll(async () => {
  fake = new FakeVoyage();
  baseUrl = await fake.start();
});
beforeEach(() => {
  fake.seen = [];
  fake.answered = 0;
  fake.replies = [];
});
afterAll(async () => {
  await fake.stop();
});

describe('voyageReranker', () => {
  it('posts query, documents and model with the key as a bearer token, and maps scores back to input order', async () => {
    const reranker = voyageReranker({ apiKey: 'vk-test', baseUrl });
    expect(reranker.name).toBe('voyage:rerank-2.5');
    // The fake answers sorted by score (longest first), not in input order.
    const scores = await reranker.score('refund policy', docs('mid size', 'a', 'the longest document'));
    expect(scores).toEqual([8 / 20, 1 / 20, 1]);
    expect(fake.seen).toHaveLength(1);
    const [req] = fake.seen;
    expect(req!.method).toBe('POST');
    expect(req!.url).toBe('/v1/rerank');
    expect(req!.headers.authorization).toBe('Bearer vk-test');
    expect(req!.body).toEqual({ query: 'refund policy', documents: ['mid size', 'a', 'the longest document'], model: 'rerank-2.5' });
  });

  it('sends the model it is given', async () => {
    const reranker = voyageReranker({ apiKey: 'vk-test', baseUrl, model: 'rerank-2.5-lite' });
    await reranker.score('q', docs('x'));
    expect(fake.seen[0]!.body.model).toBe('rerank-2.5-lite');
  });

  it('retries a 429 and a 503, then returns the scores', async () => {
    fake.replies.push(FakeVoyage.error(429), FakeVoyage.error(503));
    const reranker = voyageReranker({ apiKey: 'vk-test', baseUrl, retry: noWait });
    expect(await reranker.score('q', docs('aa', 'a'))).toEqual([1, 0.5]);
    expect(fake.seen).toHaveLength(3);
  });

  it('gives up after maxAttempts and throws naming the last status', async () => {
    fake.replies.push(FakeVoyage.error(500), FakeVoyage.error(500), FakeVoyage.error(503), FakeVoyage.error(503));
    const reranker = voyageReranker({ apiKey: 'vk-test', baseUrl, retry: { ...noWait, maxAttempts: 3 } });
    await expect(reranker.score('q', docs('a'))).rejects.toMatchObject({
      name: 'ProviderError',
      upstreamStatus: 503,
      attempts: 3,
      message: 'voyage rerank failed: HTTP 503 (Internal server error) after 3 attempts',
    });
    expect(fake.seen).toHaveLength(3);
  });

  it('does not retry a 400', async () => {
    fake.replies.push({ status: 400, json: { detail: 'documents must not be empty strings' } });
    const reranker = voyageReranker({ apiKey: 'vk-test', baseUrl, retry: noWait });
    await expect(reranker.score('q', docs(''))).rejects.toMatchObject({
      upstreamStatus: 400,
      attempts: 1,
      message: 'voyage rerank failed: HTTP 400 (documents must not be empty strings)',
    });
    expect(fake.seen).toHaveLength(1);
  });

  it('throws when the answer leaves a document unscored', async () => {
    fake.replies.push({
      status: 200,
      json: { object: 'list', data: [{ index: 1, relevance_score: 0.9 }], model: 'rerank-2.5', usage: { total_tokens: 3 } },
    });
    const reranker = voyageReranker({ apiKey: 'vk-test', baseUrl });
    await expect(reranker.score('q', docs('a', 'b'))).rejects.toThrow('no score for document 0 of 2');
  });

  it('aborts mid-request with an AbortError', async () => {
    fake.expectHang();
    const reranker = voyageReranker({ apiKey: 'vk-test', baseUrl, retry: noWait });
    const controller = new AbortController();
    const pending = reranker.score('q', docs('a'), controller.signal);
    await fake.hanging;
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    // Aborted means no retry.
    expect(fake.seen).toHaveLength(1);
  });

  it('aborts during the backoff between tries', async () => {
    fake.replies.push(FakeVoyage.error(429));
    const stalled = stalledSleep();
    const reranker = voyageReranker({ apiKey: 'vk-test', baseUrl, retry: { sleep: stalled.sleep } });
    const controller = new AbortController();
    const pending = reranker.score('q', docs('a'), controller.signal);
    await stalled.waiting; // the 429 came back and the wait before the next try began
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(fake.seen).toHaveLength(1);
  });

  it('asks nothing for no candidates, a blank query or an already-aborted signal', async () => {
    const reranker = voyageReranker({ apiKey: 'vk-test', baseUrl });
    expect(await reranker.score('q', [])).toEqual([]);
    expect(await reranker.score('  ', docs('a', 'b'))).toEqual([0, 0]);
    await expect(reranker.score('q', docs('a'), AbortSignal.abort())).rejects.toMatchObject({ name: 'AbortError' });
    expect(fake.seen).toHaveLength(0);
  });
});
