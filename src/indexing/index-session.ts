// The one owner of a process's vector index for its lifetime: open prepares the store for the
// embedder and, for the embedded index, loads its snapshot and catches up with Postgres;
// drained() records what a drain changed (the embedded snapshot's watermark); close() saves
// what changed and closes the store. `doco serve`, the CLI's in-process search and
// `doco ingest-docs` all open their index through here, so none of them forgets a step.
import type { Sql } from '../db/connect.js';
import type { Embedder } from '../providers/embedder.js';
import type { Log } from '../lib/log.js';
import type { EmbeddedStore } from '../providers/vector/embedded/store.js';
import { requeueOutdatedChunks, syncEmbeddedIndex, type SyncReport } from './index-sync.js';
import type { VectorStore } from '../providers/vector/port.js';
import { claimEmbeddedIndex } from './index-owner.js';

export interface IndexSession {
  /** What the start-up catch-up did (embedded index only). */
  readonly sync: SyncReport | undefined;
  /** A drain changed the index up to outbox sequence `maxSeq`. */
  drained(report: { chunksEmbedded: number; chunksRemoved: number; maxSeq: number }): void;
  /** Saves the embedded snapshot when something changed since it was loaded, then closes the store. */
  close(): Promise<void>;
}

export async function openIndexSession(deps: { sql: Sql; embedder: Embedder; store: VectorStore; log: Log }): Promise<IndexSession> {
  const { store, embedder } = deps;
  const embedded = store.kind === 'embedded' ? (store as EmbeddedStore) : undefined;
  // Before anything is loaded: a second keeper of the embedded index on this database is refused.
  const owner = embedded ? await claimEmbeddedIndex(deps.sql) : undefined;
  let sync: SyncReport | undefined;
  try {
    await store.init(embedder.identity, embedder.dimensions);
    sync = embedded ? await syncEmbeddedIndex({ ...deps, store: embedded }) : undefined;
  } catch (err) {
    await owner?.release();
    throw err;
  }
  if (!embedded) {
    const requeued = await requeueOutdatedChunks(deps.sql, embedder);
    if (requeued)
      deps.log.info(`${store.kind} index: ${requeued} record(s) queued for re-indexing (another embedder or tokenizer made their chunks)`);
  }
  let changed = false;
  return {
    sync,
    drained(report) {
      if (!embedded || (!report.chunksEmbedded && !report.chunksRemoved)) return;
      embedded.watermark = Math.max(embedded.watermark, report.maxSeq);
      changed = true;
    },
    async close() {
      try {
        if (embedded && changed) await embedded.save();
      } finally {
        await store.close();
        await owner?.release();
      }
    },
  };
}
