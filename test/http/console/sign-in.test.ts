// Signing in and out: the one-time link (single use, short-lived), a pasted token, the cookie's
// attributes, CSRF on the sign-in and sign-out forms, and / for API clients.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintSignInCode } from '../../../src/auth/console-sessions.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../../helpers/app.js';
import { consoleClient, signedIn, textOf } from '../../helpers/console.js';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { expectError } from '../../helpers/expect-error.js';

let t: TestDb;
let ws: TestWorkspace;
let app: ReturnType<typeof makeApp>;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'console-signin');
  app = makeApp(t);
});
afterAll(async () => t.drop());

describe('/ for API clients', () => {
  it('a bearer token or a non-HTML Accept gets JSON pointers, never HTML', async () => {
    for (const headers of [
      { authorization: `Bearer ${ws.readToken}`, accept: 'text/html' },
      { accept: 'application/json' },
      { accept: '*/*' },
      {},
    ] as Record<string, string>[]) {
      const res = await app.app.request('/', { headers });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(await res.json()).toMatchObject({ api: '/api/v1', mcp: '/mcp' });
    }
  });
  it('a browser without a session is sent to sign in', async () => {
    const res = await consoleClient(app.app).get('/review');
    expect(res.status).toBe(303);
    expect(res.location).toBe('/sign-in?next=%2Freview');
  });
  it('an API client asking for a console page without a session gets the 401 error shape', async () => {
    const res = await app.app.request('/review', { headers: { accept: 'application/json' } });
    expectError({ status: res.status, body: await res.json() }, 401, 'unauthorized');
  });
  it('the REST API and MCP are untouched by the console', async () => {
    const res = await app.app.request('/api/v1/templates', { headers: { authorization: `Bearer ${ws.readToken}`, accept: 'text/html' } });
    expect(res.status).toBe(200);
    const none = await app.app.request('/api/v1/templates', { headers: { accept: 'text/html' } });
    expect(none.status).toBe(401);
  });
});

describe('one-time link', () => {
  const mint = (scope: 'read' | 'write' = 'write') => mintSignInCode(t.sql, { workspaceId: ws.id, principalId: ws.principalId, scope });
  const used = async (code: string) =>
    (await t.sql`select used_at from doco.console_codes where code_hash = encode(sha256(convert_to(${code}, 'UTF8')), 'hex')`)[0]!.used_at;

  it('opens a page naming who it signs in, spending nothing until its button is pressed', async () => {
    const code = await mint();
    const client = consoleClient(app.app);
    const page = await client.get(`/sign-in?code=${code}&next=/review`);
    expect(page.status).toBe(200);
    expect(textOf(page.html)).toContain(`signs you in as tester-${ws.slug} to the workspace ${ws.slug} (read and write)`);
    expect(page.html).toContain(`name="code" value="${code}"`);
    expect(client.jar.has('doco_session')).toBe(false);
    expect(await used(code)).toBeNull();
    // Opening it again (a preview, a reload) still spends nothing.
    expect((await consoleClient(app.app).get(`/sign-in?code=${code}`)).status).toBe(200);
    expect(await used(code)).toBeNull();
  });

  it('signs in once, with a signed HttpOnly SameSite=Strict cookie, and cannot be used again', async () => {
    const code = await mint();
    const client = consoleClient(app.app);
    await client.get(`/sign-in?code=${code}&next=/review`);
    const first = await client.post('/sign-in', { code, next: '/review' });
    expect(first.status).toBe(303);
    expect(first.location).toBe('/review');
    const cookie = first.headers.getSetCookie().find((c) => c.startsWith('doco_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toMatch(/Secure/);
    expect((await client.get('/review')).status).toBe(200);
    expect(await used(code)).not.toBeNull();

    const again = await consoleClient(app.app).get(`/sign-in?code=${code}`);
    expect(again.status).toBe(401);
    expect(again.html).toContain('expired or was already used');
    const client2 = consoleClient(app.app);
    await client2.get('/sign-in');
    expect((await client2.post('/sign-in', { code })).status).toBe(401);
    expect(client2.jar.has('doco_session')).toBe(false);
  });

  it('a post from another site (no sign-in cookie, or its CSRF token missing) spends nothing and opens no session', async () => {
    const code = await mint();
    const stranger = consoleClient(app.app);
    const bare = await stranger.post('/sign-in', { code, _csrf: null });
    expect(bare.status).toBe(403);
    const forged = await stranger.post('/sign-in', { code, _csrf: 'made-up' });
    expect(forged.status).toBe(403);
    expect(stranger.jar.has('doco_session')).toBe(false);
    expect(await used(code)).toBeNull();
  });

  it('says so when the browser is signed in as someone else already', async () => {
    const other = await makeWorkspace(t, 'sign-in-other');
    const client = await signedIn(t, app.app, other);
    const page = await client.get(`/sign-in?code=${await mint()}`);
    expect(textOf(page.html)).toContain(`You are signed in as tester-${other.slug}: continuing signs you in as tester-${ws.slug} instead.`);
  });

  it('an expired code is refused', async () => {
    const code = await mint();
    await t.sql`update doco.console_codes set expires_at = created_at + interval '1 millisecond', created_at = created_at - interval '1 hour', used_at = null where used_at is null`;
    const res = await consoleClient(app.app).get(`/sign-in?code=${code}`);
    expect(res.status).toBe(401);
  });
  it('a malformed code is a validation error; JSON clients get the error shape', async () => {
    expect((await consoleClient(app.app).get('/sign-in?code=<script>')).status).toBe(400);
    const res = await app.app.request('/sign-in?code=x', { headers: { accept: 'application/json' } });
    expectError({ status: res.status, body: await res.json() }, 400, 'validation_failed');
    const client = consoleClient(app.app);
    await client.get('/sign-in');
    expect((await client.post('/sign-in', { code: '<script>' })).status).toBe(400);
  });
  it('the cookie is Secure over https', async () => {
    const code = await mint('read');
    const page = await app.app.request(`https://doco.example.com/sign-in?code=${code}`, { headers: { accept: 'text/html' } });
    const nonce = page.headers.getSetCookie().find((c) => c.startsWith('doco_signin='))!;
    expect(nonce).toMatch(/Secure/);
    const csrf = (await page.text()).match(/name="_csrf" value="([^"]+)"/)![1]!;
    const res = await app.app.request('https://doco.example.com/sign-in', {
      method: 'POST',
      headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', cookie: nonce.split(';')[0]! },
      body: new URLSearchParams({ _csrf: csrf, code }).toString(),
    });
    expect(res.status).toBe(303);
    expect(res.headers.getSetCookie().find((c) => c.startsWith('doco_session='))).toMatch(/Secure/);
  });
  it('a forged or unsigned cookie is no session', async () => {
    const client = consoleClient(app.app);
    client.jar.set('doco_session', 'made-up-session-id');
    expect((await client.get('/')).status).toBe(303);
  });
  it('next never leaves the site', async () => {
    const code = await mint('read');
    const client = consoleClient(app.app);
    const page = await client.get(`/sign-in?code=${code}&next=//evil.example.com/`);
    expect(page.html).toContain('name="next" value="/"');
    const res = await client.post('/sign-in', { code, next: '//evil.example.com/' });
    expect(res.location).toBe('/');
  });
});

describe('pasted token', () => {
  it('signs in with a valid token after the form\u2019s CSRF check, and refuses a bad one', async () => {
    const client = consoleClient(app.app);
    const form = await client.get('/sign-in?next=/tokens');
    expect(form.status).toBe(200);
    const bad = await client.post('/sign-in', { token: 'doco_nope', next: '/tokens' });
    expect(bad.status).toBe(401);
    expect(bad.html).toContain('unknown or revoked');
    const ok = await client.post('/sign-in', { token: ws.readToken, next: '/tokens' });
    expect(ok.status).toBe(303);
    expect(ok.location).toBe('/tokens');
    expect((await client.get('/tokens')).status).toBe(200);
  });
  it('refuses a sign-in post without the CSRF token, or with a wrong one', async () => {
    const client = consoleClient(app.app);
    await client.get('/sign-in');
    expect((await client.post('/sign-in', { _csrf: null, token: ws.readToken })).status).toBe(403);
    expect((await client.post('/sign-in', { _csrf: 'forged', token: ws.readToken })).status).toBe(403);
    expect(client.jar.has('doco_session')).toBe(false);
  });
  it('a session made from a token ends when the token is revoked', async () => {
    const client = consoleClient(app.app);
    const { createToken } = await import('../../../src/auth/tokens.js');
    const token = await createToken(t.db, { workspaceId: ws.id, principalId: ws.principalId, scope: 'read' });
    await client.get('/sign-in');
    await client.post('/sign-in', { token });
    expect((await client.get('/')).status).toBe(200);
    await t.sql`update doco.tokens set revoked_at = now() where token_hash = encode(sha256(convert_to(${token}, 'UTF8')), 'hex')`;
    expect((await client.get('/')).status).toBe(303);
  });
});

describe('sign out', () => {
  it('needs the CSRF token, then ends the session for good', async () => {
    const client = await signedIn(t, app.app, ws);
    const stolen = client.jar.get('doco_session')!;
    expect((await client.post('/sign-out', { _csrf: 'wrong' })).status).toBe(403);
    expect((await client.get('/')).status).toBe(200);
    const out = await client.post('/sign-out', {});
    expect(out.status).toBe(303);
    expect(out.location).toBe('/sign-in');
    expect((await client.get('/')).status).toBe(303);
    // The old cookie value is dead server-side, not only cleared in this browser.
    const replay = consoleClient(app.app);
    replay.jar.set('doco_session', stolen);
    expect((await replay.get('/')).status).toBe(303);
  });
});
