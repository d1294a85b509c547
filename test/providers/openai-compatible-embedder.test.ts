// The OpenAI-compatible embedder against a loopback fake of a team's model server (Ollama,
// vLLM, TEI… at POST /v1/embeddings; test/helpers/fake-model-server.ts): the request it sends,
// batching and order, its identity, retries, a server that went away, and vectors of another size.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.js';
import { openAiCompatibleEmbedder, type OpenAiCompatibleEmbedderOptions } from '../../src/providers/openai-compatible-embedder.js';
import { FakeModelServer, letterCounts, serverError } from '../helpers/fake-model-server.js';
import { instantSleep, noWait } from '../helpers/retry.js';

const fake = new FakeModelServer();
let origin: string;
let url: string;

const embedder = (opts: Partial<OpenAiCompatibleEmbedderOptions> = {}) =>
  openAiCompatibleEmbedder({ url, model: 'nomic-embed-text', dimensions: 26, retry: noWait, ...opts });

const unit = (v: number[]) => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};

beforeAll(async () => {
  origin = await fake.start();
  url = `${origin}/v1/embeddings`;
});
afterAll(() => fake.stop());
beforeEach(() => {
  fake.seen.length = 0;
  fake.replies.length = 0;
  fake.dimensions = 26;
});

describe('the OpenAI-compatible embedder', () => {
  it('posts {model, input, encoding_format} with the key as a Bearer token and returns unit vectors in input order', async () => {
    const texts = ['refunds go to the card', 'abc', 'zzz'];
    const vectors = await embedder({ apiKey: 'sk-local' }).embed(texts, 'document');
    expect(fake.seen).toHaveLength(1);
    expect(fake.seen[0]!.url).toBe('/v1/embeddings');
    expect(fake.seen[0]!.headers.authorization).toBe('Bearer sk-local');
    expect(fake.seen[0]!.body).toEqual({ model: 'nomic-embed-text', input: texts, encoding_format: 'float' });
    // The fake lists its answers in reverse: each vector is placed by its index.
    texts.forEach((t, i) => {
      const expected = unit(letterCounts(t, 26));
      expect(Array.from(vectors[i]!).map((x) => Number(x.toFixed(5)))).toEqual(expected.map((x) => Number(x.toFixed(5))));
    });
  });

  it('sends no Authorization header without a key', async () => {
    await embedder().embed(['a'], 'query');
    expect(fake.seen[0]!.headers.authorization).toBeUndefined();
  });

  it('sends batches no larger than batchSize, in order', async () => {
    const texts = Array.from({ length: 11 }, (_, i) => `text ${'x'.repeat(i + 1)}`);
    const vectors = await embedder({ batchSize: 4 }).embed(texts, 'document');
    expect(fake.seen.map((r) => r.body.input.length)).toEqual([4, 4, 3]);
    expect(fake.seen.flatMap((r) => r.body.input)).toEqual(texts);
    expect(vectors.map((v) => v[23]! > 0)).toEqual(texts.map(() => true)); // every text has an x
    expect(vectors).toHaveLength(11);
  });

  it('puts the prefixes before queries and documents, and they change the identity', async () => {
    const plain = embedder();
    const prefixed = embedder({ queryPrefix: 'search_query: ', documentPrefix: 'search_document: ' });
    await prefixed.embed(['refunds'], 'query');
    await prefixed.embed(['refunds'], 'document');
    expect(fake.seen.map((r) => r.body.input)).toEqual([['search_query: refunds'], ['search_document: refunds']]);
    expect(plain.identity).toBe(`openai-compatible/${new URL(origin).host}/nomic-embed-text/26`);
    expect(prefixed.identity).toMatch(new RegExp(`^${plain.identity}/prefixes-[0-9a-f]{8}$`));
  });

  it('names the server, the model and the size in its identity', () => {
    const a = embedder();
    expect(a.dimensions).toBe(26);
    expect(embedder({ model: 'mxbai-embed-large' }).identity).not.toBe(a.identity);
    expect(embedder({ dimensions: 27 }).identity).not.toBe(a.identity);
    expect(embedder({ url: 'http://10.0.0.7:11434/v1/embeddings' }).identity).toBe('openai-compatible/10.0.0.7:11434/nomic-embed-text/26');
  });

  it('retries a 503 and then succeeds, waiting between tries', async () => {
    fake.replies.push(serverError(503), serverError(429, 'busy'));
    const { waits, sleep } = instantSleep();
    const vectors = await embedder({ retry: { sleep } }).embed(['hello'], 'query');
    expect(vectors).toHaveLength(1);
    expect(fake.seen).toHaveLength(3);
    expect(waits).toHaveLength(2);
  });

  it('gives up after its bound with a ProviderError naming the status and the tries', async () => {
    fake.replies.push(...Array.from({ length: 5 }, () => serverError(500, 'out of memory')));
    const err = await embedder({ retry: { ...noWait, maxAttempts: 3 } })
      .embed(['hello'], 'query')
      .catch((e: unknown) => e);
    expect(fake.seen).toHaveLength(3);
    expect(isAppError(err) && err.code).toBe('unavailable');
    expect((err as Error).message).toBe(
      `embedding server ${new URL(origin).host} embeddings failed: HTTP 500 (out of memory) after 3 attempts`,
    );
  });

  it('does not retry a 4xx: the request is wrong (an unknown model)', async () => {
    fake.replies.push({ status: 404, json: { error: 'model "nomic-embed-txt" not found, try pulling it first' } });
    const err = await embedder({ model: 'nomic-embed-txt' })
      .embed(['hello'], 'query')
      .catch((e: unknown) => e);
    expect(fake.seen).toHaveLength(1);
    expect((err as Error).message).toMatch(/embeddings failed: HTTP 404 \(model "nomic-embed-txt" not found, try pulling it first\)$/);
  });

  it('a server that is down: network errors retried up to the bound, then a clear error', async () => {
    const gone = new FakeModelServer();
    const gonePort = new URL(await gone.start()).port;
    await gone.stop();
    const err = await embedder({ url: `http://127.0.0.1:${gonePort}/v1/embeddings`, retry: { ...noWait, maxAttempts: 2 } })
      .embed(['hello'], 'document')
      .catch((e: unknown) => e);
    expect((err as Error).message).toBe(
      `embedding server 127.0.0.1:${gonePort} embeddings failed: network error (ECONNREFUSED) after 2 attempts`,
    );
  });

  it('a request that gets no answer times out, and is retried', async () => {
    fake.replies.push('hang');
    const vectors = await embedder({ timeoutMs: 200 }).embed(['hello'], 'query');
    expect(vectors).toHaveLength(1);
    expect(fake.seen).toHaveLength(2);
  });

  it('stops at once when the caller aborts (a brief past its deadline)', async () => {
    fake.replies.push('hang');
    const controller = new AbortController();
    const pending = embedder().embed(['hello'], 'query', controller.signal);
    await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(fake.seen).toHaveLength(1);
  });

  it('refuses vectors of another size than the index holds, saying what to set, and does not retry', async () => {
    fake.dimensions = 20; // another model now answers behind the same name
    const err = await embedder()
      .embed(['hello'], 'document')
      .catch((e: unknown) => e);
    expect(fake.seen).toHaveLength(1);
    expect(isAppError(err) && err.code).toBe('unavailable');
    expect((err as Error).message).toBe(
      `embedding server ${new URL(origin).host} answered 20-dimensional vectors for nomic-embed-text, but the index holds 26-dimensional ones ` +
        '(DOCO_EMBED_SERVER_DIMENSIONS): vectors of two sizes are never mixed. If the model changed, set DOCO_EMBED_SERVER_DIMENSIONS=20 ' +
        'and restart: every record is embedded again under the new size',
    );
  });

  it('refuses a malformed answer: a missing input, a repeated index, no data', async () => {
    for (const json of [
      { data: [{ index: 0, embedding: letterCounts('a', 26) }] },
      {
        data: [
          { index: 0, embedding: letterCounts('a', 26) },
          { index: 0, embedding: letterCounts('b', 26) },
        ],
      },
      { embeddings: [] },
    ]) {
      fake.replies.push({ status: 200, json });
      await expect(embedder().embed(['a', 'b'], 'document')).rejects.toThrow(/answered a malformed embeddings response/);
    }
  });

  it('reads base64 float32 vectors too (encoding_format base64)', async () => {
    const values = letterCounts('abc', 26);
    const b64 = Buffer.from(new Float32Array(values).buffer).toString('base64');
    fake.replies.push({ status: 200, json: { data: [{ index: 0, embedding: b64 }] } });
    const [v] = await embedder().embed(['abc'], 'document');
    expect(v![0]).toBeCloseTo(1 / Math.sqrt(3), 5);
  });
});
