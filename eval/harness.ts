// A throwaway Doco for the retrieval eval, booted as bench/harness.ts does: a fresh embedded
// Postgres in a temporary DOCO_HOME (not durable: the index is rebuilt every run), migrated,
// one workspace and principal, and the configured search providers (the local embedder —
// DOCO_LOCAL_EMBEDDER picks hash or hash+glove —, the in-process vector store and the lexical
// reranker unless the environment names hosted ones).
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config/environment.js';
import { connect, type DbHandles } from '../src/db/connect.js';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { migrate } from '../src/db/migrate.js';
import { ensurePrincipal, ensureWorkspace } from '../src/auth/workspaces.js';
import { makeSearchProviders, userCacheDir, type SearchProviders } from '../src/providers/from-config.js';

export interface EvalDoco extends DbHandles {
  workspaceId: string;
  principalId: string;
  providers: SearchProviders;
  stop(): Promise<void>;
  /** For an interrupted run: stops the cluster and removes the home without waiting on the pool. */
  abort(): Promise<void>;
}

/** Settings for a cluster nobody needs after the run. */
const THROWAWAY = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' };

export async function startEvalDoco(env: NodeJS.ProcessEnv = process.env): Promise<EvalDoco> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'doco-eval-'));
  await chmod(home, 0o755); // as root, Postgres runs as the OS user postgres and must enter it
  let cluster: Awaited<ReturnType<typeof startEmbeddedPostgres>> | undefined;
  let handles: DbHandles | undefined;
  try {
    cluster = await startEmbeddedPostgres({ home, settings: THROWAWAY });
    handles = connect(cluster.url);
    await migrate(handles.sql, { connectionString: cluster.url });
    const workspaceId = await ensureWorkspace(handles.sql, 'eval');
    const principalId = await ensurePrincipal(handles.db, workspaceId, 'eval', 'cli');
    // The provider keys and the local embedder's choice (DOCO_LOCAL_EMBEDDER) come from the
    // environment; the database and home never do. The converted word table is cached where it
    // outlives this throwaway home.
    const { DATABASE_URL: _ignored, ...rest } = env;
    const providers = await makeSearchProviders(loadConfig({ DOCO_CACHE_DIR: userCacheDir(), ...rest, DOCO_HOME: home }));
    await providers.store.init(providers.embedder.identity, providers.embedder.dimensions);
    const h = handles;
    const c = cluster;
    return {
      ...h,
      workspaceId,
      principalId,
      providers,
      async stop() {
        await providers.store.close();
        await h.close();
        await c.stop();
        await rm(home, { recursive: true, force: true });
      },
      async abort() {
        await c.stop();
        await rm(home, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await handles?.close().catch(() => {});
    await cluster?.stop().catch(() => {});
    await rm(home, { recursive: true, force: true }).catch(() => {});
    throw err;
  }
}
