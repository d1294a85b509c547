// Which Postgres Doco uses: DATABASE_URL when set, else the embedded cluster under
// $DOCO_HOME/pg, attached to when already running (e.g. by `doco serve`), adopted when a
// process killed before it could stop it left it running, or started for this process.
import type { Config } from '../config/environment.js';
import { OperatorError } from '../errors.js';
import { holdsDatabase } from '../config/home.js';
import { startEmbeddedPostgres, type LeaveOutcome } from './embedded-postgres.js';

/** No database where this command looked, and it is not one that creates one (serve, migrate). */
export class NoDatabaseError extends OperatorError {
  constructor(readonly home: string) {
    super(
      `no Doco database in DOCO_HOME=${home}: start one there with \`doco serve\` (or \`doco migrate\`), or point DOCO_HOME or DATABASE_URL at yours`,
    );
  }
}

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

/**
 * `create`: make the embedded cluster when the home has none (only `doco serve`, `doco worker`
 * and `doco migrate` do; any other command says there is none, so a mistyped DOCO_HOME or a
 * command run before the first serve never leaves a stray empty database behind).
 */
export async function locateDatabase(config: Config, opts: { create: boolean }): Promise<DatabaseLocation> {
  if (config.databaseUrl)
    return { url: config.databaseUrl, embedded: false, startedHere: false, adopted: false, release: async () => undefined };
  if (!opts.create && !holdsDatabase(config.home)) throw new NoDatabaseError(config.home);
  const cluster = await startEmbeddedPostgres({
    home: config.home,
    ...(config.pgPort ? { port: config.pgPort } : {}),
    ...(config.pgSharedBuffers ? { settings: { shared_buffers: config.pgSharedBuffers } } : {}),
  });
  return {
    url: cluster.url,
    embedded: true,
    startedHere: cluster.owned && !cluster.adopted,
    adopted: cluster.adopted,
    release: () => cluster.stop(),
  };
}
