// The real worker as the connector suites run it: on the test database, no crontab (a test
// queues what it means to run), the index kept by the providers' store, and the fakes' clients.
import { indexKeeper } from '../../src/indexing/index-keeper.js';
import { startWorker, type RunningWorker, type WorkerOptions } from '../../src/jobs/worker.js';
import type { Log } from '../../src/lib/log.js';
import type { SearchProviders } from '../../src/providers/from-config.js';
import type { TestDb } from './db.js';

export type ConnectorClients = Pick<WorkerOptions, 'github' | 'slack' | 'notion' | 'drive'>;

export function startConnectorWorker(t: TestDb, providers: SearchProviders, log: Log, clients: ConnectorClients): Promise<RunningWorker> {
  return startWorker({
    connectionString: t.url,
    sql: t.sql,
    db: t.db,
    log,
    cron: false,
    ...providers,
    keeper: indexKeeper(providers.store, log),
    ...clients,
  });
}
