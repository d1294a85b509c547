// Reading records, their edges and their history, always within one workspace.
import type { Db } from '../db/connect.js';
import { AppError } from '../errors.js';
import { EDGES_PAGE, VERSIONS_PAGE, VERSIONS_PAGE_CHARS } from './limits.js';

export interface NodeView {
  id: string;
  node_type: string;
  collection: string;
  lifecycle: string;
  title: string;
  prose: string;
  body: Record<string, unknown>;
  version: number;
  hash: string;
  prev_hash: string | null;
  pagerank: number;
  principal_id: string | null;
  changeset_id: string;
  created_at: Date;
  updated_at: Date;
}

export interface EdgeView {
  id: string;
  edge_type: string;
  from: string;
  to: string;
  lifecycle: string;
  version: number;
  hash: string;
  changeset_id: string;
  updated_at: Date;
}

export interface NodeVersionView extends Omit<NodeView, 'pagerank' | 'created_at' | 'updated_at'> {
  recorded_at: Date;
  source: string;
  actor_id: string | null;
}

export async function findNodes(db: Db, workspaceId: string, ids: string[]): Promise<NodeView[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('doco.nodes as n')
    .innerJoin('doco.collections as c', 'c.id', 'n.collection_id')
    .leftJoin('doco.node_ranks as r', 'r.node_id', 'n.id')
    .select(({ fn, lit }) => [
      'n.id',
      'n.node_type',
      'c.slug as collection',
      'n.lifecycle',
      'n.title',
      'n.prose',
      'n.body',
      'n.version',
      'n.hash',
      'n.prev_hash',
      fn.coalesce('r.pagerank', lit(0)).as('pagerank'),
      'n.principal_id',
      'n.changeset_id',
      'n.created_at',
      'n.updated_at',
    ])
    .where('n.workspace_id', '=', workspaceId)
    .where('n.id', 'in', ids)
    .execute();
}

/** Those of `ids` that `principalId` wrote a version of (created or revised), in this workspace. */
export async function idsWrittenBy(db: Db, workspaceId: string, ids: string[], principalId: string): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('doco.node_versions')
    .select('node_id')
    .distinct()
    .where('workspace_id', '=', workspaceId)
    .where('node_id', 'in', ids)
    .where('principal_id', '=', principalId)
    .execute();
  return new Set(rows.map((r) => r.node_id));
}

export async function getNode(db: Db, workspaceId: string, id: string): Promise<NodeView> {
  const [node] = await findNodes(db, workspaceId, [id]);
  if (!node) throw new AppError('not_found', `record ${id} does not exist in this workspace`);
  return node;
}

export interface EdgesPage {
  /** The record's edges in the order they were made, the first `limit` after `after` (or from the first). */
  edges: EdgeView[];
  /** The record's edges in all. */
  edge_count: number;
  /** Pass back as `after` to read the next edges; null when these are the last. */
  edges_after: string | null;
}

/**
 * One page of a record's edges, in and out. A record may have any number (an agent's hub had
 * 20,000: every read of it answered 7 MB, the console 3.5 MB of HTML), so they are read a page at a time.
 */
export async function edgesOfNode(
  db: Db,
  workspaceId: string,
  id: string,
  page: { limit?: number; after?: string } = {},
): Promise<EdgesPage> {
  const limit = Math.min(page.limit ?? EDGES_PAGE.default, EDGES_PAGE.max);
  const touching = db
    .selectFrom('doco.edges')
    .where('workspace_id', '=', workspaceId)
    .where((eb) => eb.or([eb('from_id', '=', id), eb('to_id', '=', id)]));
  const [count, rows] = await Promise.all([
    touching.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirst(),
    touching
      .select(['id', 'edge_type', 'from_id as from', 'to_id as to', 'lifecycle', 'version', 'hash', 'changeset_id', 'updated_at'])
      .$if(page.after !== undefined, (q) =>
        q.where(
          (eb) => eb.refTuple('created_at', 'id'),
          '>',
          (eb) =>
            eb
              .selectFrom('doco.edges as a')
              .select(['a.created_at', 'a.id'])
              .where('a.id', '=', page.after!)
              .where('a.workspace_id', '=', workspaceId) as never,
        ),
      )
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit + 1)
      .execute(),
  ]);
  const more = rows.length > limit;
  const edges = more ? rows.slice(0, limit) : rows;
  return { edges, edge_count: Number(count?.n ?? 0), edges_after: more ? edges.at(-1)!.id : null };
}

export async function getEdge(db: Db, workspaceId: string, id: string): Promise<EdgeView> {
  const edge = await db
    .selectFrom('doco.edges')
    .select(['id', 'edge_type', 'from_id as from', 'to_id as to', 'lifecycle', 'version', 'hash', 'changeset_id', 'updated_at'])
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!edge) throw new AppError('not_found', `edge ${id} does not exist in this workspace`);
  return edge;
}

function versionsQuery(db: Db, workspaceId: string, id: string) {
  return db
    .selectFrom('doco.node_versions as v')
    .innerJoin('doco.collections as c', 'c.id', 'v.collection_id')
    .innerJoin('doco.changesets as cs', 'cs.id', 'v.changeset_id')
    .select([
      'v.node_id as id',
      'v.version',
      'v.node_type',
      'c.slug as collection',
      'v.lifecycle',
      'v.title',
      'v.prose',
      'v.body',
      'v.hash',
      'v.prev_hash',
      'v.principal_id',
      'v.changeset_id',
      'v.recorded_at',
      'cs.source',
      'cs.actor_id',
    ])
    .where('v.workspace_id', '=', workspaceId)
    .where('v.node_id', '=', id);
}

export interface VersionsPage {
  /** The newest `limit` versions before `before` (all: before none), oldest first. */
  versions: NodeVersionView[];
  /** The record's versions in all. */
  version_count: number;
  /** Pass back as `before` to read the versions older than these; null when these reach version 1. */
  before: number | null;
}

/**
 * One page of a record's history. `withPrevious` also returns the version just before the page
 * (to show what the page's oldest changed), not counted in it.
 */
export async function listNodeVersions(
  db: Db,
  workspaceId: string,
  id: string,
  page: { limit?: number; before?: number; withPrevious?: boolean } = {},
): Promise<VersionsPage & { previous?: NodeVersionView }> {
  const limit = Math.min(page.limit ?? VERSIONS_PAGE.default, VERSIONS_PAGE.max);
  const [count, rows] = await Promise.all([
    db
      .selectFrom('doco.node_versions')
      .select((eb) => eb.fn.max('version').as('n'))
      .where('workspace_id', '=', workspaceId)
      .where('node_id', '=', id)
      .executeTakeFirst(),
    versionsQuery(db, workspaceId, id)
      .$if(page.before !== undefined, (q) => q.where('v.version', '<', page.before!))
      .orderBy('v.version', 'desc')
      .limit(limit + (page.withPrevious ? 1 : 0))
      .execute(),
  ]);
  const versionCount = count?.n ?? 0;
  if (versionCount === 0) throw new AppError('not_found', `record ${id} does not exist in this workspace`);
  // Newest first, while the page's text stays within VERSIONS_PAGE_CHARS (one version at least).
  let kept = 0;
  let chars = 0;
  while (kept < Math.min(limit, rows.length)) {
    const row = rows[kept]!;
    const size = (row.prose?.length ?? 0) + JSON.stringify(row.body ?? null).length;
    if (kept > 0 && chars + size > VERSIONS_PAGE_CHARS) break;
    chars += size;
    kept++;
  }
  const previous = page.withPrevious ? rows[kept] : undefined;
  const versions = rows.slice(0, kept).reverse();
  const oldest = versions[0]?.version;
  return {
    versions,
    version_count: versionCount,
    before: oldest !== undefined && oldest > 1 ? oldest : null,
    ...(previous ? { previous } : {}),
  };
}

export async function getNodeVersion(db: Db, workspaceId: string, id: string, version: number): Promise<NodeVersionView> {
  const found = await versionsQuery(db, workspaceId, id).where('v.version', '=', version).executeTakeFirst();
  if (!found) throw new AppError('not_found', `record ${id} has no version ${version} in this workspace`);
  return found;
}

/** Whether an id names an edge (ids carry their kind: `edge_…`, src/lib/ids.ts). */
export const isEdgeId = (id: string) => id.startsWith('edge_');

/** The lifecycle of each of `ids` that is an edge of the workspace. */
export async function findEdgeLifecycles(db: Db, workspaceId: string, ids: string[]): Promise<{ id: string; lifecycle: string }[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('doco.edges').select(['id', 'lifecycle']).where('workspace_id', '=', workspaceId).where('id', 'in', ids).execute();
}
