// graphile-worker tasks and their crontab. A task is (payload, helpers) => Promise; it throws
// to be retried.
import type { Task, TaskList } from 'graphile-worker';
import type { Sql } from '../db/connect.js';

export interface JobDeps {
  sql: Sql;
}

/** Recomputes PageRank for every collection whose live edges changed since the last sweep. */
export const pagerankSweep = (deps: JobDeps): Task => async (_payload, helpers) => {
  const [row] = await deps.sql<{ swept: number }[]>`select doco.pagerank_sweep() as swept`;
  if (row && row.swept > 0) helpers.logger.info(`PageRank recomputed for ${row.swept} collection(s)`);
};

export function buildTaskList(deps: JobDeps): TaskList {
  return {
    pagerank__sweep: pagerankSweep(deps),
  };
}

/** Cron entries (graphile-worker crontab format). */
export const CRONTAB = ['* * * * * pagerank__sweep ?max=1&jobKey=pagerank__sweep&jobKeyMode=preserve_run_at'].join('\n');
