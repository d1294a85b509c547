// The real worker as the connector and docs-pack suites run it: on the test database, no crontab
// (a test queues what it means to run), the index kept by the providers' store, and the fakes'
// clients or the pack hosts a suite adds.
import { indexKeeper } from '../../src/indexing/index-keeper.js';
import { startWorker, type RunningWorker, type WorkerOptions } from '../../src/jobs/worker.js';
import type { Log } from '../../src/lib/log.js';
import type { SearchProviders } from '../../src/providers/from-config.js';
import type { TestDb } from './db.js';

export type ConnectorClients = Pick<WorkerOptions, 'github' | 'slack' | 'notion' | 'drive'>;

/** What a suite adds to the worker: the fakes' clients, the docs-pack hosts it may pull from. */
export type WorkerExtras = ConnectorClients & Pick<WorkerOptions, 'packHosts'>;

export function startTestWorker(t: TestDb, providers: SearchProviders, log: Log, extras: WorkerExtras = {}): Promise<RunningWorker> {
  return startWorker({
    connectionString: t.url,
    sql: t.sql,
    db: t.db,
    log,
    cron: false,
    ...providers,
    keeper: indexKeeper(providers.store, log),
    ...extras,
  });
}

export const startConnectorWorker = (t: TestDb, providers: SearchProviders, log: Log, clients: ConnectorClients) =>
  startTestWorker(t, providers, log, clients);
