// Search without a running server: this command owns the embedded index for its duration —
// it loads the snapshot, catches up with Postgres, indexes what the outbox holds, runs, saves.
import type { Db, Sql } from '../db/connect.js';
import { makeLog } from '../runtime/log.js';
import { makeSearchProviders, type SearchProviders } from '../runtime/providers.js';
import { drainOutbox, type DrainReport } from '../search/drain.js';
import type { EmbeddedStore } from '../search/embedded-store.js';
import { syncEmbeddedIndex } from '../search/index-sync.js';
import { withDatabase, type CliEnv } from './context.js';

export interface LocalSearch extends SearchProviders {
  sql: Sql;
  db: Db;
  drained: DrainReport;
}

export async function withLocalSearch<T>(env: CliEnv, fn: (deps: LocalSearch) => Promise<T>): Promise<T> {
  return withDatabase(env, async ({ sql, db }) => {
    const providers = makeSearchProviders(env.config);
    const log = makeLog('warn');
    await providers.store.init(providers.embedder.identity, providers.embedder.dimensions);
    const embedded = providers.store.kind === 'embedded' ? (providers.store as EmbeddedStore) : undefined;
    if (embedded) await syncEmbeddedIndex({ sql, embedder: providers.embedder, store: embedded, log });
    const drained = await drainOutbox({ sql, log, ...providers });
    try {
      return await fn({ sql, db, drained, ...providers });
    } finally {
      if (embedded && (drained.chunksEmbedded || drained.chunksRemoved)) {
        embedded.watermark = Math.max(embedded.watermark, drained.maxSeq);
        await embedded.save();
      }
      await providers.store.close();
    }
  });
}
