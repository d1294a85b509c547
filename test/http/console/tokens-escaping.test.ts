// Tokens (list, create shown once, revoke; write only; another workspace's are 404), every value
// escaped on every page (prose `<script>` and `"><img onerror>` render as text), and
// `doco console` printing the one-time URL alone on stdout.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDoco } from '../../helpers/cli.js';
import { createToken } from '../../../src/auth/tokens.js';
import { consoleClient, signedIn, textOf } from '../../helpers/console.js';
import { agentCapture, startConsoleFixture, type ConsoleFixture } from '../../helpers/console-seed.js';

let t: ConsoleFixture['t'];
let ws: ConsoleFixture['ws'];
let other: ConsoleFixture['other'];
let app: ConsoleFixture['app'];
let client: ConsoleFixture['client'];

beforeAll(async () => {
  ({ t, ws, other, app, client } = await startConsoleFixture('console-tokens'));
});
afterAll(async () => t.drop());

const tokenCount = async () => (await t.sql<{ n: number }[]>`select count(*)::int as n from doco.tokens`)[0]!.n;

describe('tokens', () => {
  it('lists label, scope, principal and last use', async () => {
    await app.app.request('/api/v1/templates', { headers: { authorization: `Bearer ${ws.readToken}` } });
    const page = await client.get('/tokens');
    const text = textOf(page.html);
    expect(text).toContain(`tester-${ws.slug}`);
    expect(text).toMatch(/read/);
    expect(text).toContain('just now'); // the read token was used a moment ago
    expect(text).toContain('never');
  });
  it('creates a token shown once, which then works; the list never shows it again', async () => {
    await client.get('/tokens');
    const res = await client.post('/tokens', { label: 'CI bot', scope: 'read', principal: 'agent:search-bot@ci' });
    expect(res.status).toBe(200);
    const token = res.html.match(/id="new-token">\s*(doco_[A-Za-z0-9_-]+)/)![1]!;
    const api = await app.app.request('/api/v1/templates', { headers: { authorization: `Bearer ${token}` } });
    expect(api.status).toBe(200);
    const again = await client.get('/tokens');
    expect(again.html).not.toContain(token);
    expect(textOf(again.html)).toContain('CI bot');
    expect(textOf(again.html)).toContain('agent:search-bot@ci');
  });
  it("refuses a principal name the rule refuses with 400 validation_failed, minting nothing; spaces around a name are the form's", async () => {
    await client.get('/tokens');
    const before = await tokenCount();
    for (const principal of ['agent:', ' agent:  ', 'agent:  codex', 'cli:a\u0007b', `agent:${'x'.repeat(300)}`]) {
      const res = await client.post('/tokens', { scope: 'read', principal }, { accept: 'application/json' });
      expect({ principal, status: res.status }).toEqual({ principal, status: 400 });
      expect(JSON.parse(res.html)).toMatchObject({
        error: { code: 'validation_failed', message: expect.stringMatching(/^token is invalid: principal must/) },
      });
      await client.get('/tokens');
    }
    expect(await tokenCount()).toBe(before);
    const spaced = await client.post('/tokens', { scope: 'read', principal: '  agent:codex@shop  ' });
    expect(spaced.status).toBe(200);
    expect(textOf((await client.get('/tokens')).html)).toContain('agent:codex@shop');
  });
  it('revokes a token, which then stops working', async () => {
    await client.get('/tokens');
    const made = await client.post('/tokens', { label: 'short-lived', scope: 'write' });
    const token = made.html.match(/id="new-token">\s*(doco_[A-Za-z0-9_-]+)/)![1]!;
    const [row] = await t.sql<{ id: string }[]>`select id from doco.tokens where label = 'short-lived'`;
    const res = await client.post(`/tokens/${row!.id}/revoke`, {});
    expect(res.status).toBe(303);
    expect((await app.app.request('/api/v1/templates', { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    expect(textOf((await client.get(res.location!)).html)).toContain(`Revoked ${row!.id}`);
    expect((await client.post(`/tokens/${row!.id}/revoke`, {})).status).toBe(409);
  });
  it('a read session cannot create or revoke (403); CSRF, bad input, a foreign token are refused', async () => {
    const reader = await signedIn(t, app.app, ws, 'read');
    await reader.get('/tokens');
    const before = await tokenCount();
    expect((await reader.post('/tokens', { scope: 'write' })).status).toBe(403);
    const [mine] = await t.sql<{ id: string }[]>`select id from doco.tokens where workspace_id = ${ws.id} and revoked_at is null limit 1`;
    expect((await reader.post(`/tokens/${mine!.id}/revoke`, {})).status).toBe(403);
    await client.get('/tokens');
    expect((await client.post('/tokens', { _csrf: 'x', scope: 'read' })).status).toBe(403);
    expect((await client.post('/tokens', { scope: 'admin' })).status).toBe(400);
    expect((await client.post('/tokens', { scope: 'read', label: 'x'.repeat(201) })).status).toBe(400);
    const [theirs] = await t.sql<{ id: string }[]>`select id from doco.tokens where workspace_id = ${other.id} limit 1`;
    expect((await client.post(`/tokens/${theirs!.id}/revoke`, {})).status).toBe(404);
    expect((await client.post('/tokens/token_bad/revoke', {})).status).toBe(400);
    expect(await tokenCount()).toBe(before);
    const [still] = await t.sql<{ revoked_at: Date | null }[]>`select revoked_at from doco.tokens where id = ${theirs!.id}`;
    expect(still!.revoked_at).toBeNull();
  });
  it('records which token minted each, and revokes a token with what it minted only when asked', async () => {
    const x = await createToken(t.db, { workspaceId: ws.id, principalId: ws.principalId, scope: 'write', label: 'leaked X' });
    const idOf = async (where: { label?: string; principal?: string }) =>
      (
        await t.sql<{ id: string }[]>`
          select t.id from doco.tokens t join doco.nodes p on p.id = t.principal_id
           where t.workspace_id = ${ws.id} and (${where.label ?? null}::text is null or t.label = ${where.label ?? null})
             and (${where.principal ?? null}::text is null or p.title = ${where.principal ?? null})`
      ).map((r) => r.id);
    const [xId] = await idOf({ label: 'leaked X' });
    // A console session made from X mints Z; Z mints an agent's pair; X mints another agent's pair.
    const session = consoleClient(app.app);
    await session.get('/sign-in');
    expect((await session.post('/sign-in', { token: x })).status).toBe(303);
    await session.get('/tokens');
    const made = await session.post('/tokens', { label: 'Z from X', scope: 'write' });
    const z = made.html.match(/id="new-token">\s*(doco_[A-Za-z0-9_-]+)/)![1]!;
    const mint = (token: string, checkout: string) =>
      app.app.request('/api/v1/hooks/tokens', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ agent: 'claude-code', checkout, hook_token: true }),
      });
    const fromZ = (await (await mint(z, 'one')).json()) as { mcp_token: string; hook_token: string };
    const fromX = (await (await mint(x, 'two')).json()) as { mcp_token: string; hook_token: string };
    const [zId] = await idOf({ label: 'Z from X' });
    const [lineage] = await t.sql<{ z: string; one: string[]; two: string[] }[]>`
      select (select minted_by from doco.tokens where id = ${zId!}) as z,
             (select array_agg(minted_by) from doco.tokens where id = any(${await idOf({ principal: 'agent:claude-code@one' })})) as one,
             (select array_agg(minted_by) from doco.tokens where id = any(${await idOf({ principal: 'agent:claude-code@two' })})) as two`;
    expect(lineage).toEqual({ z: xId, one: [zId, zId], two: [xId, xId] });
    const whoami = async (token: string) =>
      (await app.app.request('/api/v1/whoami', { headers: { authorization: `Bearer ${token}` } })).status;

    // The page says what X minted, and offers to revoke it with them.
    const page = await client.get('/tokens');
    expect(textOf(page.html)).toContain('minted 5 live tokens');
    expect(page.html).toContain('Revoke with the 5 it minted');
    // Revoking Z alone leaves what Z minted working: rotating a token must not stop the agents it installed.
    await client.get('/tokens');
    expect((await client.post(`/tokens/${zId}/revoke`, {})).status).toBe(303);
    expect([await whoami(z), await whoami(fromZ.mcp_token), await whoami(fromZ.hook_token)]).toEqual([401, 200, 200]);
    // X with what it minted: X, its agent's pair, and through Z (revoked already) Z's agent's pair.
    await client.get('/tokens');
    const res = await client.post(`/tokens/${xId}/revoke`, { with_minted: 'yes' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/tokens?revoked=${xId}&with=4`);
    expect(textOf((await client.get(res.headers.get('location')!)).html)).toContain(`Revoked ${xId} and the 4 tokens it minted.`);
    for (const token of [x, fromX.mcp_token, fromX.hook_token, fromZ.mcp_token, fromZ.hook_token]) expect(await whoami(token)).toBe(401);
    expect((await session.get('/tokens')).status).not.toBe(200); // the session made from X ended with it
    // A bad choice is refused before anything is revoked.
    const live = await createToken(t.db, { workspaceId: ws.id, principalId: ws.principalId, scope: 'read', label: 'still live' });
    const [liveId] = await idOf({ label: 'still live' });
    await client.get('/tokens');
    expect((await client.post(`/tokens/${liveId}/revoke`, { with_minted: 'no' })).status).toBe(400);
    expect(await whoami(live)).toBe(200);
  });

  it('counts every live token and pages the list, so a token cannot be pushed off it by minting newer ones', async () => {
    // A "backdoor" write token, then 250 newer agent tokens minted with it: the list stopped at
    // 500 and called its length the count, so the oldest live ones were on no page at all.
    const backdoor = await createToken(t.db, { workspaceId: ws.id, principalId: ws.principalId, scope: 'write', label: 'backdoor' });
    for (let i = 0; i < 250; i++)
      await createToken(t.db, { workspaceId: ws.id, principalId: ws.principalId, scope: 'read', label: `minted ${i}` });
    const [counts] = await t.sql<{ live: number; revoked: number }[]>`
      select count(*) filter (where revoked_at is null)::int as live, count(*) filter (where revoked_at is not null)::int as revoked
        from doco.tokens where workspace_id = ${ws.id}`;
    const { live, revoked } = counts!;
    const pages = Math.ceil((live + revoked) / 100);
    const first = textOf((await client.get('/tokens')).html);
    expect(first).toContain(`${live} live tokens, ${revoked} revoked (page 1 of ${pages}, live first)`);
    expect(first).not.toContain('backdoor');
    const shown: string[] = [];
    for (let page = 1; page <= pages; page++) {
      const html = (await client.get(`/tokens?page=${page}`)).html;
      shown.push(...[...html.matchAll(/<code>(token_[0-9A-Z]+)<\/code> · made/g)].map((m) => m[1]!));
    }
    const ids = (await t.sql<{ id: string }[]>`select id from doco.tokens where workspace_id = ${ws.id}`).map((r) => r.id);
    expect(shown.sort()).toEqual(ids.sort());
    expect(textOf((await client.get(`/tokens?page=${pages}`)).html)).toContain('backdoor');
    expect(backdoor).toMatch(/^doco_/);
    expect((await client.get('/tokens?page=0')).status).toBe(400);
  });
});

describe('escaping', () => {
  const SCRIPT = '<script>alert("x")</script>';
  const IMG = '"><img src=x onerror=alert(1)>';
  it('prose, titles and body fields holding markup render as text on every page', async () => {
    const id = await agentCapture(t, ws, {
      title: `Title ${IMG}`,
      prose: `Prose ${SCRIPT} and ${IMG} refund`,
      lifecycle: 'queued',
      body: { question: `Why ${SCRIPT}?` },
    });
    await client.get('/briefs');
    const brief = await client.post('/briefs', { about: `refund ${SCRIPT}`, touching: IMG });
    const pages = [
      '/',
      '/review',
      `/records/${id}`,
      '/search?q=refund+prose',
      brief.location!,
      '/briefs',
      `/search?q=${encodeURIComponent(IMG)}`,
    ];
    for (const p of pages) {
      const { html, status } = await client.get(p);
      expect({ p, status }).toEqual({ p, status: 200 });
      expect(html).not.toContain('<script>');
      expect(html).not.toContain('<img');
      expect(html).not.toMatch(/onerror=alert\(1\)>/);
    }
    const review = await client.get('/review');
    expect(review.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(textOf(review.html)).toContain(`Prose ${SCRIPT} and ${IMG} refund`);
    expect(textOf((await client.get(`/records/${id}`)).html)).toContain(`Why ${SCRIPT}?`);
  });
  it('an error page escapes what it repeats', async () => {
    const res = await client.get(`/records/${encodeURIComponent(IMG)}`);
    expect(res.status).toBe(400);
    expect(res.html).not.toContain('<img');
  });
});

describe('doco console', () => {
  it('prints the one-time sign-in URL alone on stdout, and the link signs in once', async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), 'doco-console-'));
    try {
      const res = await runDoco(['console', '--workspace', ws.slug, '--url', 'http://127.0.0.1:9999'], {
        env: { DATABASE_URL: t.url, DOCO_HOME: home },
      });
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(/^http:\/\/127\.0\.0\.1:9999\/sign-in\?code=[A-Za-z0-9_-]+\n$/);
      const url = new URL(res.stdout.trim());
      const browser = consoleClient(app.app);
      expect((await browser.get(url.pathname + url.search)).status).toBe(200);
      expect((await browser.post('/sign-in', { code: url.searchParams.get('code')! })).status).toBe(303);
      expect(textOf((await browser.get('/')).html)).toContain(`cli:${os.userInfo().username}`);
      expect((await consoleClient(app.app).get(url.pathname + url.search)).status).toBe(401);
      const bad = await runDoco(['console', '--scope', 'admin'], { env: { DATABASE_URL: t.url, DOCO_HOME: home } });
      expect(bad.code).not.toBe(0);
      expect(bad.stdout).toBe('');
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
