// Listing and revoking a workspace's tokens (the console's token page). Creating one is
// createToken (tokens.ts); a token's value is never stored, so it is shown once, at creation.
import type { Sql } from '../db/connect.js';
import { AppError } from '../errors.js';
import type { Scope } from './tokens.js';

export interface TokenListing {
  id: string;
  label: string | null;
  scope: Scope;
  principal_id: string;
  principal: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  /** The token that minted this one, and how many live tokens this one minted, directly or through them. */
  minted_by: string | null;
  minted_live: number;
}

/** Tokens a page of the list shows. */
export const TOKENS_PAGE = 100;

/**
 * A page of the workspace's tokens, live ones first, newest first, with how many there are of
 * each. The list stopped at 500 and named its length as the count: whoever held a person's write
 * token could mint 500 agent tokens and push an older one of their own off the only page that
 * revokes it (a hostile review).
 */
export async function listTokens(
  sql: Sql,
  workspaceId: string,
  page = 1,
): Promise<{ tokens: TokenListing[]; live: number; revoked: number }> {
  const [tokens, [counts]] = await Promise.all([
    sql<TokenListing[]>`
      select t.id, t.label, t.scope, t.principal_id, coalesce(p.title, t.principal_id) as principal,
             t.created_at, t.last_used_at, t.revoked_at, t.minted_by,
             (select count(*)::int from doco.tokens_minted_from(t.id) m where m.revoked_at is null) as minted_live
        from doco.tokens t left join doco.nodes p on p.id = t.principal_id
       where t.workspace_id = ${workspaceId}
       order by t.revoked_at is not null, t.created_at desc, t.id
       limit ${TOKENS_PAGE} offset ${(page - 1) * TOKENS_PAGE}`,
    sql<{ live: number; revoked: number }[]>`
      select count(*) filter (where revoked_at is null)::int as live, count(*) filter (where revoked_at is not null)::int as revoked
        from doco.tokens where workspace_id = ${workspaceId}`,
  ]);
  return { tokens, live: counts!.live, revoked: counts!.revoked };
}

/**
 * Revokes a live token of this workspace (another workspace's token is not found) and, with
 * `withMinted`, every live token it minted, directly or through them (also when it is itself
 * already revoked); returns whether it went itself, and how many it minted went with it.
 * Not by default: a person's token that installed agents' hooks minted their tokens, and rotating
 * it must not stop them; a leaked one is revoked with what it made.
 */
export async function revokeToken(
  sql: Sql,
  workspaceId: string,
  id: string,
  opts: { withMinted?: boolean } = {},
): Promise<{ itself: boolean; minted: number }> {
  const [row] = await sql<{ revoked_at: Date | null; minted_live: number }[]>`
    select revoked_at, (select count(*)::int from doco.tokens_minted_from(t.id) m where m.revoked_at is null) as minted_live
      from doco.tokens t where id = ${id} and workspace_id = ${workspaceId}`;
  if (!row) throw new AppError('not_found', `token ${id} does not exist in this workspace`);
  // A token already revoked (by hand, or when its principal was retired) may still have live
  // tokens it minted: `withMinted` revokes those (a hostile review found the leaver's agents'
  // tokens out of reach once the leaver's own was revoked).
  if (row.revoked_at && !(opts.withMinted && row.minted_live > 0))
    throw new AppError(
      'conflict',
      `token ${id} is already revoked${row.minted_live ? `: revoke it with the ${row.minted_live} live tokens it minted` : ''}`,
    );
  const revoked = await sql<{ id: string }[]>`
    update doco.tokens set revoked_at = now()
     where workspace_id = ${workspaceId} and revoked_at is null
       and (id = ${id} ${opts.withMinted ? sql`or id in (select m.id from doco.tokens_minted_from(${id}) m)` : sql``})
    returning id`;
  const itself = revoked.some((r) => r.id === id);
  return { itself, minted: revoked.length - (itself ? 1 : 0) };
}
