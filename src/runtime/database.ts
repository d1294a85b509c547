// Which Postgres Doco uses: DATABASE_URL when set, else the embedded cluster under
// $DOCO_HOME/pg, attached to when already running (e.g. by `doco serve`) or started for the
// duration of this process.
import type { Config } from '../config.js';
import { startEmbeddedPostgres } from '../db/embedded-postgres.js';

export interface DatabaseLocation {
  url: string;
  embedded: boolean;
  /** Whether this process started the embedded cluster (it stops on release). */
  startedHere: boolean;
  /** Stops the embedded cluster if this process started it; otherwise does nothing. */
  release(): Promise<void>;
}

export async function locateDatabase(config: Config): Promise<DatabaseLocation> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: false, startedHere: false, release: async () => {} };
  const cluster = await startEmbeddedPostgres({ home: config.home, ...(config.pgPort ? { port: config.pgPort } : {}) });
  return { url: cluster.url, embedded: true, startedHere: cluster.owned, release: () => cluster.stop() };
}
