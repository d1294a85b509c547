// Search without a running server: this command owns the embedded index for its duration —
// it loads the snapshot, catches up with Postgres, indexes what the outbox holds, runs, saves.
import type { Db, DbHandles, Sql } from '../db/connect.js';
import type { WriteContext } from '../graph/apply-changeset.js';
import { makeLog } from '../lib/log.js';
import { makeSearchProviders, type SearchProviders } from '../providers/from-config.js';
import { drainOutbox, type DrainReport } from '../indexing/drain.js';
import { openIndexSession } from '../indexing/index-session.js';
import { cliReadContext, withDatabase, type CliEnv } from './context.js';

export interface LocalSearch extends SearchProviders {
  sql: Sql;
  db: Db;
  drained: DrainReport;
}

export async function withLocalSearch<T>(env: CliEnv, fn: (deps: LocalSearch) => Promise<T>): Promise<T> {
  return withDatabase(env, (handles) => searchOn(env, handles, fn));
}

/**
 * A read of one workspace (brief, search, align): the workspace must exist (cliReadContext), and
 * is looked up before the index loads, so naming one that does not costs nothing.
 */
export async function withLocalRead<T>(
  env: CliEnv,
  workspace: string,
  fn: (deps: LocalSearch, ctx: WriteContext) => Promise<T>,
): Promise<T> {
  return withDatabase(env, async (handles) => {
    const ctx = await cliReadContext(handles, workspace);
    return searchOn(env, handles, (deps) => fn(deps, ctx));
  });
}

async function searchOn<T>(env: CliEnv, { sql, db }: Pick<DbHandles, 'sql' | 'db'>, fn: (deps: LocalSearch) => Promise<T>): Promise<T> {
  const providers = await makeSearchProviders(env.config);
  const log = makeLog('warn');
  const index = await openIndexSession({ sql, log, ...providers });
  try {
    const drained = await drainOutbox({ sql, log, ...providers });
    index.drained(drained);
    return await fn({ sql, db, drained, ...providers });
  } finally {
    await index.close();
  }
}
