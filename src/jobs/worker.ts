// Runs the graphile-worker runner in this process; its stop() lets running jobs finish.
import { Logger, run, type Runner } from 'graphile-worker';
import type { Sql } from '../db/connect.js';
import type { Log } from '../runtime/log.js';
import { buildTaskList, CRONTAB } from './tasks.js';

export async function startWorker(opts: { connectionString: string; sql: Sql; log: Log; concurrency?: number }): Promise<Runner> {
  const logger = new Logger((scope) => (level, message) => {
    const line = `[worker${scope.taskIdentifier ? ` ${scope.taskIdentifier}` : ''}] ${message}`;
    if (level === 'error') opts.log.error(line);
    else if (level === 'warning') opts.log.warn(line);
    else if (level === 'info') opts.log.info(line);
    else opts.log.debug(line);
  });
  return run({
    connectionString: opts.connectionString,
    concurrency: opts.concurrency ?? 2,
    noHandleSignals: true,
    pollInterval: 1000,
    taskList: buildTaskList({ sql: opts.sql }),
    crontab: CRONTAB,
    logger,
  });
}
