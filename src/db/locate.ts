// Which Postgres Doco uses: DATABASE_URL when set, else the embedded cluster under
// $DOCO_HOME/pg, attached to when already running (e.g. by `doco serve`), adopted when a
// process killed before it could stop it left it running, or started for this process.
import type { Config } from '../config/environment.js';
import { startEmbeddedPostgres, type LeaveOutcome } from './embedded-postgres.js';

export interface DatabaseLocation {
  url: string;
  embedded: boolean;
  /** Whether this process started the embedded cluster. */
  startedHere: boolean;
  /** Whether this process adopted an embedded cluster left running with no owner. */
  adopted: boolean;
  /**
   * Leaves the embedded cluster: stops it when this process started or adopted it (or its owner
   * has gone since) and no other Doco process is attached. `undefined` for DATABASE_URL.
   */
  release(): Promise<LeaveOutcome | undefined>;
}

export async function locateDatabase(config: Config): Promise<DatabaseLocation> {
  if (config.databaseUrl)
    return { url: config.databaseUrl, embedded: false, startedHere: false, adopted: false, release: async () => undefined };
  const cluster = await startEmbeddedPostgres({ home: config.home, ...(config.pgPort ? { port: config.pgPort } : {}) });
  return {
    url: cluster.url,
    embedded: true,
    startedHere: cluster.owned && !cluster.adopted,
    adopted: cluster.adopted,
    release: () => cluster.stop(),
  };
}
