// The setting that decides whether agents' writes wait for a person: `agents_may_activate` on a
// collection (true, false, or null to follow the workspace) and on the workspace (default
// false). sql/agent_review.sql reads it on every write; a person changes it here, through
// PATCH /api/v1/collections/:slug, PATCH /api/v1/workspace or `doco collection|workspace set`.
import { isAgentName } from '../auth/principal-name.js';
import type { Db } from '../db/connect.js';
import { AppError } from '../errors.js';
import { getCollection, type CollectionView } from './collections.js';

/** An agent may not lift the review its own writes wait for. */
export function refuseAgent(principalName: string): void {
  if (isAgentName(principalName))
    throw new AppError('forbidden', `${principalName} is an agent: only a person changes whether agents' writes wait for review`);
}

export async function setCollectionAgentsMayActivate(
  db: Db,
  workspaceId: string,
  slug: string,
  value: boolean | null,
): Promise<CollectionView> {
  await getCollection(db, workspaceId, slug);
  await db
    .updateTable('doco.collections')
    .set({ agents_may_activate: value })
    .where('workspace_id', '=', workspaceId)
    .where('slug', '=', slug)
    .execute();
  return getCollection(db, workspaceId, slug);
}

export interface WorkspaceSettings {
  slug: string;
  agents_may_activate: boolean;
}

export async function getWorkspaceSettings(db: Db, workspaceId: string): Promise<WorkspaceSettings> {
  return db.selectFrom('doco.workspaces').select(['slug', 'agents_may_activate']).where('id', '=', workspaceId).executeTakeFirstOrThrow();
}

export async function setWorkspaceAgentsMayActivate(db: Db, workspaceId: string, value: boolean): Promise<WorkspaceSettings> {
  await db.updateTable('doco.workspaces').set({ agents_may_activate: value }).where('id', '=', workspaceId).execute();
  return getWorkspaceSettings(db, workspaceId);
}
