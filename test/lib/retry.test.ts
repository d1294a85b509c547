// The one retry policy (src/lib/retry.ts), through every hosted client that uses it — the
// Voyage embedder and reranker, the Anthropic synthesizer and judge — against loopback fakes of
// their APIs: the same status sequences get the same treatment from all four. Sleeps, jitter
// and the clock are injected, so no test waits or reads the wall clock.
import { afterEach, describe, expect, it } from 'vitest';
import { anthropicSynthesizer } from '../../src/providers/anthropic-synthesizer.js';
import { anthropicJudge } from '../../src/providers/anthropic-judge.js';
import { backoffDelay, isRetryable, retryAfterMs, retryPolicy, type RetryOptions } from '../../src/lib/retry.js';
import { voyageEmbedder } from '../../src/providers/voyage-embedder.js';
import { voyageReranker } from '../../src/providers/voyage-reranker.js';
import {
  anthropicText,
  fakeAnthropicMessages,
  fakeVoyageEmbeddings,
  fakeVoyageRerank,
  voyageEmbeddings,
  voyageRanked,
  type FakeProviderApi,
  type Reply,
  type ReplyOrDrop,
  type SeenRequest,
} from '../helpers/fake-providers.js';
import { instantSleep, stalledSleep } from '../helpers/retry.js';

const NOW = Date.parse('2026-03-02T10:00:00Z');
/** Jitter fixed at half the ceiling, so the n-th wait without Retry-After is 50·2ⁿ⁻¹ ms. */
const fixed = (sleep: RetryOptions['sleep']): RetryOptions => ({
  sleep,
  random: () => 0.5,
  now: () => NOW,
  baseDelayMs: 100,
  maxDelayMs: 60_000,
  maxAttempts: 3,
});

interface Client {
  name: string;
  fake(reply: (req: SeenRequest, n: number) => ReplyOrDrop): FakeProviderApi;
  ok: (req: SeenRequest) => Reply;
  error(status: number, headers?: Record<string, string>): Reply;
  /** One call through the real client; `signal` is undefined for a client that takes none. */
  call(origin: string, retry: RetryOptions, signal?: AbortSignal): Promise<unknown>;
  /** Takes an AbortSignal (the brief's ports do; the embedder and the judge do not). */
  abortable: boolean;
}

const voyageErr = (status: number, headers?: Record<string, string>): Reply => ({
  status,
  json: { detail: `voyage says ${status}` },
  ...(headers ? { headers } : {}),
});
const anthropicErr = (status: number, headers?: Record<string, string>): Reply => ({
  status,
  json: { type: 'error', error: { type: 'api_error', message: `anthropic says ${status}` } },
  ...(headers ? { headers } : {}),
});
const ITEMS = [{ id: 'rule_01JRULE', tier: 'must_obey' as const, title: 'Refunds', text: 'Refunds over 500 EUR need a second approver.' }];

const clients: Client[] = [
  {
    name: 'voyage embeddings',
    fake: fakeVoyageEmbeddings,
    ok: voyageEmbeddings,
    error: voyageErr,
    call: (origin, retry) => voyageEmbedder({ apiKey: 'vk', baseUrl: `${origin}/v1`, dimensions: 4, retry }).embed(['t1'], 'query'),
    abortable: false,
  },
  {
    name: 'voyage rerank',
    fake: fakeVoyageRerank,
    ok: voyageRanked,
    error: voyageErr,
    call: (origin, retry, signal) =>
      voyageReranker({ apiKey: 'vk', baseUrl: `${origin}/v1`, retry }).score('refunds', [{ id: 'a', text: 'refunds' }], signal),
    abortable: true,
  },
  {
    name: 'anthropic synthesis',
    fake: fakeAnthropicMessages,
    ok: () => anthropicText('Refunds need a second approver [rule_01JRULE].'),
    error: anthropicErr,
    call: (origin, retry, signal) =>
      anthropicSynthesizer({ apiKey: 'sk', baseURL: origin, timeoutMs: 5_000, retry }).synthesize('refunds', ITEMS, signal),
    abortable: true,
  },
  {
    name: 'anthropic judge',
    fake: fakeAnthropicMessages,
    ok: () => anthropicText('{"violates": false, "reason": "fine"}'),
    error: anthropicErr,
    call: (origin, retry) =>
      anthropicJudge({ apiKey: 'sk', baseURL: origin, model: 'claude-haiku-4-5', timeoutMs: 5_000, retry }).judge({
        policy: 'No secrets.',
        collection: 'sec',
        record: { node_type: 'rule', title: 'Keys', prose: 'Keys live in the vault.', body: {} },
      }),
    abortable: false,
  },
];

const running: FakeProviderApi[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((f) => f.stop()));
});

/** A started fake answering the n-th request with `replies[n]`, the client's success after them. */
async function serve(client: Client, ...replies: ReplyOrDrop[]) {
  const fake = client.fake((req, n) => replies[n] ?? client.ok(req));
  running.push(fake);
  return { fake, origin: await fake.start() };
}

describe.each(clients)('$name through the retry policy', (client) => {
  it('waits what a 429 asks in seconds, then succeeds', async () => {
    const { fake, origin } = await serve(client, client.error(429, { 'retry-after': '7' }));
    const rec = instantSleep();
    await client.call(origin, fixed(rec.sleep));
    expect(fake.statuses).toEqual([429, 200]);
    expect(rec.waits).toEqual([7_000]);
  });

  it("waits until a 503's Retry-After date, then succeeds", async () => {
    const at = new Date(NOW + 30_000).toUTCString(); // e.g. "Mon, 02 Mar 2026 10:00:30 GMT"
    const { fake, origin } = await serve(client, client.error(503, { 'retry-after': at }));
    const rec = instantSleep();
    await client.call(origin, fixed(rec.sleep));
    expect(fake.statuses).toEqual([503, 200]);
    expect(rec.waits).toEqual([30_000]);
  });

  it('caps what the server asks at maxDelayMs', async () => {
    const { fake, origin } = await serve(client, client.error(429, { 'retry-after': '86400' }));
    const rec = instantSleep();
    await client.call(origin, { ...fixed(rec.sleep), maxDelayMs: 2_000 });
    expect(fake.statuses).toEqual([429, 200]);
    expect(rec.waits).toEqual([2_000]);
  });

  it('retries 408, 500 and a dropped connection with growing jittered waits', async () => {
    const { fake, origin } = await serve(client, client.error(408), client.error(500), 'drop');
    const rec = instantSleep();
    await client.call(origin, { ...fixed(rec.sleep), maxAttempts: 4 });
    expect(fake.statuses).toEqual([408, 500, 0, 200]);
    expect(rec.waits).toEqual([50, 100, 200]);
  });

  it('never retries a 400, and says what the server said', async () => {
    const { fake, origin } = await serve(client, client.error(400));
    const rec = instantSleep();
    const err = await client.call(origin, fixed(rec.sleep)).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'ProviderError', code: 'unavailable', upstreamStatus: 400, attempts: 1 });
    expect((err as Error).message).toMatch(/ failed: HTTP 400 \((voyage|anthropic) says 400\)$/);
    expect(fake.statuses).toEqual([400]);
    expect(rec.waits).toEqual([]);
  });

  it('gives up after maxAttempts with one error type naming the provider, the last status and the tries', async () => {
    const { fake, origin } = await serve(client, client.error(502), client.error(503), client.error(500), client.error(500));
    const rec = instantSleep();
    const err = await client.call(origin, fixed(rec.sleep)).catch((e: unknown) => e);
    const provider = client.name.split(' ')[0];
    expect(err).toMatchObject({
      name: 'ProviderError',
      provider,
      upstreamStatus: 500,
      attempts: 3,
      details: { provider, status: 500, attempts: 3 },
    });
    expect((err as Error).message).toMatch(/ failed: HTTP 500 \(.*\) after 3 attempts$/);
    expect(fake.statuses).toEqual([502, 503, 500]);
    expect(rec.waits).toEqual([50, 100]);
  });
});

describe.each(clients.filter((c) => c.abortable))('$name, aborted', (client) => {
  it('stops at once when aborted mid-wait, asking nothing more', async () => {
    const { fake, origin } = await serve(client, client.error(429, { 'retry-after': '30' }));
    const stalled = stalledSleep();
    const controller = new AbortController();
    const pending = client.call(origin, fixed(stalled.sleep), controller.signal);
    expect(await stalled.waiting).toBe(30_000);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(fake.statuses).toEqual([429]);
  });
});

describe('the policy itself', () => {
  it('retries only what another try could fix', () => {
    for (const status of [408, 429, 500, 502, 503, 504, 599]) expect(isRetryable({ status }), String(status)).toBe(true);
    for (const status of [400, 401, 403, 404, 409, 413, 422, 200]) expect(isRetryable({ status }), String(status)).toBe(false);
    expect(isRetryable({ transport: 'network' })).toBe(true);
    expect(isRetryable({ transport: 'timeout' })).toBe(true);
    expect(isRetryable({})).toBe(false);
  });

  it('full jitter: a wait is uniform below a ceiling that doubles up to the cap', () => {
    expect(backoffDelay(1, 100, 10_000, () => 0)).toBe(0);
    expect(backoffDelay(1, 100, 10_000, () => 0.5)).toBe(50);
    expect(backoffDelay(3, 100, 10_000, () => 0.5)).toBe(200);
    expect(backoffDelay(3, 100, 10_000, () => 0.999)).toBeCloseTo(399.6);
    expect(backoffDelay(30, 100, 10_000, () => 0.5)).toBe(5_000);
  });

  it('reads Retry-After as seconds or an HTTP date, and retry-after-ms', () => {
    const headers = (h: Record<string, string>) => (name: string) => h[name];
    expect(retryAfterMs(headers({ 'retry-after': '120' }), NOW)).toBe(120_000);
    expect(retryAfterMs(headers({ 'retry-after': 'Mon, 02 Mar 2026 10:01:00 GMT' }), NOW)).toBe(60_000);
    expect(retryAfterMs(headers({ 'retry-after': 'Monday, 02-Mar-26 10:01:00 GMT' }), NOW)).toBe(60_000); // RFC 850, obsolete but allowed
    expect(retryAfterMs(headers({ 'retry-after': 'Mon Mar  2 10:01:00 2026' }), NOW)).toBe(60_000); // asctime: GMT without saying so
    expect(retryAfterMs(headers({ 'retry-after': 'Mon, 02 Mar 2026 09:00:00 GMT' }), NOW)).toBe(0); // already past
    expect(retryAfterMs(headers({ 'retry-after-ms': '250', 'retry-after': '9' }), NOW)).toBe(250);
    for (const junk of ['-1', '1.5', 'soon', '']) expect(retryAfterMs(headers({ 'retry-after': junk }), NOW), junk).toBeUndefined();
    expect(retryAfterMs(undefined, NOW)).toBeUndefined();
  });

  it('rethrows an error that is not a failed request, untouched and untried again', async () => {
    let calls = 0;
    const bug = new TypeError('a bug, not an outage');
    const policy = retryPolicy('test', { sleep: async () => {} });
    await expect(
      policy.run(
        'op',
        async () => {
          calls++;
          throw bug;
        },
        () => undefined,
      ),
    ).rejects.toBe(bug);
    expect(calls).toBe(1);
  });

  it('asks nothing when the signal has already fired', async () => {
    let calls = 0;
    const policy = retryPolicy('test', {});
    await expect(
      policy.run(
        'op',
        async () => ++calls,
        () => undefined,
        AbortSignal.abort(),
      ),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(calls).toBe(0);
  });

  it('refuses a nonsensical maxAttempts', () => {
    expect(() => retryPolicy('test', {}, { maxAttempts: 0 })).toThrow(RangeError);
    expect(() => retryPolicy('test', {}, { maxAttempts: 1.5 })).toThrow(RangeError);
  });
});
