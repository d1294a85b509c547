// The doc ingester's SQL: the per-source lock, the manifest, record writes through changesets
// (source 'ingest') and the reap's retirement. The runs table is runs.ts.
import type { ReservedSql } from 'postgres';
import type { Sql } from '../../db/connect.js';
import { newId } from '../../lib/ids.js';
import { newChangeset, openChangeset } from '../../graph/open-changeset.js';
import type { ManifestKey } from './reap.js';
import type { IngestSource } from './types.js';

/** The advisory-lock class (first key of the two-key form) an ingest run holds its source under. */
const INGEST_LOCK_CLASS = 0x696e67; // "ing"

export interface ManifestEntry extends ManifestKey {
  hash: string;
  /** The record's lifecycle; null when the record is gone. */
  lifecycle: string | null;
}

export interface RecordContent {
  collection_id: string;
  title: string;
  prose: string;
  body: Record<string, unknown>;
}

/** One section's write: a new record (`nodeId` unset), or an update in place. */
export interface SectionWrite {
  section_key: string;
  path: string;
  hash: string;
  content: RecordContent;
  nodeId?: string;
}

export interface RunScope {
  workspaceId: string;
  principalId: string;
  source: IngestSource;
}

/**
 * Runs `fn` holding the (workspace, source) lock on the run's connection for the whole run, so
 * two ingests of one source never interleave: the second waits, then finds the first's manifest
 * (and skips). A session lock, as the run commits in batches; a crash closes the connection and
 * so frees the lock.
 */
export async function withSourceLock<T>(conn: ReservedSql, scope: RunScope, fn: () => Promise<T>): Promise<T> {
  await conn`select pg_advisory_lock(${INGEST_LOCK_CLASS}, hashtext(${scope.workspaceId} || '/' || ${scope.source}))`;
  try {
    return await fn();
  } finally {
    await conn`select pg_advisory_unlock(${INGEST_LOCK_CLASS}, hashtext(${scope.workspaceId} || '/' || ${scope.source}))`;
  }
}

export async function loadManifest(conn: Sql, scope: RunScope): Promise<ManifestEntry[]> {
  // Each record read by its primary key. A join let the planner carry the workspace over to
  // doco.nodes and, with the manifest not yet analysed after a first run (its statistics said
  // empty), walk every record of the workspace once per manifest row: 10 s for a rerun of
  // 5,493 sections in a workspace among 100k records.
  return conn<ManifestEntry[]>`
    select m.section_key, m.path, m.hash, m.node_id,
           (select n.lifecycle::text from doco.nodes n where n.id = m.node_id and n.workspace_id = m.workspace_id) as lifecycle
      from doco.doc_manifest m
     where m.workspace_id = ${scope.workspaceId} and m.source = ${scope.source}
     order by m.section_key`;
}

/**
 * A transaction on the run's reserved connection (postgres.js's begin() is the pool's). On
 * failure the original error is rethrown; a rollback that fails too has lost its connection,
 * which Postgres rolls back anyway.
 */
async function inTransaction(conn: Sql, fn: (tx: Sql) => Promise<void>): Promise<void> {
  await conn`begin`;
  try {
    await fn(conn);
    await conn`commit`;
  } catch (err) {
    await conn`rollback`.catch(() => undefined);
    throw err;
  }
}

/** Opens a changeset in this transaction: its row, and the setting the version triggers read. */
const openIngestChangeset = (tx: Sql, scope: RunScope, summary: string) =>
  openChangeset(tx, newChangeset({ workspaceId: scope.workspaceId, actorId: scope.principalId, source: 'ingest', summary }));

/**
 * Writes one batch of sections and their manifest rows in one transaction (one changeset): one
 * insert for the new records, one update for the changed ones, one upsert of the manifest. Every
 * row still passes the tables' row triggers; a statement per section cost a round trip and a
 * statement's overhead each (docs/eval.md, "Writes and upkeep").
 */
export async function writeSections(conn: Sql, scope: RunScope, writes: SectionWrite[], summary: string): Promise<void> {
  await inTransaction(conn, async (tx) => {
    await openIngestChangeset(tx, scope, summary);
    const rows = writes.map((w) => ({ ...w, nodeId: w.nodeId ?? newId('reference'), isNew: !w.nodeId }));
    const contentOf = (r: (typeof rows)[number]) => ({ id: r.nodeId, collection_id: r.content.collection_id, title: r.content.title, prose: r.content.prose, body: r.content.body });
    const created = rows.filter((r) => r.isNew).map(contentOf);
    const updated = rows.filter((r) => !r.isNew).map(contentOf);
    if (created.length)
      await tx`
        insert into doco.nodes (id, workspace_id, collection_id, node_type, lifecycle, title, prose, body, principal_id)
        select r.id, ${scope.workspaceId}, r.collection_id, 'reference', 'active', r.title, r.prose, r.body, ${scope.principalId}
          from rows from (jsonb_to_recordset(${tx.json(created as never)}::jsonb) as (id text, collection_id text, title text, prose text, body jsonb))
               with ordinality as r(id, collection_id, title, prose, body, ord)
         order by r.ord`;
    if (updated.length)
      await tx`
        update doco.nodes n set collection_id = r.collection_id, title = r.title, prose = r.prose, body = r.body
          from jsonb_to_recordset(${tx.json(updated as never)}::jsonb) as r(id text, collection_id text, title text, prose text, body jsonb)
         where n.id = r.id and n.workspace_id = ${scope.workspaceId}`;
    const manifest = rows.map((r) => ({ workspace_id: scope.workspaceId, source: scope.source, section_key: r.section_key, path: r.path, hash: r.hash, node_id: r.nodeId }));
    await tx`
      insert into doco.doc_manifest ${tx(manifest)}
      on conflict (workspace_id, source, section_key) do update
        set path = excluded.path, hash = excluded.hash, node_id = excluded.node_id, updated_at = now()`;
  });
}

/** The reap: retires the keys' live records (history stays readable) and drops their manifest rows. */
export async function retireSections(conn: Sql, scope: RunScope, keys: ManifestKey[], summary: string): Promise<void> {
  await inTransaction(conn, async (tx) => {
    await openIngestChangeset(tx, scope, summary);
    await tx`
      update doco.nodes set lifecycle = 'retired'
       where workspace_id = ${scope.workspaceId} and id = any(${keys.map((k) => k.node_id)}) and lifecycle <> 'retired'`;
    await tx`
      delete from doco.doc_manifest
       where workspace_id = ${scope.workspaceId} and source = ${scope.source} and section_key = any(${keys.map((k) => k.section_key)})`;
  });
}
