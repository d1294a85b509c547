// A docs pack pull is not a way into the server's network (docs/docs-pack.md, "Where Doco fetches
// from"). Against real listeners: a pack service on a second loopback address (127.0.0.2) is refused
// by default and pulled once listed; a name is judged by the addresses it resolves to; a listed
// host redirecting to a refused one is not followed; a metadata address is refused; last_error
// never holds a byte of a response; and a target refused by policy, one where nothing listens
// and one that never answers leave the very same last_error, so a token holder maps no network.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parsePackHosts } from '../../src/config/pack-hosts.js';
import { pullDocsPack } from '../../src/ingest/packs/pull.js';
import { findPack, registerPack } from '../../src/ingest/packs/registry.js';
import { makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { markdown, startPackService, type PackService } from '../helpers/pack-service.js';

let t: TestDb;
let ws: TestWorkspace;
let second: PackService;
const closers: (() => Promise<void>)[] = [];

const pack = (code: string) => ({ format: 1, code, files: [{ path: 'docs/guide.md', content: markdown('Guide', ['Setup', 'Releases']) }] });
const listed = (text: string) => parsePackHosts(text).hosts;
const pull = (code: string, packHosts = listed(''), timeoutMs?: number) =>
  pullDocsPack({ sql: t.sql, db: t.db, packHosts }, ws.id, code, timeoutMs ? { timeoutMs } : {});
const lastError = async (code: string) => (await findPack(t.sql, ws.id, code))?.last_error;

/** A plain HTTP listener answering every request with `handler`; closed after the test. */
async function listener(
  hostname: string,
  handler: http.RequestListener,
): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server = http.createServer((req, res) => {
    hits++;
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, hostname, resolve));
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  closers.push(close);
  return { url: `http://${hostname}:${(server.address() as AddressInfo).port}`, hits: () => hits, close };
}

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'ssrf');
  second = await startPackService(pack('second'), '127.0.0.2');
});
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});
afterAll(async () => {
  await second.close();
  await t.drop();
});

describe('where a pack may be fetched from', () => {
  it('refuses a service on a second loopback address by default, without connecting, and pulls it once listed', async () => {
    await registerPack(t.sql, ws.id, 'second', second.baseUrl);
    const refused = await pull('second');
    expect(refused).toMatchObject({
      outcome: 'failed',
      detail: expect.stringMatching(/^refused by the host policy: 127\.0\.0\.2 is at 127\.0\.0\.2, a loopback address/),
    });
    expect(second.fetches).toBe(0);
    expect(await lastError('second')).toMatch(
      /^could not fetch http:\/\/127\.0\.0\.2:\d+\/api\/v1\/system\/docs\/pack \(unreachable, too slow, or refused/,
    );
    // 127.0.0.1 listed does not open 127.0.0.2; the address, a range holding it, or the address with its port do.
    expect((await pull('second', listed('127.0.0.1'))).outcome).toBe('failed');
    expect((await pull('second', listed(`127.0.0.2:${Number(new URL(second.baseUrl).port) + 1}`))).outcome).toBe('failed');
    expect(second.fetches).toBe(0);
    expect((await pull('second', listed('127.0.0.2'))).outcome).toBe('ingested');
    expect((await pull('second', listed('127.0.0.0/8'))).outcome).toBe('unchanged');
    expect((await pull('second', listed(`127.0.0.2:${new URL(second.baseUrl).port}`))).outcome).toBe('unchanged');
    expect(second.fetches).toBe(3);
    expect(await lastError('second')).toBeNull();
  });

  it('judges a name by the addresses it resolves to, at the fetch: localhost is refused unless its name or address is listed', async () => {
    const svc = await listener('127.0.0.1', (_req, res) => res.end(JSON.stringify(pack('named'))));
    // Registered by name (the registration route would refuse localhost outright: see test/http/rest/docs.test.ts).
    await registerPack(t.sql, ws.id, 'named', svc.url.replace('127.0.0.1', 'localhost'));
    expect(await pull('named')).toMatchObject({
      outcome: 'failed',
      detail: expect.stringMatching(/^refused by the host policy: localhost is at .*, a loopback address/),
    });
    expect(svc.hits()).toBe(0);
    expect((await pull('named', listed('localhost'))).outcome).toBe('ingested');
    expect(svc.hits()).toBe(1);
  });

  it('refuses a metadata address, and a name never opens one', async () => {
    await registerPack(t.sql, ws.id, 'metadata', 'http://169.254.169.254');
    for (const hosts of ['', 'metadata.google.internal', '*.internal'])
      expect(await pull('metadata', listed(hosts))).toMatchObject({
        outcome: 'failed',
        detail: expect.stringMatching(/^refused by the host policy: 169\.254\.169\.254 is at 169\.254\.169\.254, a cloud metadata address/),
      });
    await registerPack(t.sql, ws.id, 'metadata', 'http://[::ffff:169.254.169.254]');
    expect(await pull('metadata')).toMatchObject({ outcome: 'failed', detail: expect.stringMatching(/cloud metadata address/) });
    await registerPack(t.sql, ws.id, 'metadata', 'http://[fd00:ec2::254]');
    expect(await pull('metadata')).toMatchObject({ outcome: 'failed', detail: expect.stringMatching(/cloud metadata address/) });
  });

  it('does not follow a redirect, so a listed host redirecting to a refused one reaches nothing', async () => {
    const target = `${second.baseUrl}/api/v1/system/docs/pack`;
    const before = second.fetches;
    const redirecting = await listener('127.0.0.1', (_req, res) => res.writeHead(302, { location: target }).end());
    await registerPack(t.sql, ws.id, 'second', redirecting.url);
    const result = await pull('second', listed('127.0.0.1'));
    expect(result.outcome).toBe('failed');
    expect(redirecting.hits()).toBe(1);
    expect(second.fetches).toBe(before);
    const error = await lastError('second');
    expect(error).toMatch(/answered HTTP 302: redirects are not followed, register the base URL the pack is served under$/);
    expect(error).not.toContain('127.0.0.2');
    // Not followed even where the target is listed too: the registered base URL is the one fetched.
    expect((await pull('second', listed('127.0.0.1, 127.0.0.2'))).outcome).toBe('failed');
    expect(second.fetches).toBe(before);
  });
});

describe('what last_error holds', () => {
  const MARK = 'XYZZY-internal-secret';
  const answers: [string, (res: http.ServerResponse) => void][] = [
    [
      'an error status with a body and a reason phrase',
      (res) => res.writeHead(500, MARK, { 'content-type': 'text/plain' }).end(`${MARK} stack trace`),
    ],
    ['a redirect', (res) => res.writeHead(301, { location: `http://${MARK}.example/` }).end(MARK)],
    ['text that is not JSON', (res) => res.end(`${MARK}:x:0:0:root:/root:/bin/bash`)],
    ['a JSON string', (res) => res.end(JSON.stringify(`${MARK} from the metadata service`))],
    ['a JSON array', (res) => res.end(JSON.stringify([MARK]))],
    ['an object with the wrong format', (res) => res.end(JSON.stringify({ format: MARK, code: 'leaky', files: [] }))],
    ['an object whose files are not a list', (res) => res.end(JSON.stringify({ format: 1, code: 'leaky', files: MARK }))],
    ['a file that is not an object', (res) => res.end(JSON.stringify({ format: 1, code: 'leaky', files: [MARK] }))],
    ['a path that is not a string', (res) => res.end(JSON.stringify({ format: 1, code: 'leaky', files: [{ path: [MARK], content: '' }] }))],
    ['a code that is not a pack code', (res) => res.end(JSON.stringify({ format: 1, code: MARK, files: [] }))],
    ['a code that is not a string', (res) => res.end(JSON.stringify({ format: 1, code: { MARK }, files: [] }))],
    ['an openapi that is not an object', (res) => res.end(JSON.stringify({ format: 1, code: 'leaky', files: [], openapi: MARK }))],
    ['the pack of another code', (res) => res.end(JSON.stringify({ format: 1, code: 'xyzzy-internal-secret', files: [] }))],
  ];

  it.each(answers)('never holds a byte of the response: %s', async (_what, answer) => {
    const svc = await listener('127.0.0.1', (_req, res) => answer(res));
    await registerPack(t.sql, ws.id, 'leaky', svc.url);
    const result = await pull('leaky', listed('127.0.0.1'));
    expect(result.outcome).toBe('failed');
    expect(svc.hits()).toBe(1);
    const error = (await lastError('leaky'))!;
    expect(error).toMatch(new RegExp(`^${svc.url}/api/v1/system/docs/pack `));
    expect(error.toLowerCase()).not.toContain('xyzzy');
    expect(result.outcome === 'failed' && result.detail.toLowerCase()).not.toContain('xyzzy');
  });

  it('is the same for a target refused by policy, one where nothing listens and one that never answers', async () => {
    // One address and port in three states: open but silent, refused by policy, closed.
    let connections = 0;
    const silent = net.createServer((socket) => {
      connections++;
      // Reads (so it sees the client leave) and never writes.
      socket.resume().on('error', () => {});
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.2', resolve));
    const base = `http://127.0.0.2:${(silent.address() as AddressInfo).port}`;
    await registerPack(t.sql, ws.id, 'probe', base);
    const errors: Record<string, string | null | undefined> = {};
    const details: Record<string, string> = {};
    const record = async (state: string, packHosts = listed('127.0.0.2'), timeoutMs?: number) => {
      const result = await pull('probe', packHosts, timeoutMs);
      expect(result.outcome).toBe('failed');
      errors[state] = await lastError('probe');
      details[state] = result.outcome === 'failed' ? result.detail : '';
    };

    await record('refused by policy', listed(''));
    expect(connections).toBe(0);
    await record('filtered (never answers)', listed('127.0.0.2'), 300);
    expect(connections).toBe(1);
    await new Promise<void>((resolve) => silent.close(() => resolve()));
    await record('closed (nothing listens)');

    expect(new Set(Object.values(errors)).size).toBe(1);
    expect(errors['closed (nothing listens)']).toBe(
      `could not fetch ${base}/api/v1/system/docs/pack (unreachable, too slow, or refused by the host policy: the server's log says which)`,
    );
    // The specific reason is for the server's log.
    expect(details).toEqual({
      'refused by policy': expect.stringMatching(/^refused by the host policy: /),
      'filtered (never answers)': 'no answer within 300 ms',
      'closed (nothing listens)': 'ECONNREFUSED',
    });
  });
});
