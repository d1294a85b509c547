// /readyz with the database gone: 503 "database unavailable" in the error shape, and nothing
// of the driver's message (host, port, database name) reaches the unauthenticated caller;
// the cause goes to the server's log instead.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { connect, type DbHandles } from '../../../src/db/connect.js';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { localProviders } from '../../helpers/search.js';
import { noJudge } from '../../../src/providers/judge.js';

let t: TestDb;
const opened: DbHandles[] = [];

/** A loopback port nothing listens on: bound, then released. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** GET /readyz of an app whose database handles point at `url`. */
async function readyz(url: string) {
  const handles = connect(url, { max: 1 });
  opened.push(handles);
  const app = buildApp({ db: handles.db, sql: handles.sql, judge: noJudge, version: 'test', ...localProviders() });
  const res = await app.request('/readyz');
  return { status: res.status, text: await res.text() };
}

beforeAll(async () => {
  t = await createTestDb();
});
afterEach(() => {
  vi.restoreAllMocks();
});
afterAll(async () => {
  await Promise.all(opened.map((h) => h.close()));
  await t.drop();
});

describe('/readyz', () => {
  it('is ok while the database answers', async () => {
    const res = await readyz(t.url);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ ok: true });
  });

  it('is 503 "database unavailable" when nothing listens at the database address, and names neither host nor port', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const port = await deadPort();
    const res = await readyz(`postgres://doco:secret-password@127.0.0.1:${port}/doco_readyz`);
    expect(res.status).toBe(503);
    expect(JSON.parse(res.text)).toEqual({ error: { code: 'unavailable', message: 'database unavailable' } });
    for (const leak of [String(port), '127.0.0.1', 'ECONNREFUSED', 'doco_readyz', 'secret-password']) expect(res.text).not.toContain(leak);
    // The operator still learns why, from the log.
    expect(logged.mock.calls.flat().join(' ')).toMatch(/\/readyz: database unavailable: .*ECONNREFUSED/);
  });

  it("does not pass on the server's own error either (a database that does not exist)", async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const missing = t.url.replace(/\/[^/]+$/, '/doco_no_such_database');
    const res = await readyz(missing);
    expect(res.status).toBe(503);
    expect(JSON.parse(res.text)).toEqual({ error: { code: 'unavailable', message: 'database unavailable' } });
    expect(res.text).not.toContain('doco_no_such_database');
    expect(logged.mock.calls.flat().join(' ')).toContain('doco_no_such_database');
  });
});
