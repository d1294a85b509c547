// Brings the embedded index in line with Postgres at start-up: load the snapshot, embed and add
// chunks written since its watermark, drop points Postgres no longer has, and queue records
// whose chunks were made by another embedder (a new embedder re-embeds everything).
import type { Sql } from '../db/connect.js';
import { pointsOf, type StoredChunk } from './stored-chunk.js';
import type { Embedder } from '../providers/embedder.js';
import type { Log } from '../runtime/log.js';
import type { EmbeddedStore } from './embedded-store.js';

interface ChunkRow extends StoredChunk {
  seq: string;
}

export interface SyncReport {
  loadedSnapshot: boolean;
  added: number;
  removed: number;
  requeued: number;
}

export async function syncEmbeddedIndex(deps: { sql: Sql; embedder: Embedder; store: EmbeddedStore; log: Log }): Promise<SyncReport> {
  const { sql, embedder, store } = deps;
  const loadedSnapshot = await store.loadSnapshot();
  const requeued = await sql`
    insert into doco.outbox (node_id, workspace_id)
    select distinct c.node_id, c.workspace_id from doco.chunks c
     where c.embedder <> ${embedder.identity}
       and not exists (select 1 from doco.outbox o where o.node_id = c.node_id)`;
  let added = 0;
  let after = store.watermark;
  for (;;) {
    const rows = await sql<ChunkRow[]>`
      select c.id::text, c.workspace_id, c.collection_id, c.node_id, c.node_type, c.shape, c.source_kind, c.embed_input, c.body, c.seq::text
        from doco.chunks c where c.embedder = ${embedder.identity} and c.seq > ${after}
       order by c.seq limit 2000`; // c.seq: a bare "seq" would sort by the text column above ('10' < '9')
    if (rows.length === 0) break;
    const points = await pointsOf(embedder, rows);
    await store.upsert(points);
    added += points.length;
    after = Number(rows[rows.length - 1]!.seq);
  }
  store.watermark = after;
  const known = new Set((await sql<{ id: string }[]>`select id::text from doco.chunks where embedder = ${embedder.identity}`).map((r) => r.id));
  const stale = store.ids().filter((id) => !known.has(id));
  if (stale.length) await store.remove(stale);
  if (added || stale.length || !loadedSnapshot) await store.save();
  deps.log.info(`embedded index: ${loadedSnapshot ? 'snapshot loaded' : 'built from Postgres'}, ${added} chunk(s) added, ${stale.length} removed, ${requeued.count} record(s) queued for re-embedding`);
  return { loadedSnapshot, added, removed: stale.length, requeued: requeued.count };
}
