// GET /tokens (label, scope, principal, last used; the signed-in browsers), POST /tokens (create:
// the value is shown once, on the answer to this post, never again), POST /tokens/:id/revoke,
// POST /sessions/:hash/end. A person mints tokens
// for themselves or for an agent, never in another person's name (docs/security.md).
import { Hono, type Context } from 'hono';
import * as v from 'valibot';
import { endSessionByHash, listSessions, type SessionListing } from '../../../auth/console-sessions.js';
import { listTokens, revokeToken, TOKENS_PAGE } from '../../../auth/token-admin.js';
import { createToken } from '../../../auth/tokens.js';
import type { Db, Sql } from '../../../db/connect.js';
import { AppError } from '../../../errors.js';
import { parseInput } from '../../../lib/validate.js';
import { isAgentName, PRINCIPAL_NAME_MAX, PrincipalNameSchema } from '../../../auth/principal-name.js';
import { ensurePrincipal } from '../../../auth/workspaces.js';
import type { ConsoleEnv } from '../env.js';
import { readForm } from '../form.js';
import { sendPage } from '../render.js';
import { checkCsrf, requireSession } from '../session.js';
import { Page, PageHead } from '../views/layout.js';
import { Box, CsrfField, Empty, Pill, Time, PageNav, TableHead } from '../views/ui.js';

const TokenIdSchema = v.pipe(v.string(), v.regex(/^token_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a token id such as token_01K…'));
const optionalText = (max: number) =>
  v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.maxLength(max, `must be at most ${max} characters`),
      v.regex(/^[^\p{Cc}]*$/u, 'must not hold control characters'),
    ),
  );
const CreateSchema = v.object({
  scope: v.picklist(['read', 'write'], 'must be read or write'),
  label: optionalText(200),
  principal: v.optional(PrincipalNameSchema),
});

const RevokeSchema = v.object({ with_minted: v.optional(v.literal('yes', 'must be yes or left out')) });
const WithSchema = v.pipe(v.string(), v.regex(/^[1-9]\d{0,6}$/), v.transform(Number));
const SessionHashSchema = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'must be a console session as the token page lists it'));
const PageSchema = v.pipe(v.string(), v.regex(/^[1-9]\d{0,5}$/, 'must be a page number (1, 2, …)'), v.transform(Number));

async function tokensPage(c: Context<ConsoleEnv>, deps: { sql: Sql }, created?: { token: string; scope: string; label: string }) {
  const session = c.get('session');
  const page = created ? 1 : parseInput(PageSchema, c.req.query('page') ?? '1', 'page');
  const [{ tokens, live, revoked: revokedCount }, signedIn] = await Promise.all([
    listTokens(deps.sql, session.workspaceId, page),
    listSessions(deps.sql, session.workspaceId),
  ]);
  const pages = Math.max(1, Math.ceil((live + revokedCount) / TOKENS_PAGE));
  const revoked = v.safeParse(TokenIdSchema, c.req.query('revoked'));
  const withCount = v.safeParse(WithSchema, c.req.query('with'));
  const ended = c.req.query('ended') === 'yes';
  const csrf = c.get('csrf');
  return sendPage(
    c,
    <Page title="Tokens" section="/tokens" session={session} csrf={csrf}>
      <PageHead title="Tokens">Bearer tokens of this workspace: agents' hooks and MCP entries, scripts, people.</PageHead>
      {created ? (
        <div class="notice" role="status">
          <p>
            <strong>
              New {created.scope} token{created.label ? ` “${created.label}”` : ''}.
            </strong>{' '}
            Copy it now: it is shown once and stored only as a hash.
          </p>
          <div class="token-once" id="new-token">
            {created.token}
          </div>
        </div>
      ) : null}
      {revoked.success ? (
        <p class="notice" role="status">
          Revoked <code>{revoked.output}</code>
          {withCount.success ? ` and the ${withCount.output} token${withCount.output === 1 ? '' : 's'} it minted` : ''}.
        </p>
      ) : null}
      {ended ? (
        <p class="notice" role="status">
          Ended the console session: its browser is signed out.
        </p>
      ) : null}
      <div class="cols">
        <Box
          title={`${live} live token${live === 1 ? '' : 's'}, ${revokedCount} revoked${pages > 1 ? ` (page ${page} of ${pages}, live first)` : ''}`}
          id="list"
          flush
        >
          {tokens.length ? (
            <table>
              <TableHead columns={['label', 'scope', 'principal', 'last used']} action />
              <tbody>
                {tokens.map((t) => (
                  <tr>
                    <td>
                      {t.label ?? <span class="faint">(no label)</span>}
                      <div class="small faint">
                        <code>{t.id}</code> · made <Time d={t.created_at} />
                        {t.minted_by ? (
                          <>
                            {' '}
                            with <code>{t.minted_by}</code>
                          </>
                        ) : null}
                        {t.minted_live ? ` · minted ${t.minted_live} live token${t.minted_live === 1 ? '' : 's'}` : null}
                      </div>
                    </td>
                    <td>
                      <Pill kind={t.scope} />
                    </td>
                    <td class="small">{t.principal}</td>
                    <td class="small nowrap">
                      <Time d={t.last_used_at} />
                    </td>
                    <td>
                      {t.revoked_at ? (
                        <>
                          <span class="small muted">
                            revoked <Time d={t.revoked_at} />
                          </span>
                          {t.minted_live ? (
                            // Revoked itself (by hand, or with its retired principal) while tokens it minted live on.
                            <form method="post" action={`/tokens/${t.id}/revoke`} class="inline">
                              <CsrfField token={csrf} />
                              <button
                                class="danger"
                                type="submit"
                                name="with_minted"
                                value="yes"
                                aria-label={`Revoke the ${t.minted_live} tokens ${t.label ?? t.id} minted`}
                              >
                                {`Revoke the ${t.minted_live} it minted`}
                              </button>
                            </form>
                          ) : null}
                        </>
                      ) : (
                        <form method="post" action={`/tokens/${t.id}/revoke`} class="inline">
                          <CsrfField token={csrf} />
                          <button class="danger" type="submit" aria-label={`Revoke ${t.label ?? t.id}`}>
                            Revoke
                          </button>
                          {t.minted_live ? (
                            <button
                              class="danger"
                              type="submit"
                              name="with_minted"
                              value="yes"
                              aria-label={`Revoke ${t.label ?? t.id} and the ${t.minted_live} it minted`}
                            >
                              {`Revoke with the ${t.minted_live} it minted`}
                            </button>
                          ) : null}
                        </form>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <Empty>No tokens.</Empty>
          )}
          <PageNav path="/tokens" page={page} pages={pages} style="margin:12px" />
        </Box>
        <Box title="New token" id="create">
          <form method="post" action="/tokens">
            <CsrfField token={csrf} />
            <div class="field">
              <label for="label">Label</label>
              <input id="label" name="label" type="text" maxlength={200} placeholder="CI search bot" />
            </div>
            <fieldset class="field" style="border:0;padding:0;margin:0 0 12px">
              <legend style="font-weight:600;margin-bottom:4px">Scope</legend>
              <label style="font-weight:400">
                <input type="radio" name="scope" value="read" checked /> read: briefs and search
              </label>
              <label style="font-weight:400">
                <input type="radio" name="scope" value="write" /> write: also captures and changesets
              </label>
            </fieldset>
            <div class="field">
              <label for="principal">
                Principal{' '}
                <span class="hint">
                  who its writes are attributed to: you ({session.principalName}), or an agent such as agent:claude-code@my-checkout
                </span>
              </label>
              <input
                id="principal"
                name="principal"
                type="text"
                maxlength={PRINCIPAL_NAME_MAX}
                placeholder="agent:claude-code@my-checkout"
              />
            </div>
            <button class="primary" type="submit">
              Create token
            </button>
          </form>
        </Box>
      </div>
      <SignedInBrowsers {...signedIn} own={session.idHash} csrf={csrf} />
    </Page>,
  );
}

/**
 * The workspace's live console sessions, each with who, how it was made and until when, and an
 * End button: a session a `doco console` link opened has no token to revoke.
 */
function SignedInBrowsers({ sessions, live, own, csrf }: { sessions: SessionListing[]; live: number; own: string; csrf: string }) {
  return (
    <Box
      title={`${live} signed-in browser${live === 1 ? '' : 's'}${live > sessions.length ? ` (the newest ${sessions.length})` : ''}`}
      id="sessions"
      flush
    >
      {sessions.length ? (
        <table>
          <TableHead columns={['principal', 'scope', 'signed in with', 'since', 'until']} action />
          <tbody>
            {sessions.map((s) => (
              <tr>
                <td class="small">
                  {s.principal}
                  {s.id_hash === own ? <span class="faint"> (this browser)</span> : null}
                </td>
                <td>
                  <Pill kind={s.scope} />
                </td>
                <td class="small">{s.token_id ? <code>{s.token_id}</code> : 'a sign-in link'}</td>
                <td class="small nowrap">
                  <Time d={s.created_at} />
                </td>
                <td class="small nowrap">
                  <Time d={s.expires_at} />
                </td>
                <td>
                  <form method="post" action={`/sessions/${s.id_hash}/end`} class="inline">
                    <CsrfField token={csrf} />
                    <button class="danger" type="submit" aria-label={`End ${s.principal}'s session since ${s.created_at.toISOString()}`}>
                      End
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <Empty>No one is signed in.</Empty>
      )}
    </Box>
  );
}

export function tokenPages(deps: { sql: Sql; db: Db }) {
  const app = new Hono<ConsoleEnv>();
  app.get('/tokens', requireSession(deps.sql, { scope: 'read' }), (c) => tokensPage(c, deps));

  app.post('/tokens', requireSession(deps.sql, { scope: 'write' }), async (c) => {
    const form = await readForm(c);
    checkCsrf(c, form);
    const input = parseInput(
      CreateSchema,
      // The field's spaces around the name are the form's, not the name's; left empty, the token is yours.
      {
        scope: form.scope,
        label: form.label || undefined,
        principal: typeof form.principal === 'string' ? form.principal.trim() || undefined : form.principal,
      },
      'token',
    );
    const session = c.get('session');
    const named = input.principal;
    const forSelf = !named || named.toLowerCase() === session.principalName.toLowerCase();
    if (!forSelf && !isAgentName(named))
      throw new AppError(
        'forbidden',
        `a token in the name of ${named} is theirs to make: mint one for yourself (${session.principalName}) or for an agent (agent:<agent>@<checkout>)`,
      );
    const principalId = forSelf ? session.principalId : await ensurePrincipal(deps.db, session.workspaceId, named, 'ui');
    const token = await createToken(deps.db, {
      workspaceId: session.workspaceId,
      principalId,
      scope: input.scope,
      ...(input.label ? { label: input.label } : {}),
      // The token this session was made from (none for a `doco console` link's).
      mintedBy: session.tokenId,
    });
    return tokensPage(c, deps, { token, scope: input.scope, label: input.label ?? '' });
  });

  app.post('/tokens/:id/revoke', requireSession(deps.sql, { scope: 'write' }), async (c) => {
    const form = await readForm(c);
    checkCsrf(c, form);
    const id = parseInput(TokenIdSchema, c.req.param('id'), 'id');
    const { with_minted: withMinted } = parseInput(RevokeSchema, { with_minted: form.with_minted }, 'revoke');
    const { minted } = await revokeToken(deps.sql, c.get('session').workspaceId, id, { withMinted: withMinted === 'yes' });
    return c.redirect(`/tokens?revoked=${id}${minted ? `&with=${minted}` : ''}`, 303);
  });

  app.post('/sessions/:hash/end', requireSession(deps.sql, { scope: 'write' }), async (c) => {
    const form = await readForm(c);
    checkCsrf(c, form);
    const hash = parseInput(SessionHashSchema, c.req.param('hash'), 'session');
    await endSessionByHash(deps.sql, c.get('session').workspaceId, hash);
    // Ending one's own session signs this browser out: the token page would answer the sign-in page.
    return c.redirect(hash === c.get('session').idHash ? '/sign-in' : '/tokens?ended=yes#sessions', 303);
  });
  return app;
}
