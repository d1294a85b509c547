// `doco token list` and `doco token revoke` through the built command, on this file's database
// (DATABASE_URL, no server up): the console's token page for an operator with no browser. A
// leaked token is revoked by its value, with what it minted when asked; mistakes are one line and
// change nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/auth/tokens.js';
import { ensurePrincipal, ensureWorkspace } from '../../src/auth/workspaces.js';
import { makeApp } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { runDoco } from '../helpers/cli.js';
import { cleanUp, DocoHome } from '../helpers/doco-process.js';

let t: TestDb;
let home: DocoHome;
let api: ReturnType<typeof makeApp>;
let wsId: string;
let otherWsId: string;

beforeAll(async () => {
  [t, home] = await Promise.all([createTestDb(), DocoHome.make()]);
  api = makeApp(t);
  wsId = await ensureWorkspace(t.sql, 'default');
  otherWsId = await ensureWorkspace(t.sql, 'other');
}, 60_000);
afterAll(async () => {
  await t?.drop();
  await cleanUp();
});

const doco = (...args: string[]) => home.run(args, { DATABASE_URL: t.url }, 60_000);
const docoWithStdin = (stdin: string, ...args: string[]) =>
  runDoco(args, { env: home.env({ DATABASE_URL: t.url }), stdin, timeoutMs: 60_000 });
const works = async (token: string) => (await api.call('GET', '/api/v1/templates', token)).status;
const liveCount = async () => (await t.sql<{ n: number }[]>`select count(*)::int as n from doco.tokens where revoked_at is null`)[0]!.n;

/** A write token of a person who stays. */
async function personToken() {
  const id = await ensurePrincipal(t.db, wsId, 'cli:admin', 'cli');
  return createToken(t.db, { workspaceId: wsId, principalId: id, scope: 'write' });
}

/** A person's token and the two an agent's install minted with it. */
async function installed(name: string, workspaceId = wsId) {
  const person = await ensurePrincipal(t.db, workspaceId, name, 'cli');
  const agent = await ensurePrincipal(t.db, workspaceId, `agent:codex@${name.slice(4)}`, 'cli');
  const token = await createToken(t.db, { workspaceId, principalId: person, scope: 'write', label: `${name}'s` });
  const [row] = await t.sql<{ id: string }[]>`select id from doco.tokens where label = ${`${name}'s`}`;
  const hook = await createToken(t.db, { workspaceId, principalId: agent, scope: 'read', mintedBy: row!.id });
  const [hookRow] = await t.sql<{ id: string }[]>`select id from doco.tokens where minted_by = ${row!.id}`;
  const mcp = await createToken(t.db, { workspaceId, principalId: agent, scope: 'write', mintedBy: hookRow!.id });
  return { token, id: row!.id, hook, mcp };
}

describe('doco token list', () => {
  it("lists the workspace's tokens, live first, with whose, what minted them and what they minted", async () => {
    const ana = await installed('cli:ana');
    const res = await doco('token', 'list');
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^default: 3 live, 0 revoked/);
    const anaLine = lines.find((l) => l.startsWith(ana.id))!;
    expect(anaLine).toMatch(/write\s+cli:ana\s+"cli:ana's"/);
    expect(anaLine).toContain('minted 2 live');
    expect(lines.some((l) => l.includes(`minted by ${ana.id}`))).toBe(true);
    const json = await doco('token', 'list', '--json');
    const listed = JSON.parse(json.stdout) as { live: number; tokens: { id: string; principal: string }[] };
    expect(listed.live).toBe(3);
    expect(listed.tokens.map((t) => t.principal).sort()).toEqual(['agent:codex@ana', 'agent:codex@ana', 'cli:ana']);
    expect(json.stdout).not.toContain(ana.token);
  });

  it('prints a label or a name holding escape sequences or line breaks on one plain line', async () => {
    const person = await ensurePrincipal(t.db, wsId, 'cli:zed', 'cli');
    await createToken(t.db, { workspaceId: wsId, principalId: person, scope: 'read', label: 'a\u001b[31mred\u009b2J\nMust obey: x' });
    const res = await doco('token', 'list');
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).not.toMatch(/[\u001b\u009b]/);
    expect(res.stdout).toContain('"a[31mred2J Must obey: x"');
    expect(res.stdout.split('\n').filter((l) => l.includes('Must obey'))).toHaveLength(1);
  });
});

describe('doco token revoke', () => {
  it('revokes a leaked token named by its value, and with --with-minted every token minted from it', async () => {
    const bob = await installed('cli:bob');
    const res = await doco('token', 'revoke', bob.token, '--with-minted');
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe(`revoked ${bob.id} and the 2 live tokens it minted\n`);
    expect([await works(bob.token), await works(bob.hook), await works(bob.mcp)]).toEqual([401, 401, 401]);
  });

  it('reads the value from stdin with -, so a leaked token need not be on a command line', async () => {
    const gil = await installed('cli:gil');
    const res = await docoWithStdin(`${gil.token}\n`, 'token', 'revoke', '-');
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe(`revoked ${gil.id}\n`);
    expect(await works(gil.token)).toBe(401);
    const bad = await docoWithStdin('not a token', 'token', 'revoke', '-');
    expect({ code: bad.code, stderr: bad.stderr.trim() }).toEqual({ code: 2, stderr: 'doco: stdin must hold one token value (doco_…)' });
  });

  it("revokes a token named by its id alone, leaving what it minted (an install's agents keep working)", async () => {
    const cy = await installed('cli:cy');
    const res = await doco('token', 'revoke', cy.id);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe(`revoked ${cy.id}\n`);
    expect([await works(cy.token), await works(cy.hook), await works(cy.mcp)]).toEqual([401, 200, 200]);
  });

  it("finds a token's value in any workspace, but an id only in --workspace's", async () => {
    const dee = await installed('cli:dee', otherWsId);
    const before = await liveCount();
    const wrong = await doco('token', 'revoke', dee.id);
    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.stderr)).toEqual({ error: { code: 'not_found', message: `token ${dee.id} does not exist in this workspace` } });
    expect(await liveCount()).toBe(before);
    const named = await doco('token', 'revoke', dee.id, '--workspace', 'other', '--json');
    expect(named.code, named.stderr).toBe(0);
    expect(JSON.parse(named.stdout)).toEqual({ revoked: dee.id, itself: true, with_minted: 0 });
    expect(await works(dee.token)).toBe(401);
  });

  it('revokes what a token minted after the token itself was revoked (its principal retired)', async () => {
    const fay = await installed('cli:fay');
    const [{ principal_id: fayId }] = (await t.sql<
      { principal_id: string }[]
    >`select principal_id from doco.tokens where id = ${fay.id}`) as unknown as [{ principal_id: string }];
    expect(
      (await api.call('POST', '/api/v1/changeset', await personToken(), { operations: [{ op: 'retire', target: fayId }] })).status,
    ).toBe(201);
    expect([await works(fay.token), await works(fay.hook), await works(fay.mcp)]).toEqual([401, 200, 200]);
    const plain = await doco('token', 'revoke', fay.id);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toMatch(/is already revoked: revoke it with the 2 live tokens it minted/);
    const res = await doco('token', 'revoke', fay.id, '--with-minted');
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe(`revoked the 2 live tokens ${fay.id} minted (it was revoked already)\n`);
    expect([await works(fay.hook), await works(fay.mcp)]).toEqual([401, 401]);
  });

  it('refuses mistakes in one line and changes nothing', async () => {
    const eve = await installed('cli:eve');
    await doco('token', 'revoke', eve.id);
    const before = await liveCount();
    const cases: [string[], number, RegExp][] = [
      [['token', 'revoke', eve.id], 1, /"code":"conflict".*is already revoked/],
      [['token', 'revoke', 'doco_notatoken'], 1, /"code":"not_found".*no token has that value/],
      [['token', 'revoke'], 2, /^doco: name one token: its id/],
      [['token', 'revoke', eve.id, eve.token], 2, /^doco: name one token/],
      [['token', 'revoke', eve.id, '--with-minted=yes'], 2, /^doco: /],
      [['token', 'list', '--page', '0'], 2, /^doco: --page must be a whole number from 1$/],
      [['token', 'list', '--workspace', 'nope'], 2, /^doco: no workspace "nope" here/],
      [['token', 'list', '--workspace', '../x'], 2, /^doco: --workspace must be a slug/],
      [['token', 'rotate'], 2, /^doco: usage: doco token create/],
    ];
    for (const [args, code, says] of cases) {
      const res = await doco(...args);
      expect({ args, code: res.code, lines: res.stderr.trim().split('\n').length }).toEqual({ args, code, lines: 1 });
      expect(res.stderr.trim()).toMatch(says);
      expect(res.stdout).toBe('');
    }
    expect(await liveCount()).toBe(before);
  });
});
