// Bearer tokens: random, shown once, stored as sha256 hashes, each bound to one workspace,
// one principal and a scope (read or write).
import { createHash, randomBytes } from 'node:crypto';
import type { Db, Sql } from '../db/connect.js';
import { newId } from '../lib/ids.js';

export type Scope = 'read' | 'write';

export interface AuthContext {
  tokenId: string;
  workspaceId: string;
  workspaceSlug: string;
  principalId: string;
  /** The principal's name, e.g. `cli:ana` or `agent:codex@shop` (agents' writes wait for review). */
  principalName: string;
  scope: Scope;
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * The id and workspace of the token with this value, revoked or not: how a leaked token found in a
 * log is revoked without knowing its id (`doco token revoke doco_…`). Undefined when unknown.
 */
export async function tokenOfValue(sql: Sql, token: string): Promise<{ id: string; workspaceId: string } | undefined> {
  const [row] = await sql<{ id: string; workspace_id: string }[]>`
    select id, workspace_id from doco.tokens where token_hash = ${hashToken(token)}`;
  return row ? { id: row.id, workspaceId: row.workspace_id } : undefined;
}

export async function createToken(
  db: Db,
  opts: { workspaceId: string; principalId: string; scope: Scope; label?: string; mintedBy?: string | null },
): Promise<string> {
  const token = `doco_${randomBytes(24).toString('base64url')}`;
  await db
    .insertInto('doco.tokens')
    .values({
      id: newId('token'),
      workspace_id: opts.workspaceId,
      principal_id: opts.principalId,
      scope: opts.scope,
      token_hash: hashToken(token),
      label: opts.label ?? null,
      revoked_at: null,
      minted_by: opts.mintedBy ?? null,
    })
    .execute();
  return token;
}

/**
 * The token's context, or undefined when it is unknown or revoked. The same statement notes when
 * the token was last used (the console's token list shows it), at most once a minute per token,
 * so a busy agent's hooks do not rewrite its row on every request.
 */
export async function authenticate(sql: Sql, token: string): Promise<AuthContext | undefined> {
  const [row] = await sql<{ id: string; workspace_id: string; slug: string; principal_id: string; principal_name: string; scope: Scope }[]>`
    with found as (
      select t.id, t.workspace_id, w.slug, t.principal_id, p.title as principal_name, t.scope, t.last_used_at
        from doco.tokens t join doco.workspaces w on w.id = t.workspace_id join doco.nodes p on p.id = t.principal_id
       where t.token_hash = ${hashToken(token)} and t.revoked_at is null and p.lifecycle <> 'retired'
    ), touched as (
      update doco.tokens set last_used_at = now()
       where id = (select id from found) and ((select last_used_at from found) is null or (select last_used_at from found) < now() - interval '1 minute')
    )
    select id, workspace_id, slug, principal_id, principal_name, scope from found`;
  if (!row) return undefined;
  return {
    tokenId: row.id,
    workspaceId: row.workspace_id,
    workspaceSlug: row.slug,
    principalId: row.principal_id,
    principalName: row.principal_name,
    scope: row.scope,
  };
}
