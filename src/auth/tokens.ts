// Bearer tokens: random, shown once, stored as sha256 hashes, each bound to one workspace,
// one principal and a scope (read or write).
import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../db/connect.js';
import { newId } from '../graph/ids.js';

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

/** A principal named `agent:…` is an agent: its writes land as queued (sql/agent_review.sql). */
export const isAgentName = (name: string) => name.startsWith('agent:');

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export async function createToken(db: Db, opts: { workspaceId: string; principalId: string; scope: Scope; label?: string }): Promise<string> {
  const token = `doco_${randomBytes(24).toString('base64url')}`;
  await db
    .insertInto('doco.tokens')
    .values({ id: newId('token'), workspace_id: opts.workspaceId, principal_id: opts.principalId, scope: opts.scope, token_hash: hashToken(token), label: opts.label ?? null, revoked_at: null })
    .execute();
  return token;
}

export async function authenticate(db: Db, token: string): Promise<AuthContext | undefined> {
  const row = await db
    .selectFrom('doco.tokens as t')
    .innerJoin('doco.workspaces as w', 'w.id', 't.workspace_id')
    .innerJoin('doco.nodes as p', 'p.id', 't.principal_id')
    .select(['t.id', 't.workspace_id', 'w.slug', 't.principal_id', 't.scope', 'p.title as principal_name'])
    .where('t.token_hash', '=', hashToken(token))
    .where('t.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  return { tokenId: row.id, workspaceId: row.workspace_id, workspaceSlug: row.slug, principalId: row.principal_id, principalName: row.principal_name, scope: row.scope };
}
