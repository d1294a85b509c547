// Sign in and out: a one-time link (`doco console`) exchanged for a session, or a pasted token;
// sign out ends the session. The console is for people: an agent's token or link opens no
// session (docs/security.md). A link's page names who it signs in and asks before the code is
// spent: opened straight, a link someone else minted signed the browser into their session, and
// what the person then approved or wrote was recorded as theirs. The sign-in forms' CSRF token is
// bound to a nonce cookie, since there is no session yet to bind it to.
import { randomBytes } from 'node:crypto';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { getSignedCookie, setSignedCookie } from 'hono/cookie';
import * as v from 'valibot';
import { endSession, findSession, grantOfToken, openSession, peekSignInCode, redeemSignInCode } from '../../../auth/console-sessions.js';
import type { Sql } from '../../../db/connect.js';
import { AppError } from '../../../errors.js';
import { parseInput } from '../../../lib/validate.js';
import { declare, principalOf, publicRoute } from '../../admits.js';
import { csrfMatches, csrfToken } from '../csrf.js';
import type { ConsoleEnv } from '../env.js';
import type { BodyBudget } from '../../body.js';
import { readForm } from '../form.js';
import { sendPage } from '../render.js';
import {
  checkCsrf,
  clearSessionCookie,
  cookieOptions,
  requireSession,
  safeNext,
  secretOf,
  sessionIdOf,
  setSessionCookie,
  SIGN_IN_COOKIE,
} from '../session.js';
import { Page } from '../views/layout.js';
import { CsrfField } from '../views/ui.js';

const CodeSchema = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{20,100}$/, 'must be the code from a `doco console` link'));
const TokenFormSchema = v.object({
  token: v.pipe(
    v.string(),
    v.trim(),
    v.minLength(1, 'paste a token (make one with `doco token create`)'),
    v.maxLength(200, 'is too long to be a token'),
  ),
  next: v.optional(v.string()),
});
const LinkFormSchema = v.object({ code: CodeSchema, next: v.optional(v.string()) });

/** A session is a person's: an agent's token or link is refused before any session is opened. */
function refuseAgent(principalName: string): void {
  if (principalOf(principalName) !== 'person')
    throw new AppError(
      'forbidden',
      `${principalName} is an agent: the console is for people (an agent proposes through capture, relate and changeset; a person reviews here)`,
    );
}

/** POST /sign-in's declaration: the pasted token is the credential, a person's of either scope. */
const pastedToken = (): MiddlewareHandler =>
  declare<MiddlewareHandler>(
    async (_c, next) => {
      await next();
    },
    { principals: ['person'], scope: 'read', credential: 'sign-in' },
  );

async function signInNonce(c: Context, secret: string): Promise<string> {
  const existing = await getSignedCookie(c, secret, SIGN_IN_COOKIE);
  if (typeof existing === 'string' && existing) return existing;
  const nonce = randomBytes(18).toString('base64url');
  await setSignedCookie(c, SIGN_IN_COOKIE, nonce, secret, cookieOptions(c, 3600));
  return nonce;
}

/** The sign-in pages' frame: the box and its heading around what each says. */
function SignInBox({ children }: { children: unknown }) {
  return (
    <Page title="Sign in">
      <div class="signin box">
        <div class="box-head">
          <h1>Sign in to Doco</h1>
        </div>
        <div class="box-body">{children}</div>
      </div>
    </Page>
  );
}

function SignInForm({ csrf, next, error }: { csrf: string; next: string; error?: string }) {
  return (
    <SignInBox>
      <p class="muted">
        Open the one-time link <code>doco console</code> prints, or paste a token.
      </p>
      {error ? (
        <p class="alarm" role="alert">
          {error}
        </p>
      ) : null}
      <form method="post" action="/sign-in">
        <CsrfField token={csrf} />
        <input type="hidden" name="next" value={next} />
        <div class="field">
          <label for="token">
            Token{' '}
            <span class="hint">
              from <code>doco token create --scope read|write</code>
            </span>
          </label>
          <input id="token" name="token" type="password" autocomplete="off" required autofocus />
        </div>
        <button class="primary" type="submit">
          Sign in
        </button>
      </form>
    </SignInBox>
  );
}

/** The page a one-time link opens: who it signs in, and a button that does. */
function ConfirmLink(props: { csrf: string; code: string; next: string; who: string; workspace: string; scope: string; current?: string }) {
  return (
    <SignInBox>
      <p>
        This link signs you in as <strong>{props.who}</strong> to the workspace <strong>{props.workspace}</strong> ({props.scope}).
        Everything you approve, send back or write is recorded as theirs.
      </p>
      {props.current ? (
        <p class="alarm" role="alert">
          You are signed in as {props.current}: continuing signs you in as {props.who} instead.
        </p>
      ) : null}
      <p class="muted">
        Continue only if you ran <code>doco console</code> yourself.
      </p>
      <form method="post" action="/sign-in">
        <CsrfField token={props.csrf} />
        <input type="hidden" name="code" value={props.code} />
        <input type="hidden" name="next" value={props.next} />
        <button class="primary" type="submit">
          Sign in as {props.who}
        </button>
      </form>
    </SignInBox>
  );
}

const LINK_SPENT = 'this sign-in link is expired or was already used: run `doco console` for a new one';

/** A sign-in form holds a token and a CSRF field: nothing near a JSON body's limit, and it is read without a token. */
const SIGN_IN_FORM_BYTES = 16 * 1024;

export function signInPages(deps: { sql: Sql; bodyBudget?: BodyBudget }) {
  const app = new Hono<ConsoleEnv>();

  // The form, for anyone; with ?code=, a page naming who the link signs in, whose button spends it.
  app.get('/sign-in', publicRoute(), async (c) => {
    const secret = await secretOf(deps.sql);
    const next = safeNext(c.req.query('next'));
    const rawCode = c.req.query('code');
    const csrf = csrfToken(secret, `signin:${await signInNonce(c, secret)}`);
    if (rawCode === undefined) return sendPage(c, <SignInForm csrf={csrf} next={next} />);
    const code = parseInput(CodeSchema, rawCode, 'code');
    const link = await peekSignInCode(deps.sql, code);
    if (!link) throw new AppError('unauthorized', LINK_SPENT);
    refuseAgent(link.principalName);
    const sessionId = await sessionIdOf(c, secret);
    const current = sessionId ? (await findSession(deps.sql, sessionId))?.principalName : undefined;
    return sendPage(
      c,
      <ConfirmLink
        csrf={csrf}
        code={code}
        next={next}
        who={link.principalName}
        workspace={link.workspaceSlug}
        scope={link.scope === 'write' ? 'read and write' : 'read only'}
        {...(current ? { current } : {})}
      />,
    );
  });

  // A pasted token, or a link's code once its page was confirmed: both behind the nonce's CSRF token.
  app.post('/sign-in', pastedToken(), async (c) => {
    const secret = await secretOf(deps.sql);
    const form = await readForm(c, { maxBytes: SIGN_IN_FORM_BYTES, ...(deps.bodyBudget ? { budget: deps.bodyBudget } : {}) });
    const nonce = await getSignedCookie(c, secret, SIGN_IN_COOKIE);
    if (typeof nonce !== 'string' || !csrfMatches(secret, `signin:${nonce}`, form._csrf)) {
      throw new AppError('forbidden', 'the sign-in form\u2019s CSRF token is missing or wrong: reload the sign-in page and try again');
    }
    if (form.code !== undefined) {
      const input = parseInput(LinkFormSchema, { code: form.code, next: form.next }, 'sign-in');
      const grant = await redeemSignInCode(deps.sql, input.code);
      if (!grant) throw new AppError('unauthorized', LINK_SPENT);
      refuseAgent(grant.principalName);
      await setSessionCookie(c, secret, await openSession(deps.sql, grant));
      return c.redirect(safeNext(input.next), 303);
    }
    const input = parseInput(TokenFormSchema, { token: form.token, next: form.next }, 'sign-in');
    const next = safeNext(input.next);
    const grant = await grantOfToken(deps.sql, input.token);
    if (!grant) {
      return sendPage(
        c,
        <SignInForm csrf={csrfToken(secret, `signin:${nonce}`)} next={next} error="That token is unknown or revoked." />,
        401,
      );
    }
    refuseAgent(grant.principalName);
    await setSessionCookie(c, secret, await openSession(deps.sql, grant));
    return c.redirect(next, 303);
  });

  app.post('/sign-out', requireSession(deps.sql, { scope: 'read' }), async (c) => {
    checkCsrf(c, await readForm(c));
    const id = await sessionIdOf(c, c.get('secret'));
    if (id) await endSession(deps.sql, id);
    clearSessionCookie(c);
    return c.redirect('/sign-in', 303);
  });

  return app;
}
