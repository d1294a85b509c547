// Retiring a principal's record is how a team says someone (or an agent) is gone: their tokens,
// console sessions and unused sign-in links stop working in the same transaction, and nothing
// new signs in as them, through psql either (sql/workspaces.sql). A person with a write token
// retires Bob's principal over REST; an agent cannot retire anyone's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintSignInCode } from '../../src/auth/console-sessions.js';
import { createToken } from '../../src/auth/tokens.js';
import { ensurePrincipal } from '../../src/auth/workspaces.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { consoleClient, sessionFor } from '../helpers/console.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { expectError, expectNoWrite } from '../helpers/expect-error.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'retired-principal');
  api = makeApp(t);
});
afterAll(async () => t.drop());

const works = async (token: string) => (await api.call('GET', '/api/v1/templates', token)).status;
const retire = (token: string, id: string) => api.call('POST', '/api/v1/changeset', token, { operations: [{ op: 'retire', target: id }] });

/** A principal with a write and a read token, a console session and an unused sign-in code. */
async function member(name: string) {
  const principalId = await ensurePrincipal(t.db, ws.id, name, 'cli');
  const write = await createToken(t.db, { workspaceId: ws.id, principalId, scope: 'write' });
  const read = await createToken(t.db, { workspaceId: ws.id, principalId, scope: 'read' });
  const session = await sessionFor(t, { workspaceId: ws.id, principalId, scope: 'write' });
  const code = await mintSignInCode(t.sql, { workspaceId: ws.id, principalId, scope: 'write' });
  return { principalId, write, read, session, code };
}

/** The console's overview as the session's cookie sees it: 200 signed in, else a redirect to sign-in. */
async function consoleStatus(cookie: string) {
  const res = await api.app.request('/', { headers: { cookie, accept: 'text/html' } });
  return res.status;
}

describe('a retired principal', () => {
  it("loses its tokens, sessions and sign-in links when a person retires its record; others' keep working", async () => {
    const bob = await member('cli:bob');
    const carol = await member('cli:carol');
    expect([await works(bob.write), await works(bob.read), await consoleStatus(bob.session.cookie)]).toEqual([200, 200, 200]);

    const res = await retire(ws.writeToken, bob.principalId);
    expect(res.status, JSON.stringify(res.body)).toBe(201);

    expect([await works(bob.write), await works(bob.read)]).toEqual([401, 401]);
    expect(await consoleStatus(bob.session.cookie)).not.toBe(200);
    const link = await consoleClient(api.app).get(`/sign-in?code=${bob.code}`);
    expect(link.html).not.toContain('cli:bob');
    // Revoked in the rows themselves, so the token page says so and when.
    const rows = await t.sql<
      { revoked: boolean }[]
    >`select revoked_at is not null as revoked from doco.tokens where principal_id = ${bob.principalId}`;
    expect(rows.map((r) => r.revoked)).toEqual([true, true]);

    expect([await works(carol.write), await works(carol.read), await consoleStatus(carol.session.cookie)]).toEqual([200, 200, 200]);
    expect(await works(ws.writeToken)).toBe(200);
  });

  it('signs nobody in afterwards: a token, session or code made for it, even in psql, is refused and nothing is written', async () => {
    const dan = await member('cli:dan');
    expect((await retire(ws.writeToken, dan.principalId)).status).toBe(201);
    const before = await t.sql<
      { n: number }[]
    >`select (select count(*) from doco.tokens) + (select count(*) from doco.console_sessions) + (select count(*) from doco.console_codes) as n`;
    await expect(createToken(t.db, { workspaceId: ws.id, principalId: dan.principalId, scope: 'write' })).rejects.toMatchObject({
      code: 'DC011',
    });
    await expect(sessionFor(t, { workspaceId: ws.id, principalId: dan.principalId, scope: 'read' })).rejects.toMatchObject({
      code: 'DC011',
    });
    await expect(mintSignInCode(t.sql, { workspaceId: ws.id, principalId: dan.principalId, scope: 'read' })).rejects.toMatchObject({
      code: 'DC011',
      message: expect.stringMatching(/is retired/),
    });
    await expect(
      t.sql`insert into doco.tokens (id, workspace_id, principal_id, scope, token_hash) values ('token_psql', ${ws.id}, ${dan.principalId}, 'write', 'x')`,
    ).rejects.toMatchObject({ code: 'DC011' });
    const after = await t.sql<
      { n: number }[]
    >`select (select count(*) from doco.tokens) + (select count(*) from doco.console_sessions) + (select count(*) from doco.console_codes) as n`;
    expect(after[0]!.n).toBe(before[0]!.n);
    // The name is free again: the next principal called so is a new record, and its token works.
    const again = await ensurePrincipal(t.db, ws.id, 'cli:dan', 'cli');
    expect(again).not.toBe(dan.principalId);
    expect(await works(await createToken(t.db, { workspaceId: ws.id, principalId: again, scope: 'read' }))).toBe(200);
  });

  it("an agent cannot propose that a record replaces a person's principal, which approved would lock them out", async () => {
    const gus = await member('cli:gus');
    const agentId = await ensurePrincipal(t.db, ws.id, 'agent:codex@replaces', 'cli');
    const agentToken = await createToken(t.db, { workspaceId: ws.id, principalId: agentId, scope: 'write' });
    const decision = await api.call('POST', '/api/v1/capture', ws.writeToken, {
      collection: 'constitution',
      node_type: 'rule',
      title: 'Some rule',
      prose: 'Some rule, written by a person.',
    });
    expect(decision.status, JSON.stringify(decision.body)).toBe(201);
    for (const [from, to] of [
      [decision.body.node.id, gus.principalId],
      [gus.principalId, decision.body.node.id],
    ] as const) {
      const res = await expectNoWrite(t, () => api.call('POST', '/api/v1/relate', agentToken, { from, to, edge_type: 'replaces' }));
      expect(expectError(res, 403, 'forbidden').message).toMatch(/cannot propose that a record replaces a principal/);
    }
    expect(await works(gus.write)).toBe(200);
  });

  it('refuses a token made while a retire of its principal is still open, once the retire commits', async () => {
    const hal = await member('cli:hal');
    let minted: Promise<unknown> | undefined;
    await t.sql.begin(async (tx) => {
      await tx`update doco.nodes set lifecycle = 'retired' where id = ${hal.principalId}`;
      minted = createToken(t.db, { workspaceId: ws.id, principalId: hal.principalId, scope: 'read' }).then(
        () => 'made',
        (err: { code?: string }) => err.code,
      );
      // The insert waits on the retire's row lock: nothing is decided until it commits.
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    expect(await minted).toBe('DC011');
    const live = await t.sql`select 1 from doco.tokens where principal_id = ${hal.principalId} and revoked_at is null`;
    expect(live).toHaveLength(0);
  });

  it("an agent cannot retire a person's principal to lock them out (403 forbidden, nothing revoked)", async () => {
    const erin = await member('cli:erin');
    const agentId = await ensurePrincipal(t.db, ws.id, 'agent:codex@retire', 'cli');
    const agentToken = await createToken(t.db, { workspaceId: ws.id, principalId: agentId, scope: 'write' });
    const res = await retire(agentToken, erin.principalId);
    expectError(res, 403, 'forbidden');
    expect([await works(erin.write), await consoleStatus(erin.session.cookie)]).toEqual([200, 200]);
  });
});
