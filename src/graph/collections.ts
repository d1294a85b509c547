// Collections and the templates they are made from.
import type { Db } from '../db/connect.js';
import type { Policy } from '../db/schema.js';
import { fromDatabaseError } from '../db/sqlstate.js';
import { AppError } from '../errors.js';
import { refuseSecretsInFields } from './secrets-guard.js';
import { newId } from '../lib/ids.js';
import type { CollectionInput } from './schemas.js';

export interface TemplateView {
  slug: string;
  name: string;
  description: string;
  allowed_types: string[];
  policies: Policy[];
  default_goal: string;
}

export interface CollectionView {
  id: string;
  slug: string;
  name: string;
  template: string;
  goal: string;
  allowed_types: string[];
  policies: Policy[];
  /** true / false: agents' writes go live / wait for review here; null: the workspace decides. */
  agents_may_activate: boolean | null;
  /** A create very close to an active record here: warn (a verdict) or block (conflict). */
  duplicates: 'warn' | 'block';
  created_at: Date;
}

export async function listTemplates(db: Db): Promise<TemplateView[]> {
  return db.selectFrom('doco.templates').selectAll().orderBy('slug').execute();
}

const collectionColumns = [
  'c.id',
  'c.slug',
  'c.name',
  'c.template',
  'c.goal',
  'c.agents_may_activate',
  'c.duplicates',
  'c.created_at',
  't.allowed_types',
  't.policies',
] as const;

export async function listCollections(db: Db, workspaceId: string): Promise<CollectionView[]> {
  return db
    .selectFrom('doco.collections as c')
    .innerJoin('doco.templates as t', 't.slug', 'c.template')
    .select(collectionColumns)
    .where('c.workspace_id', '=', workspaceId)
    .orderBy('c.slug')
    .execute();
}

export async function findCollection(db: Db, workspaceId: string, slug: string): Promise<CollectionView | undefined> {
  return db
    .selectFrom('doco.collections as c')
    .innerJoin('doco.templates as t', 't.slug', 'c.template')
    .select(collectionColumns)
    .where('c.workspace_id', '=', workspaceId)
    .where('c.slug', '=', slug)
    .executeTakeFirst();
}

export async function getCollection(db: Db, workspaceId: string, slug: string): Promise<CollectionView> {
  const found = await findCollection(db, workspaceId, slug);
  if (!found) throw new AppError('not_found', `collection ${slug} does not exist in this workspace`);
  return found;
}

export async function createCollection(db: Db, workspaceId: string, input: CollectionInput): Promise<CollectionView> {
  // The goal is shown in every brief that targets the collection: no credential in it either.
  refuseSecretsInFields({ goal: input.goal, name: input.name }, 'collection');
  const template = await db.selectFrom('doco.templates').select('slug').where('slug', '=', input.template).executeTakeFirst();
  if (!template) {
    const known = (await listTemplates(db)).map((t) => t.slug);
    throw new AppError('validation_failed', `template ${input.template} does not exist`, { templates: known });
  }
  if (await findCollection(db, workspaceId, input.slug)) {
    throw new AppError('conflict', `collection ${input.slug} already exists in this workspace`);
  }
  if (input.template === 'constitution') {
    const existing = await db
      .selectFrom('doco.collections')
      .select('slug')
      .where('workspace_id', '=', workspaceId)
      .where('template', '=', 'constitution')
      .executeTakeFirst();
    if (existing)
      throw new AppError('conflict', `this workspace already has its constitution (${existing.slug}); there is one per workspace`);
  }
  // The checks above answer the common case kindly; the unique indexes decide a race, and the
  // loser gets the same answer.
  await db
    .insertInto('doco.collections')
    .values({
      id: newId('collection'),
      workspace_id: workspaceId,
      slug: input.slug,
      template: input.template,
      name: input.name ?? input.slug,
      goal: input.goal,
      duplicates: input.duplicates ?? 'warn',
    })
    .execute()
    .catch((err: { code?: string; constraint_name?: string }) => {
      if (err?.code !== '23505') throw err;
      if (err.constraint_name === 'collections_one_constitution') {
        throw new AppError('conflict', 'this workspace already has its constitution; there is one per workspace');
      }
      throw new AppError('conflict', `collection ${input.slug} already exists in this workspace`);
    });
  return getCollection(db, workspaceId, input.slug);
}

/**
 * The collection `input.slug`, made from `input.template` on first use, which must take
 * `reference` records (the doc ingester's sections, a connector's items). A concurrent first
 * use is fine: whoever loses the create finds the winner's collection.
 */
export async function ensureReferenceCollection(db: Db, workspaceId: string, input: CollectionInput, hint = ''): Promise<CollectionView> {
  let found = await findCollection(db, workspaceId, input.slug);
  if (!found) {
    try {
      found = await createCollection(db, workspaceId, input);
    } catch (err) {
      const appErr = err instanceof AppError ? err : fromDatabaseError(err);
      if (appErr?.code !== 'conflict') throw err;
      found = await findCollection(db, workspaceId, input.slug);
    }
  }
  if (!found) throw new AppError('not_found', `collection ${input.slug} could not be made`);
  if (!found.allowed_types.includes('reference')) {
    throw new AppError(
      'validation_failed',
      `collection ${input.slug} (template ${found.template}) does not take reference records${hint ? `: ${hint}` : ''}`,
    );
  }
  return found;
}
