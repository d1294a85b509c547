// Console sign-in: one-time codes (short-lived, single use) exchanged for sessions, sessions
// made from a pasted token, and the key their cookies are signed with. Codes and session ids are
// random and stored as sha256 hashes, like tokens.
import { createHash, randomBytes } from 'node:crypto';
import type { Sql } from '../db/connect.js';
import { AppError } from '../errors.js';
import { authenticate, type Scope } from './tokens.js';

/** How long a one-time link stays redeemable. */
export const SIGN_IN_CODE_TTL_MS = 15 * 60_000;
/** How long a console session lasts from sign-in. */
export const SESSION_TTL_MS = 12 * 3_600_000;

export interface ConsoleGrant {
  workspaceId: string;
  principalId: string;
  scope: Scope;
}

export interface ConsoleSession extends ConsoleGrant {
  /** The sha256 of the cookie's id: what CSRF tokens are bound to. */
  idHash: string;
  workspaceSlug: string;
  principalName: string;
  tokenId: string | null;
  expiresAt: Date;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const randomId = () => randomBytes(32).toString('base64url');

/** The cookie-signing secret, made once per database (every server behind a balancer shares it). */
export async function consoleSecret(sql: Sql): Promise<string> {
  await sql`insert into doco.console_keys (id, secret) values (1, ${randomBytes(32).toString('base64url')}) on conflict (id) do nothing`;
  const [row] = await sql<{ secret: string }[]>`select secret from doco.console_keys where id = 1`;
  return row!.secret;
}

/** A one-time sign-in code for this grant; `ttlMs` may be shortened (never lengthened past a day). */
export async function mintSignInCode(sql: Sql, grant: ConsoleGrant, ttlMs = SIGN_IN_CODE_TTL_MS): Promise<string> {
  const code = randomId();
  const ttl = Math.min(Math.max(ttlMs, 1), 86_400_000);
  await sql`
    insert into doco.console_codes (code_hash, workspace_id, principal_id, scope, expires_at)
    values (${sha256(code)}, ${grant.workspaceId}, ${grant.principalId}, ${grant.scope}, now() + ${ttl} * interval '1 millisecond')`;
  return code;
}

/**
 * Who a code would sign in (the principal's name, the workspace's slug, the scope), leaving it
 * unused: the link's page asks the person to confirm before the code is spent. Undefined when
 * unknown, used or expired.
 */
export async function peekSignInCode(
  sql: Sql,
  code: string,
): Promise<{ principalName: string; workspaceSlug: string; scope: Scope } | undefined> {
  const [row] = await sql<{ principal: string; workspace: string; scope: Scope }[]>`
    select coalesce(p.title, c.principal_id) as principal, w.slug as workspace, c.scope
      from doco.console_codes c
      join doco.workspaces w on w.id = c.workspace_id
      left join doco.nodes p on p.id = c.principal_id
     where c.code_hash = ${sha256(code)} and c.used_at is null and c.expires_at > now()`;
  return row ? { principalName: row.principal, workspaceSlug: row.workspace, scope: row.scope } : undefined;
}

/**
 * The code's grant and the name of its principal (the console admits people only), marking the
 * code used in the same statement; undefined when unknown, used or expired.
 */
export async function redeemSignInCode(sql: Sql, code: string): Promise<(ConsoleGrant & { principalName: string }) | undefined> {
  const [row] = await sql<{ workspace_id: string; principal_id: string; scope: Scope; principal: string | null }[]>`
    update doco.console_codes c set used_at = now()
     where code_hash = ${sha256(code)} and used_at is null and expires_at > now()
     returning workspace_id, principal_id, scope, (select p.title from doco.nodes p where p.id = c.principal_id) as principal`;
  return row
    ? { workspaceId: row.workspace_id, principalId: row.principal_id, scope: row.scope, principalName: row.principal ?? row.principal_id }
    : undefined;
}

/** A session from a pasted token: its workspace, principal (and its name) and scope, ending when it is revoked. */
export async function grantOfToken(
  sql: Sql,
  token: string,
): Promise<(ConsoleGrant & { tokenId: string; principalName: string }) | undefined> {
  const auth = await authenticate(sql, token);
  return auth
    ? {
        workspaceId: auth.workspaceId,
        principalId: auth.principalId,
        scope: auth.scope,
        tokenId: auth.tokenId,
        principalName: auth.principalName,
      }
    : undefined;
}

/** Opens a session; returns the random id the cookie carries (only its hash is stored). */
export async function openSession(sql: Sql, grant: ConsoleGrant & { tokenId?: string }): Promise<string> {
  const id = randomId();
  await sql`
    insert into doco.console_sessions (id_hash, workspace_id, principal_id, scope, token_id, expires_at)
    values (${sha256(id)}, ${grant.workspaceId}, ${grant.principalId}, ${grant.scope}, ${grant.tokenId ?? null},
            now() + ${SESSION_TTL_MS} * interval '1 millisecond')`;
  return id;
}

/** The live session of a cookie's id: not expired, not signed out, its token (if any) not revoked. */
export async function findSession(sql: Sql, id: string): Promise<ConsoleSession | undefined> {
  const [row] = await sql<
    {
      id_hash: string;
      workspace_id: string;
      slug: string;
      principal_id: string;
      principal: string | null;
      scope: Scope;
      token_id: string | null;
      expires_at: Date;
    }[]
  >`
    select s.id_hash, s.workspace_id, w.slug, s.principal_id, p.title as principal, s.scope, s.token_id, s.expires_at
      from doco.console_sessions s
      join doco.workspaces w on w.id = s.workspace_id
      left join doco.nodes p on p.id = s.principal_id
      left join doco.tokens t on t.id = s.token_id
     where s.id_hash = ${sha256(id)} and s.expires_at > now() and s.signed_out_at is null
       and (s.token_id is null or t.revoked_at is null) and p.lifecycle is distinct from 'retired'`;
  if (!row) return undefined;
  return {
    idHash: row.id_hash,
    workspaceId: row.workspace_id,
    workspaceSlug: row.slug,
    principalId: row.principal_id,
    principalName: row.principal ?? row.principal_id,
    scope: row.scope,
    tokenId: row.token_id,
    expiresAt: row.expires_at,
  };
}

export async function endSession(sql: Sql, id: string): Promise<void> {
  await sql`update doco.console_sessions set signed_out_at = now() where id_hash = ${sha256(id)} and signed_out_at is null`;
}

/** A live console session as the token page lists it: never its id, only the hash it is stored by. */
export interface SessionListing {
  id_hash: string;
  principal: string;
  scope: Scope;
  /** The token it was made from; null for a sign-in link's. */
  token_id: string | null;
  created_at: Date;
  expires_at: Date;
}

/** The live sessions a page of the token list shows, newest first. */
export const SESSIONS_SHOWN = 100;

/**
 * The workspace's live console sessions (not expired, not signed out, their token not revoked),
 * newest first, and how many there are: a session made from a sign-in link has no token behind
 * it, so ending it here is the only way to end it but its browser's sign-out or its 12 hours.
 */
export async function listSessions(sql: Sql, workspaceId: string): Promise<{ sessions: SessionListing[]; live: number }> {
  const rows = await sql<(SessionListing & { live: number })[]>`
    select s.id_hash, coalesce(p.title, s.principal_id) as principal, s.scope, s.token_id, s.created_at, s.expires_at,
           count(*) over ()::int as live
      from doco.console_sessions s
      left join doco.nodes p on p.id = s.principal_id
      left join doco.tokens t on t.id = s.token_id
     where s.workspace_id = ${workspaceId} and s.expires_at > now() and s.signed_out_at is null
       and (s.token_id is null or t.revoked_at is null)
     order by s.created_at desc, s.id_hash
     limit ${SESSIONS_SHOWN}`;
  return { sessions: rows.map(({ live: _live, ...s }) => s), live: rows[0]?.live ?? 0 };
}

/** Ends a live session of this workspace by the hash it is stored by (another workspace's is not found). */
export async function endSessionByHash(sql: Sql, workspaceId: string, idHash: string): Promise<void> {
  const ended = await sql`
    update doco.console_sessions set signed_out_at = now()
     where id_hash = ${idHash} and workspace_id = ${workspaceId} and signed_out_at is null and expires_at > now()`;
  if (ended.count === 0) throw new AppError('not_found', 'no live console session of this workspace has that id');
}
