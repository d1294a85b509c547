// A browser-like client for console tests: a cookie jar, Accept: text/html, form posts that
// carry the CSRF token of the last page, all through app.request() (the real HTTP handling).
import { createHash } from 'node:crypto';
import { serializeSigned } from 'hono/utils/cookie';
import { consoleSecret, mintSignInCode, openSession, type ConsoleGrant } from '../../src/auth/console-sessions.js';
import { csrfToken } from '../../src/http/console/csrf.js';
import { SESSION_COOKIE, SIGN_IN_COOKIE } from '../../src/http/console/session.js';
import type { DocoApp } from '../../src/http/app.js';
import type { TestDb } from './db.js';
import type { TestWorkspace } from './app.js';

export interface Page {
  status: number;
  html: string;
  location: string | null;
  headers: Headers;
}

const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

export function consoleClient(app: DocoApp) {
  const jar = new Map<string, string>();
  let csrf = '';
  const cookieHeader = () => [...jar].map(([k, val]) => `${k}=${val}`).join('; ');
  const remember = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (/max-age=0/i.test(line) || value === '') jar.delete(name);
      else jar.set(name, value);
    }
  };
  const send = async (method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}): Promise<Page> => {
    const res = await app.request(path, {
      method,
      headers: { accept: HTML, cookie: cookieHeader(), ...init.headers },
      ...(init.body !== undefined ? { body: init.body } : {}),
    });
    remember(res);
    const html = await res.text();
    const found = html.match(/name="_csrf" value="([^"]+)"/);
    if (found) csrf = found[1]!;
    return { status: res.status, html, location: res.headers.get('location'), headers: res.headers };
  };
  return {
    jar,
    get csrf() {
      return csrf;
    },
    get: (path: string, headers: Record<string, string> = {}) => send('GET', path, { headers }),
    /** A form post; `_csrf` is the last page's token unless the fields set it (or null to leave it out). */
    post: (path: string, fields: Record<string, string | string[] | null>, headers: Record<string, string> = {}) => {
      const body = new URLSearchParams();
      const withCsrf = '_csrf' in fields ? fields : { _csrf: csrf, ...fields };
      for (const [k, val] of Object.entries(withCsrf)) {
        if (val === null) continue;
        for (const one of Array.isArray(val) ? val : [val]) body.append(k, one);
      }
      return send('POST', path, { body: body.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });
    },
  };
}

export type ConsoleClient = ReturnType<typeof consoleClient>;

/** A client signed in through a one-time link for the workspace's principal, at this scope. */
export async function signedIn(t: TestDb, app: DocoApp, ws: TestWorkspace, scope: 'read' | 'write' = 'write'): Promise<ConsoleClient> {
  const client = consoleClient(app);
  const code = await mintSignInCode(t.sql, { workspaceId: ws.id, principalId: ws.principalId, scope });
  const page = await client.get(`/sign-in?code=${code}`);
  if (page.status !== 200) throw new Error(`sign-in link refused: ${page.status} ${page.html.slice(0, 300)}`);
  const res = await client.post('/sign-in', { code });
  if (res.status !== 303) throw new Error(`sign-in failed: ${res.status} ${res.html.slice(0, 300)}`);
  await client.get('/'); // picks up the session's CSRF token
  return client;
}

/**
 * A session opened directly, without signing in, as the cookie and CSRF token a browser holding it
 * would send: for any principal, so also one the sign-in pages refuse (an agent's, as opened
 * before they refused it).
 */
export async function sessionFor(t: TestDb, grant: ConsoleGrant): Promise<{ cookie: string; csrf: string }> {
  const secret = await consoleSecret(t.sql);
  const id = await openSession(t.sql, grant);
  const cookie = (await serializeSigned(SESSION_COOKIE, id, secret)).split(';')[0]!;
  return { cookie, csrf: csrfToken(secret, createHash('sha256').update(id).digest('hex')) };
}

/** The nonce cookie and CSRF token of the sign-in form, as a browser holds them after GET /sign-in. */
export async function signInForm(t: TestDb): Promise<{ cookie: string; csrf: string }> {
  const secret = await consoleSecret(t.sql);
  const nonce = `nonce-${Math.random().toString(36).slice(2)}`;
  const cookie = (await serializeSigned(SIGN_IN_COOKIE, nonce, secret)).split(';')[0]!;
  return { cookie, csrf: csrfToken(secret, `signin:${nonce}`) };
}

/** The text of an HTML page with its tags dropped and entities decoded, for "is it shown" checks. */
export function textOf(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}
