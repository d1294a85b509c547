// Runs the graphile-worker runner in this process; its stop() lets running jobs finish.
import { Logger, run, type Runner, type TaskList } from 'graphile-worker';
import type { Sql } from '../db/connect.js';
import type { Log } from '../runtime/log.js';
import { buildTaskList, CRONTAB } from './tasks.js';

export interface WorkerOptions {
  connectionString: string;
  sql: Sql;
  log: Log;
  concurrency?: number;
  /** Tasks added to (or replacing) the built-in ones. */
  extraTasks?: TaskList;
  /** Whether to run the crontab (on by default). */
  cron?: boolean;
}

export async function startWorker(opts: WorkerOptions): Promise<Runner> {
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
    taskList: { ...buildTaskList({ sql: opts.sql }), ...opts.extraTasks },
    ...(opts.cron === false ? { parsedCronItems: [] } : { crontab: CRONTAB }),
    // Without batching, graphile-worker 0.17 does not await a finished job's completion, so a
    // job that ends during stop() could stay locked (and re-run hours later). A batch is
    // flushed by stop(): nothing is lost on shutdown.
    preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
    logger,
  });
}
