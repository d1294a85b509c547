// Brings the embedded index in line with Postgres at start-up: load the snapshot, embed and add
// chunks written since its watermark, drop points Postgres no longer has, and queue records
// whose chunks were made by another embedder or BM25 tokenizer (a new one re-indexes everything).
import type { Sql } from '../db/connect.js';
import { pointsOf, type StoredChunk } from './stored-chunk.js';
import type { Embedder } from '../providers/embedder.js';
import type { Log } from '../lib/log.js';
import type { EmbeddedStore } from '../providers/vector/embedded/store.js';
import type { SnapshotOrigin } from '../providers/vector/embedded/snapshot.js';
import { TOKENIZER_VERSION } from '../text/tokenize.js';

interface ChunkRow extends StoredChunk {
  seq: string;
}

export interface SyncReport {
  loadedSnapshot: boolean;
  added: number;
  removed: number;
  requeued: number;
}

/**
 * Queues, once each, the records whose chunks another embedder or an older BM25 tokenizer made:
 * their next drain re-chunks them (the content hash covers both), so an upgrade re-indexes
 * itself. Every store needs this at start-up, the embedded index and Qdrant alike.
 */
export async function requeueOutdatedChunks(sql: Sql, embedder: Pick<Embedder, 'identity'>): Promise<number> {
  const queued = await sql`
    insert into doco.outbox (node_id, workspace_id)
    select distinct c.node_id, c.workspace_id from doco.chunks c
     where (c.embedder <> ${embedder.identity} or c.tokenizer <> ${TOKENIZER_VERSION})
       and not exists (select 1 from doco.outbox o where o.node_id = c.node_id)`;
  return queued.count;
}

/**
 * The snapshot is this database's index as it was: made from it (doco.database_identity), and
 * not past its newest chunk. Another database's snapshot served none of this one's records under
 * its watermark, and one ahead of the chunks (the database restored from a backup) held text the
 * database no longer has and skipped the chunks written since under the same numbers.
 */
async function snapshotFits(
  sql: Sql,
  embedder: Embedder,
  log: Log,
): Promise<{ database: string; fits: (origin: SnapshotOrigin) => boolean }> {
  const [row] = await sql<{ database: string; newest: string }[]>`
    select (select id::text from doco.database_identity) as database,
           coalesce((select max(seq) from doco.chunks where embedder = ${embedder.identity}), 0)::text as newest`;
  const { database, newest } = row!;
  return {
    database,
    fits: (origin) => {
      const why =
        origin.database !== undefined && origin.database !== database
          ? 'it was made from another database'
          : origin.watermark > Number(newest)
            ? `it reaches chunk ${origin.watermark}, past this database's newest (${newest}): the database was restored or replaced`
            : undefined;
      if (why) log.warn(`embedded index: the snapshot is not used, ${why}; rebuilding it from Postgres`);
      return why === undefined;
    },
  };
}

export async function syncEmbeddedIndex(deps: { sql: Sql; embedder: Embedder; store: EmbeddedStore; log: Log }): Promise<SyncReport> {
  const { sql, embedder, store } = deps;
  const origin = await snapshotFits(sql, embedder, deps.log);
  const loadedSnapshot = await store.loadSnapshot(origin.fits);
  store.database = origin.database;
  const requeued = await requeueOutdatedChunks(sql, embedder);
  let added = 0;
  let after = store.watermark;
  for (;;) {
    const rows = await sql<ChunkRow[]>`
      select c.id::text, c.workspace_id, c.collection_id, c.node_id, c.node_type, c.shape, c.source_kind, doco.chunk_embed_input(c) as embed_input, c.body, c.seq::text,
             (select left(n.body->'pointer'->>'path', 1000) from doco.nodes n where n.id = c.node_id) as path
        from doco.chunks c where c.embedder = ${embedder.identity} and c.seq > ${after}
       order by c.seq limit 2000`; // c.seq: a bare "seq" would sort by the text column above ('10' < '9')
    if (rows.length === 0) break;
    const points = await pointsOf(embedder, rows);
    await store.upsert(points);
    added += points.length;
    after = Number(rows[rows.length - 1]!.seq);
  }
  store.watermark = after;
  const known = new Set(
    (await sql<{ id: string }[]>`select id::text from doco.chunks where embedder = ${embedder.identity}`).map((r) => r.id),
  );
  const stale = store.ids().filter((id) => !known.has(id));
  if (stale.length) await store.remove(stale);
  // A save that fails (the disk full) leaves the index served from memory, as a failed save later
  // does (index-keeper.ts): it stopped `doco serve` from starting at all (a hostile review).
  if (added || stale.length || !loadedSnapshot)
    await store
      .save()
      .catch((err: Error) =>
        deps.log.warn(
          `embedded index: saving the snapshot failed (${err.message}); the index is served from memory and saved after the next change`,
        ),
      );
  deps.log.info(
    `embedded index: ${loadedSnapshot ? 'snapshot loaded' : 'built from Postgres'}, ${added} chunk(s) added, ${stale.length} removed, ${requeued} record(s) queued for re-embedding`,
  );
  return { loadedSnapshot, added, removed: stale.length, requeued };
}
