// Workspaces and the principals that write in them.
import { sql as kyselySql } from 'kysely';
import type { Db, Sql } from '../db/connect.js';
import type { Source } from '../db/schema.js';
import { newId } from '../lib/ids.js';
import { checkPrincipalName } from './principal-name.js';

/** The workspace id for a slug; made (with its constitution and people collections) if missing. */
export async function ensureWorkspace(sql: Sql, slug: string): Promise<string> {
  const [row] = await sql<{ id: string }[]>`select doco.ensure_workspace(${slug}) as id`;
  return row!.id;
}

export async function findWorkspace(db: Db, slug: string): Promise<{ id: string; slug: string } | undefined> {
  return db.selectFrom('doco.workspaces').select(['id', 'slug']).where('slug', '=', slug).executeTakeFirst();
}

/** The slugs of the first `limit` workspaces by slug, and whether there are more. */
export async function listWorkspaceSlugs(db: Db, limit: number): Promise<{ slugs: string[]; more: boolean }> {
  const rows = await db
    .selectFrom('doco.workspaces')
    .select('slug')
    .orderBy('slug')
    .limit(limit + 1)
    .execute();
  return { slugs: rows.slice(0, limit).map((r) => r.slug), more: rows.length > limit };
}

/**
 * The principal record with this name in the workspace's people collection, made if missing. A
 * name that breaks the rule of auth/principal-name.ts is validation_failed, found or not.
 */
export async function ensurePrincipal(db: Db, workspaceId: string, name: string, source: Source): Promise<string> {
  checkPrincipalName(name);
  const found = await db
    .selectFrom('doco.nodes')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('node_type', '=', 'principal')
    .where('lifecycle', '!=', 'retired')
    .where(kyselySql`lower(title)`, '=', name.toLowerCase())
    .executeTakeFirst();
  if (found) return found.id;
  return db.transaction().execute(async (trx) => {
    const people = await trx
      .selectFrom('doco.collections')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .where('slug', '=', 'people')
      .executeTakeFirstOrThrow();
    // Opened as graph/open-changeset.ts opens one (which this layer cannot import), with no actor:
    // the principal is what this changeset makes.
    const changeset = { id: newId('changeset'), workspace_id: workspaceId, actor_id: null, source, summary: `principal ${name}` };
    await kyselySql`select doco.open_changeset(${JSON.stringify(changeset)}::text::jsonb)`.execute(trx);
    const id = newId('principal');
    const inserted = await trx
      .insertInto('doco.nodes')
      .values({
        id,
        workspace_id: workspaceId,
        collection_id: people.id,
        node_type: 'principal',
        lifecycle: 'active',
        title: name,
        prose: '',
        body: {},
        principal_id: null,
      })
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .executeTakeFirst();
    if (inserted) return inserted.id;
    // A concurrent call made it first (a retired principal of that name is not it).
    const winner = await trx
      .selectFrom('doco.nodes')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .where('node_type', '=', 'principal')
      .where('lifecycle', '!=', 'retired')
      .where(kyselySql`lower(title)`, '=', name.toLowerCase())
      .executeTakeFirstOrThrow();
    return winner.id;
  });
}
