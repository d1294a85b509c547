// The GitHub client against the fake API: the app JWT the fake verifies, the installation token
// cached and refreshed before expiry, Link pagination followed as given, 304 on a matching
// ETag, and rate limits honoured (Retry-After, x-ratelimit-reset, secondary limits) through the
// shared retry policy, with the waits recorded instead of slept.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appJwt, InstallationTokens, REFRESH_BEFORE_MS } from '../../src/connectors/github/app-auth.js';
import { GithubClient } from '../../src/connectors/github/client.js';
import { nextLink } from '../../src/connectors/github/link-header.js';
import { ProviderError } from '../../src/lib/retry.js';
import type { FakeGithub } from '../helpers/fake-github.js';
import { APP_ID, appKeys, fakeGithub, INSTALLATION_ID } from '../helpers/github-app.js';
import { instantSleep } from '../helpers/retry.js';

const keys = appKeys();
let gh: FakeGithub;
let origin: string;
const inst = String(INSTALLATION_ID);

beforeAll(async () => {
  gh = fakeGithub(keys.publicKey);
  origin = await gh.start();
  for (let n = 1; n <= 250; n++)
    gh.pulls.set(n, {
      number: n,
      title: `PR ${n}`,
      body: '',
      state: 'open',
      merged: false,
      updated_at: new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString(),
      head: { ref: `b${n}` },
      base: { ref: 'main' },
      files: n === 1 ? Array.from({ length: 230 }, (_, i) => `src/f${i}.ts`) : ['a.ts'],
    });
});
afterAll(() => gh.stop());
beforeEach(() => {
  gh.requests.length = 0;
  gh.failures.length = 0;
});

const client = (opts: { now?: () => number; waits?: ReturnType<typeof instantSleep> } = {}) =>
  new GithubClient({
    apiUrl: origin,
    appId: APP_ID,
    privateKey: keys.pem,
    ...(opts.now ? { now: opts.now } : {}),
    retry: { sleep: (opts.waits ?? instantSleep()).sleep, random: () => 0 },
  });

describe('GitHub App auth', () => {
  it('signs an RS256 JWT with iat = now − 60, exp within 10 minutes, iss = the app id', () => {
    const now = Date.UTC(2026, 0, 1);
    const [h, c] = appJwt(APP_ID, keys.privateKey, now).split('.');
    expect(JSON.parse(Buffer.from(h!, 'base64url').toString())).toEqual({ alg: 'RS256', typ: 'JWT' });
    const claims = JSON.parse(Buffer.from(c!, 'base64url').toString());
    expect(claims.iss).toBe(APP_ID);
    expect(claims.iat).toBe(now / 1000 - 60);
    expect(claims.exp - claims.iat).toBeLessThanOrEqual(600);
  });

  it('exchanges the JWT (verified by the fake with the public key) once, and reuses the token', async () => {
    const c = client();
    const before = gh.tokensIssued;
    await c.get(inst, 'repos/octo-org/billing/pulls/1');
    await c.get(inst, 'repos/octo-org/billing/pulls/2');
    expect(gh.tokensIssued - before).toBe(1);
  });

  it('a JWT signed with another key is refused by the fake, and the call fails with the status', async () => {
    const other = appKeys();
    const c = new GithubClient({ apiUrl: origin, appId: APP_ID, privateKey: other.pem, retry: { sleep: async () => {} } });
    const err = await c.get(inst, 'repos/octo-org/billing/pulls/1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).upstreamStatus).toBe(401);
  });

  it('refreshes the token before it expires', async () => {
    let now = Date.UTC(2026, 0, 1);
    let exchanges = 0;
    const tokens = new InstallationTokens(
      async () => ({ token: `t${++exchanges}`, expiresAt: now + 3600_000 }),
      () => now,
    );
    expect(await tokens.get('1')).toBe('t1');
    now += 3600_000 - REFRESH_BEFORE_MS - 1000;
    expect(await tokens.get('1')).toBe('t1');
    now += 2000;
    expect(await tokens.get('1')).toBe('t2');
  });
});

describe('pagination and ETags', () => {
  it('reads rel="next" from a Link header', () => {
    expect(nextLink('<https://x/a?page=2>; rel="next", <https://x/a?page=9>; rel="last"')).toBe('https://x/a?page=2');
    expect(nextLink('<https://x/a?page=1>; rel="prev"')).toBeUndefined();
    expect(nextLink(null)).toBeUndefined();
  });

  it('follows next links as given until the last page', async () => {
    const seen: number[] = [];
    await client().eachPage<{ number: number }>(
      inst,
      'repos/octo-org/billing/pulls?state=all&sort=updated&direction=desc&per_page=100',
      async (items) => {
        seen.push(...items.map((p) => p.number));
      },
    );
    expect(seen).toHaveLength(250);
    expect(new Set(seen).size).toBe(250);
    expect(gh.requests.filter((r) => r.path.includes('/pulls?')).map((r) => new URL(r.path, origin).searchParams.get('page'))).toEqual([
      null,
      '2',
      '3',
    ]);
    expect(await client().pullFiles(inst, 'octo-org/billing', 1)).toHaveLength(230);
  });

  it('stops with an error when a next link repeats one it followed (a replayed page), after reading it once', async () => {
    gh.replayLinks = true;
    const pages: number[] = [];
    const walk = client().eachPage<{ number: number }>(
      inst,
      'repos/octo-org/billing/pulls?state=all&sort=updated&direction=desc&per_page=100',
      async (items) => {
        pages.push(items.length);
      },
    );
    await expect(walk).rejects.toThrow(/github repos\/octo-org\/billing\/pulls: the API gave the page cursor "[^"]+" a second time/);
    gh.replayLinks = false;
    expect(pages).toEqual([100, 100]);
    expect(gh.requests.filter((r) => r.path.includes('/pulls?')).map((r) => new URL(r.path, origin).searchParams.get('page'))).toEqual([
      null,
      '2',
    ]);
  });

  it('sends If-None-Match with the stored ETag and reports a 304', async () => {
    const c = client();
    const first = await c.get<unknown[]>(inst, 'repos/octo-org/billing/pulls/7/files');
    const again = await c.get<unknown[]>(inst, 'repos/octo-org/billing/pulls/7/files', { etag: first.etag! });
    expect(first.status).toBe(200);
    expect(again.status).toBe(304);
    expect(gh.requests.at(-1)).toMatchObject({ ifNoneMatch: first.etag, status: 304 });
  });

  it('refuses a next link to another host (it would carry the token there)', async () => {
    const err = await client()
      .get(inst, 'https://elsewhere.example/repos/x')
      .catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/another host/);
  });
});

describe('rate limits', () => {
  it('waits as long as Retry-After says, then completes', async () => {
    const waits = instantSleep();
    gh.failures.push({ status: 429, headers: { 'retry-after': '7' }, message: 'slow down' });
    const res = await client({ waits }).get(inst, 'repos/octo-org/billing/pulls/3');
    expect(res.status).toBe(200);
    expect(waits.waits).toEqual([7000]);
  });

  it('a 403 with x-ratelimit-remaining: 0 waits until x-ratelimit-reset', async () => {
    // A whole second, so reset − now is exact; the fake accepts a JWT issued at it.
    const now = Math.floor(Date.now() / 1000) * 1000;
    const waits = instantSleep();
    gh.failures.push({
      status: 403,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 42) },
      message: 'API rate limit exceeded',
    });
    expect((await client({ now: () => now, waits }).get(inst, 'repos/octo-org/billing/pulls/3')).status).toBe(200);
    expect(waits.waits).toEqual([42_000]);
  });

  it('a 403 secondary limit without headers waits at least 60 s; a plain 403 is not retried', async () => {
    const waits = instantSleep();
    gh.failures.push({ status: 403, message: 'You have exceeded a secondary rate limit' });
    expect((await client({ waits }).get(inst, 'repos/octo-org/billing/pulls/3')).status).toBe(200);
    expect(waits.waits).toEqual([60_000]);
    gh.failures.push({ status: 403, message: 'Resource not accessible by integration' });
    const err = await client()
      .get(inst, 'repos/octo-org/billing/pulls/3')
      .catch((e: unknown) => e);
    expect((err as ProviderError).upstreamStatus).toBe(403);
    expect((err as ProviderError).attempts).toBe(1);
  });

  it('a wait longer than the cap fails now (the sweep retries on its next tick) instead of sleeping through it', async () => {
    const waits = instantSleep();
    gh.failures.push({ status: 429, headers: { 'retry-after': '3600' }, message: 'slow down' });
    const err = await client({ waits })
      .get(inst, 'repos/octo-org/billing/pulls/3')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as Error).message).toMatch(/rate limited for 3600 s/);
    expect(waits.waits).toEqual([]);
  });

  it('a 503 is retried with backoff; an outage past the tries is a ProviderError', async () => {
    const waits = instantSleep();
    gh.failures.push(...Array.from({ length: 4 }, () => ({ status: 503, message: 'unavailable' })));
    const err = await client({ waits })
      .get(inst, 'repos/octo-org/billing/pulls/3')
      .catch((e: unknown) => e);
    expect((err as ProviderError).upstreamStatus).toBe(503);
    expect((err as ProviderError).attempts).toBe(4);
    expect(waits.waits).toHaveLength(3);
  });
});
