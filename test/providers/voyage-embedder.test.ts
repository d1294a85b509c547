// The Voyage embedder against a loopback fake of Voyage's embeddings endpoint: batching and
// order, the request it sends, and how it fails (the shared retry policy itself is tested in
// retry.test.ts).
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.js';
import { voyageEmbedder, type VoyageEmbedderOptions } from '../../src/providers/voyage-embedder.js';
import { JsonServer, parsed, type JsonAnswer } from '../helpers/json-server.js';
import { noWait } from '../helpers/retry.js';

interface EmbedBody {
  input: string[];
  model: string;
  input_type?: string;
  output_dimension?: number;
}
interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: EmbedBody;
}
/** A reply, or 'hang' to never answer (the client must time out). */
type Reply = JsonAnswer;

/**
 * Stands in for Voyage AI's embeddings API (POST https://api.voyageai.com/v1/embeddings):
 * request {input, model, input_type, output_dimension}; response {object: 'list', data:
 * [{object: 'embedding', embedding, index}], model, usage: {total_tokens}}; errors as
 * {detail}. Its embeddings encode each input's number ("t17" → [1, 17, 0, …], before the
 * client normalises), and it lists them in reverse, so tests can see order is taken from
 * `index`. `replies` queues special answers for the next requests.
 */
class FakeVoyage {
  seen: SeenRequest[] = [];
  replies: Reply[] = [];
  private server = new JsonServer((req) => {
    const seen: SeenRequest = parsed(req);
    this.seen.push(seen);
    return req.method === 'POST' && req.url === '/v1/embeddings'
      ? (this.replies.shift() ?? FakeVoyage.embeddings(seen.body))
      : { status: 404, json: { detail: 'Not found' } };
  });

  static embeddings(body: EmbedBody): Reply {
    const dims = body.output_dimension ?? 1024;
    const data = body.input.map((text, index) => {
      const embedding = new Array<number>(dims).fill(0);
      embedding[0] = 1;
      embedding[1] = Number(text.replace(/\D/g, '') || 0);
      return { object: 'embedding', embedding, index };
    });
    return {
      status: 200,
      json: { object: 'list', data: data.reverse(), model: body.model, usage: { total_tokens: 5 * body.input.length } },
    };
  }
  static error(status: number, detail: string, headers?: Record<string, string>): Reply {
    return { status, json: { detail }, ...(headers ? { headers } : {}) };
  }

  async start(): Promise<string> {
    return `${await this.server.start()}/v1`;
  }
  stop = () => this.server.stop();
}

let fake: FakeVoyage;
let baseUrl: string;
const embedder = (over: Partial<VoyageEmbedderOptions> = {}) => voyageEmbedder({ apiKey: 'test-key', baseUrl, retry: noWait, ...over });
/** The number a fake embedding encodes, read back from the normalised vector. */
const decoded = (v: Float32Array) => Math.round(v[1]! / v[0]!);
const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

beforeAll(async () => {
  fake = new FakeVoyage();
  baseUrl = await fake.start();
});
afterAll(async () => fake.stop());
beforeEach(() => {
  fake.seen = [];
  fake.replies = [];
});

async function failure(promise: Promise<unknown>): Promise<Error> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof Error)) throw new Error('expected the call to fail');
  return err;
}

describe('voyageEmbedder', () => {
  it('names its model and dimensions in its identity', () => {
    expect(embedder().identity).toBe('voyage/voyage-3.5/1024');
    const other = embedder({ model: 'voyage-3-large', dimensions: 256 });
    expect(other.identity).toBe('voyage/voyage-3-large/256');
    expect(other.dimensions).toBe(256);
  });

  it('splits inputs into batches and reassembles them in order by index', async () => {
    const texts = Array.from({ length: 300 }, (_, i) => `t${i}`);
    const vectors = await embedder({ dimensions: 8 }).embed(texts, 'document');
    expect(fake.seen.map((r) => r.body.input.length)).toEqual([128, 128, 44]);
    expect(fake.seen.flatMap((r) => r.body.input)).toEqual(texts);
    expect(vectors.map(decoded)).toEqual(texts.map((_, i) => i));
    for (const v of vectors) {
      expect(v).toHaveLength(8);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
  });

  it('posts to /v1/embeddings with the key, model, input type and output dimension', async () => {
    await embedder().embed(['t1', 't2'], 'document');
    await embedder({ model: 'voyage-3-large', dimensions: 512 }).embed(['t3'], 'query');
    expect(fake.seen).toHaveLength(2);
    const [doc, query] = fake.seen;
    expect(doc).toMatchObject({ method: 'POST', url: '/v1/embeddings' });
    expect(doc!.headers.authorization).toBe('Bearer test-key');
    expect(doc!.body).toEqual({ input: ['t1', 't2'], model: 'voyage-3.5', input_type: 'document', output_dimension: 1024 });
    expect(query!.body).toEqual({ input: ['t3'], model: 'voyage-3-large', input_type: 'query', output_dimension: 512 });
  });

  it('sends nothing for no texts', async () => {
    expect(await embedder().embed([], 'document')).toEqual([]);
    expect(fake.seen).toHaveLength(0);
  });

  it('retries a 429 and then succeeds', async () => {
    fake.replies.push(FakeVoyage.error(429, 'Rate limit exceeded', { 'retry-after': '0' }));
    const vectors = await embedder({ dimensions: 4 }).embed(['t5', 't6'], 'document');
    expect(fake.seen).toHaveLength(2);
    expect(vectors.map(decoded)).toEqual([5, 6]);
  });

  it('retries a request that times out', async () => {
    fake.replies.push('hang');
    const vectors = await embedder({ dimensions: 4, fetchTimeoutMs: 200 }).embed(['t9'], 'query');
    expect(fake.seen).toHaveLength(2);
    expect(vectors.map(decoded)).toEqual([9]);
  });

  it('gives up on a persistent 500 after maxAttempts, naming the status', async () => {
    fake.replies.push(...Array.from({ length: 5 }, () => FakeVoyage.error(500, 'Internal server error')));
    const err = await failure(embedder({ retry: { ...noWait, maxAttempts: 3 } }).embed(['t1'], 'document'));
    expect(fake.seen).toHaveLength(3);
    expect(err.message).toMatch(/HTTP 500/);
    expect(err.message).toMatch(/3 attempt/);
    expect(isAppError(err) && err.code).toBe('unavailable');
    expect(err).toMatchObject({ name: 'ProviderError', provider: 'voyage', upstreamStatus: 500, attempts: 3 });
  });

  it('does not retry a client error, and says what Voyage said', async () => {
    fake.replies.push(FakeVoyage.error(401, 'Provided API key is invalid.'));
    const err = await failure(embedder().embed(['t1'], 'document'));
    expect(fake.seen).toHaveLength(1);
    expect(err.message).toMatch(/HTTP 401 \(Provided API key is invalid\.\)/);
    expect(err.message).not.toContain('test-key');
  });

  it('refuses a response that does not answer every input', async () => {
    const short = FakeVoyage.embeddings({ input: ['t1'], model: 'voyage-3.5', output_dimension: 4 });
    fake.replies.push(short);
    const err = await failure(embedder({ dimensions: 4 }).embed(['t1', 't2'], 'document'));
    expect(err.message).toMatch(/no embedding for input 1/);
  });

  it('refuses embeddings of the wrong dimension', async () => {
    fake.replies.push(FakeVoyage.embeddings({ input: ['t1'], model: 'voyage-3.5', output_dimension: 3 }));
    const err = await failure(embedder({ dimensions: 4 }).embed(['t1'], 'document'));
    expect(err.message).toMatch(/3 values, expected 4/);
  });
});
