// The console session: a signed, HttpOnly, SameSite=Strict cookie (Secure over https) naming a
// session row; every page needs one (a browser without it is sent to sign in, an API client gets
// 401), a person's (never an agent's), and every form post carries the session's CSRF token.
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getSignedCookie, setSignedCookie } from 'hono/cookie';
import { consoleSecret, findSession, SESSION_TTL_MS } from '../../auth/console-sessions.js';
import type { Scope } from '../../auth/tokens.js';
import type { Sql } from '../../db/connect.js';
import { AppError } from '../../errors.js';
import { declare, principalOf } from '../admits.js';
import { csrfMatches, csrfToken } from './csrf.js';
import type { ConsoleEnv } from './env.js';
import type { FormFields } from './form.js';
import { prefersHtml } from '../negotiate.js';

export const SESSION_COOKIE = 'doco_session';
/** Before sign-in: a nonce the sign-in form's CSRF token is bound to. */
export const SIGN_IN_COOKIE = 'doco_signin';

const secrets = new WeakMap<Sql, Promise<string>>();

/** The console key, read (or made) once per pool. */
export function secretOf(sql: Sql): Promise<string> {
  let secret = secrets.get(sql);
  if (!secret) {
    secret = consoleSecret(sql);
    secrets.set(sql, secret);
    secret.catch(() => secrets.delete(sql));
  }
  return secret;
}

const isHttps = (c: Context) => new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https';

export function cookieOptions(c: Context, maxAgeSeconds: number) {
  return { path: '/', httpOnly: true, sameSite: 'Strict' as const, secure: isHttps(c), maxAge: maxAgeSeconds };
}

export async function setSessionCookie(c: Context, secret: string, sessionId: string): Promise<void> {
  await setSignedCookie(c, SESSION_COOKIE, sessionId, secret, cookieOptions(c, Math.floor(SESSION_TTL_MS / 1000)));
}

export function clearSessionCookie(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/', secure: isHttps(c) });
}

/** The cookie's session id when its signature holds; undefined otherwise. */
export async function sessionIdOf(c: Context, secret: string): Promise<string | undefined> {
  const value = await getSignedCookie(c, secret, SESSION_COOKIE);
  return typeof value === 'string' && value ? value : undefined;
}

/** Where to come back to after signing in: a path on this site only, never another origin. */
export const safeNext = (next: string | undefined) => (next && /^\/(?![/\\])[^\s]*$/.test(next) ? next : '/');

/**
 * A console page or action's declaration (../admits.ts): a person's session of at least this
 * scope. An agent's session (one opened before agents were refused at sign-in) opens nothing.
 */
export const requireSession = (sql: Sql, admits: { scope: Scope }): MiddlewareHandler<ConsoleEnv> =>
  declare<MiddlewareHandler<ConsoleEnv>>(
    async (c, next) => {
      const secret = await secretOf(sql);
      const id = await sessionIdOf(c, secret);
      const session = id ? await findSession(sql, id) : undefined;
      if (!session) {
        if (prefersHtml(c)) {
          const target = c.req.method === 'GET' ? new URL(c.req.url).pathname + new URL(c.req.url).search : '/';
          return c.redirect(`/sign-in?next=${encodeURIComponent(target)}`, 303);
        }
        throw new AppError(
          'unauthorized',
          'sign in to the console first (open the link `doco console` prints, or paste a token at /sign-in)',
        );
      }
      if (principalOf(session.principalName) !== 'person')
        throw new AppError(
          'forbidden',
          `${session.principalName} is an agent: the console is for people (agents propose; a person reviews here)`,
        );
      if (admits.scope === 'write' && session.scope !== 'write')
        throw new AppError(
          'forbidden',
          'this session is read-only; signing in with a write token (or a write link) lets you change things',
        );
      c.set('secret', secret);
      c.set('session', session);
      c.set('csrf', csrfToken(secret, session.idHash));
      await next();
    },
    { principals: ['person'], scope: admits.scope, credential: 'session' },
  );

/** Every form post: the session's CSRF token must come with it. */
export function checkCsrf(c: Context<ConsoleEnv>, form: FormFields): void {
  if (!csrfMatches(c.get('secret'), c.get('session').idHash, form._csrf)) {
    throw new AppError('forbidden', 'the form\u2019s CSRF token is missing or wrong: reload the page and try again');
  }
}
