// The rerank-server reranker against a loopback fake of a team's cross-encoder behind a rerank
// endpoint of the Cohere/Jina shape (llama.cpp server, Infinity; test/helpers/fake-model-server.ts,
// which scores by word overlap): the request, scores in input order, raw logits, retries, abort.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rerankEndpoint } from '../../src/config/model-servers.js';
import { rerankServerReranker, type RerankServerRerankerOptions } from '../../src/providers/rerank-server-reranker.js';
import { FakeModelServer, serverError } from '../helpers/fake-model-server.js';
import { instantSleep, noWait } from '../helpers/retry.js';

const fake = new FakeModelServer();
let origin: string;

const reranker = (opts: Partial<RerankServerRerankerOptions> = {}) =>
  rerankServerReranker({ url: `${origin}/rerank`, model: 'bge-reranker-base', retry: noWait, ...opts });

const candidates = [
  { id: 'a', text: 'Deploys go out on Wednesdays.' },
  { id: 'b', text: 'Refunds go back to the card that paid.' },
  { id: 'c', text: 'Refunds over $500 need the owner approval.' },
];

beforeAll(async () => {
  origin = await fake.start();
});
afterAll(() => fake.stop());
beforeEach(() => {
  fake.seen.length = 0;
  fake.replies.length = 0;
});

describe('the rerank-server reranker', () => {
  it('posts {model, query, documents, top_n} with the key as a Bearer token and returns scores in input order', async () => {
    const scores = await reranker({ apiKey: 'sk-rerank' }).score('refunds to the card', candidates);
    expect(fake.seen[0]!.url).toBe('/rerank');
    expect(fake.seen[0]!.headers.authorization).toBe('Bearer sk-rerank');
    expect(fake.seen[0]!.body).toEqual({
      model: 'bge-reranker-base',
      query: 'refunds to the card',
      documents: candidates.map((c) => c.text),
      top_n: 3,
    });
    // The fake lists results best first; each score is placed by its index.
    expect(scores).toEqual([0, 1, 0.5]);
  });

  it('leaves the model out when none is named, and says which server it is', async () => {
    const r = reranker({ model: undefined });
    await r.score('refunds', candidates);
    expect(fake.seen[0]!.body).not.toHaveProperty('model');
    expect(r.name).toBe(`rerank-server:${new URL(origin).host}`);
    expect(reranker().name).toBe(`rerank-server:${new URL(origin).host}/bge-reranker-base`);
  });

  it('reads raw logits through the logistic function, keeping their order', async () => {
    fake.replies.push({
      status: 200,
      json: {
        results: [
          { index: 2, relevance_score: 3.2 },
          { index: 0, relevance_score: -1.5 },
          { index: 1, relevance_score: -7 },
        ],
      },
    });
    const scores = await reranker().score('refunds', candidates);
    expect(scores.every((s) => s > 0 && s < 1)).toBe(true);
    expect(scores[2]).toBeGreaterThan(scores[0]!);
    expect(scores[0]).toBeGreaterThan(scores[1]!);
  });

  it('retries a 503 and then succeeds', async () => {
    fake.replies.push(serverError(503));
    const { waits, sleep } = instantSleep();
    const scores = await reranker({ retry: { sleep } }).score('refunds to the card', candidates);
    expect(scores).toEqual([0, 1, 0.5]);
    expect(fake.seen).toHaveLength(2);
    expect(waits).toHaveLength(1);
  });

  it('gives up after its bound, naming the server and the status', async () => {
    fake.replies.push(serverError(502, 'bad gateway'), serverError(502, 'bad gateway'));
    await expect(reranker({ retry: { ...noWait, maxAttempts: 2 } }).score('refunds', candidates)).rejects.toThrow(
      `rerank server ${new URL(origin).host} rerank failed: HTTP 502 (bad gateway) after 2 attempts`,
    );
  });

  it('refuses a result list that misses a document', async () => {
    fake.replies.push({ status: 200, json: { results: [{ index: 0, relevance_score: 0.5 }] } });
    await expect(reranker().score('refunds', candidates)).rejects.toThrow(/malformed rerank response: no score for document 1 of 3/);
  });

  it('asks nothing for an empty query or no candidates, and stops when aborted', async () => {
    expect(await reranker().score('  ', candidates)).toEqual([0, 0, 0]);
    expect(await reranker().score('refunds', [])).toEqual([]);
    expect(fake.seen).toHaveLength(0);
    fake.replies.push('hang');
    const controller = new AbortController();
    const pending = reranker().score('refunds', candidates, controller.signal);
    await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('takes a full URL or a base URL', () => {
    expect(rerankEndpoint('http://127.0.0.1:7997')).toBe('http://127.0.0.1:7997/rerank');
    expect(rerankEndpoint('http://127.0.0.1:8080/v1/')).toBe('http://127.0.0.1:8080/v1/rerank');
    expect(rerankEndpoint('https://api.jina.ai/v1/rerank')).toBe('https://api.jina.ai/v1/rerank');
  });
});
