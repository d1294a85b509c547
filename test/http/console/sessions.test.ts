// The token page's signed-in browsers: every live console session of the workspace, and End,
// which signs that browser out at once — the only way to end a session a `doco console` link
// opened (it has no token to revoke) but its own sign-out or its 12 hours. A read session sees
// them and cannot end one; another workspace's, a bad id and a missing CSRF token are refused and
// end nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePrincipal } from '../../../src/auth/workspaces.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../../helpers/app.js';
import { sessionFor, signedIn, textOf, type ConsoleClient } from '../../helpers/console.js';
import { createTestDb, type TestDb } from '../../helpers/db.js';

let t: TestDb;
let ws: TestWorkspace;
let other: TestWorkspace;
let app: ReturnType<typeof makeApp>;

beforeAll(async () => {
  t = await createTestDb();
  [ws, other] = [await makeWorkspace(t, 'sessions'), await makeWorkspace(t, 'sessions-other')];
  app = makeApp(t);
});
afterAll(async () => t.drop());

const liveSessions = async () =>
  (
    await t.sql<{ n: number }[]>`select count(*)::int as n from doco.console_sessions where signed_out_at is null and expires_at > now()`
  )[0]!.n;
const hashesOn = (html: string) => [...html.matchAll(/action="\/sessions\/([0-9a-f]{64})\/end"/g)].map((m) => m[1]!);
const signedInNow = async (client: ConsoleClient) => (await client.get('/tokens')).status === 200;

describe('signed-in browsers', () => {
  it("lists the workspace's live sessions, this one marked, and End signs another browser out at once", async () => {
    const admin = await signedIn(t, app.app, ws, 'write');
    const laptop = await signedIn(t, app.app, ws, 'read');
    const page = await admin.get('/tokens');
    const text = textOf(page.html);
    expect(text).toMatch(/2 signed-in browsers/);
    expect(text).toContain('(this browser)');
    expect(text).toContain('a sign-in link');
    const hashes = hashesOn(page.html);
    expect(hashes).toHaveLength(2);
    const [own] = await t.sql<{ id_hash: string }[]>`select id_hash from doco.console_sessions order by created_at limit 1`;
    const theirs = hashes.find((h) => h !== own!.id_hash)!;

    const res = await admin.post(`/sessions/${theirs}/end`, {});
    expect(res.status).toBe(303);
    expect(res.location).toBe('/tokens?ended=yes#sessions');
    expect(await signedInNow(laptop)).toBe(false);
    expect(await signedInNow(admin)).toBe(true);
    const after = await admin.get('/tokens?ended=yes');
    expect(textOf(after.html)).toMatch(/Ended the console session/);
    expect(textOf(after.html)).toMatch(/1 signed-in browser\b/);
  });

  it('ending your own signs you out', async () => {
    const me = await signedIn(t, app.app, ws, 'write');
    const page = await me.get('/tokens');
    const [mine] = await t.sql<
      { id_hash: string }[]
    >`select id_hash from doco.console_sessions where signed_out_at is null order by created_at desc limit 1`;
    expect(hashesOn(page.html)).toContain(mine!.id_hash);
    const res = await me.post(`/sessions/${mine!.id_hash}/end`, {});
    expect(res.status).toBe(303);
    expect(res.location).toBe('/sign-in');
    expect(await signedInNow(me)).toBe(false);
  });

  it("refuses a read session (403), a missing CSRF token, a bad id and another workspace's session, ending nothing", async () => {
    const admin = await signedIn(t, app.app, ws, 'write');
    const reader = await signedIn(t, app.app, ws, 'read');
    const stranger = await signedIn(t, app.app, other, 'write');
    const [theirs] = await t.sql<{ id_hash: string }[]>`
      select id_hash from doco.console_sessions where workspace_id = ${other.id} and signed_out_at is null limit 1`;
    const [readers] = await t.sql<{ id_hash: string }[]>`
      select id_hash from doco.console_sessions where workspace_id = ${ws.id} and scope = 'read' and signed_out_at is null order by created_at desc limit 1`;
    const before = await liveSessions();
    await reader.get('/tokens');
    expect((await reader.post(`/sessions/${readers!.id_hash}/end`, {})).status).toBe(403);
    await admin.get('/tokens');
    expect((await admin.post(`/sessions/${readers!.id_hash}/end`, { _csrf: null })).status).toBe(403);
    await admin.get('/tokens');
    expect((await admin.post(`/sessions/${theirs!.id_hash}/end`, {})).status).toBe(404);
    for (const bad of ['nothex', 'A'.repeat(64), `${readers!.id_hash}0`, '..%2f..%2ftokens']) {
      await admin.get('/tokens');
      const res = await admin.post(`/sessions/${bad}/end`, {});
      expect({ bad, status: res.status }).toEqual({ bad, status: 400 });
    }
    expect(await liveSessions()).toBe(before);
    expect(await signedInNow(reader)).toBe(true);
    expect(await signedInNow(stranger)).toBe(true);
    expect(hashesOn((await admin.get('/tokens')).html)).not.toContain(theirs!.id_hash);
  });

  it("leaves out a retired principal's session", async () => {
    const gone = await ensurePrincipal(t.db, ws.id, 'cli:gone', 'cli');
    await sessionFor(t, { workspaceId: ws.id, principalId: gone, scope: 'read' });
    const admin = await signedIn(t, app.app, ws, 'write');
    expect(textOf((await admin.get('/tokens')).html)).toContain('cli:gone');
    await app.call('POST', '/api/v1/changeset', ws.writeToken, { operations: [{ op: 'retire', target: gone }] });
    expect(textOf((await admin.get('/tokens')).html)).not.toContain('cli:gone');
  });
});
