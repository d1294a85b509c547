// Runs the graphile-worker runner in this process; its stop() lets running jobs finish.
import { EventEmitter } from 'node:events';
import { Logger, run, type Runner, type TaskList, type WorkerEvents } from 'graphile-worker';
import type pg from 'pg';
import { makeWorkerPool } from '../db/worker-pool.js';
import type { Log } from '../lib/log.js';
import { queueCatchUpIfPending } from './derivation-tasks.js';
import { workerHeartbeats, type HeartbeatOptions, type WorkerHeartbeats } from './heartbeats.js';
import { buildTaskList, crontabFor, type JobDeps } from './tasks.js';

export interface WorkerOptions extends JobDeps {
  connectionString: string;
  log: Log;
  concurrency?: number;
  /** Tasks added to (or replacing) the built-in ones. */
  extraTasks?: TaskList;
  /** Whether to run the crontab (on by default). */
  cron?: boolean;
  /** The heartbeat's period and the bound past which a worker is dead (heartbeats.ts; the defaults suit production). */
  heartbeat?: HeartbeatOptions;
}

export interface RunningWorker {
  runner: Runner;
  stop(): Promise<void>;
}

/** The task that indexes what the outbox holds: queued at every commit, and by the crontab every minute. */
const DRAIN_TASK = 'outbox__drain';

/** Which tasks a runner takes, and how many at once. */
interface Lane {
  /** How the log names its runner. */
  name: string;
  concurrency: number;
  taskList: TaskList;
  cron: boolean;
}

/** A runner that is started again when it stops unasked (see supervised). */
interface SupervisedRunner {
  readonly runner: Runner;
  stop(): Promise<void>;
}

/**
 * Starts the runners and listens for the outbox's commit-time notification, queuing a drain job
 * at once (deduplicated by job key) so a new record is searchable within seconds. The drain has a
 * runner of its own beside the one running every other task: a connector's sweep or a docs ingest
 * can run for minutes, and two of them held both of the main runner's slots while a record written
 * meanwhile waited for one to end. Only that runner drains, one drain at a time: a drain runs
 * until the outbox is empty, and more at once in one process shared its core and each held one of
 * the connections the server's pool shares (under load, three at once; docs/jobs.md, "Lanes").
 */
export async function startWorker(opts: WorkerOptions): Promise<RunningWorker> {
  let stopping = false;
  // A lost connection while running is worth a warning; while stopping, Postgres may be going too.
  const pool = makeWorkerPool(opts.connectionString, {
    onError: (err) => {
      if (stopping) opts.log.debug(`worker connection lost while stopping: ${err.message}`);
      else opts.log.warn(`worker connection lost: ${err.message}`);
    },
  });
  // Beats for this process's pools, and frees the jobs of workers whose beat stopped.
  const heartbeats = workerHeartbeats(opts.sql, opts.log, opts.heartbeat);
  const { [DRAIN_TASK]: drain, ...others } = { ...buildTaskList(opts), ...opts.extraTasks };
  const lanes: Lane[] = [
    { name: 'main', concurrency: opts.concurrency ?? 2, taskList: others, cron: opts.cron !== false },
    { name: 'drain', concurrency: 1, taskList: { [DRAIN_TASK]: drain! }, cron: false },
  ];
  const runners: SupervisedRunner[] = [];
  try {
    for (const lane of lanes)
      runners.push(
        await supervised(
          opts,
          lane.name,
          () => startRunner(opts, pool, heartbeats, lane),
          () => stopping,
        ),
      );
  } catch (err) {
    stopping = true;
    for (const r of runners) await r.stop();
    await heartbeats.stop();
    await pool.end();
    throw err;
  }
  const main = runners[0]!;
  // A drain at once: what a crash left (outbox rows, orphan points) is dealt with at start-up,
  // not at the next write or the next minute.
  await queueDrain(main.runner);
  // An upgrade that changed how touches are derived re-derives the older records' (derivation-tasks.ts).
  await queueCatchUpIfPending(opts.sql, opts.log, (task, jobKey) => main.runner.addJob(task, {}, { jobKey }));
  let queued = false;
  const listener = await opts.sql.listen('doco_outbox', () => {
    if (queued) return;
    queued = true;
    queueDrain(main.runner)
      .catch((err: Error) => opts.log.warn(`could not queue an index drain: ${err.message}`))
      .finally(() => (queued = false));
  });
  return {
    get runner() {
      return main.runner;
    },
    async stop() {
      stopping = true;
      await listener.unlisten();
      for (const r of runners) await r.stop();
      // After the runners: their jobs have finished and their end is recorded, so their ids hold nothing.
      await heartbeats.stop().catch((err: Error) => opts.log.warn(`worker heartbeats not removed: ${err.message}`));
      await pool.end();
    },
  };
}

/**
 * Starts a runner, and starts it again once the database answers if it stops unasked.
 * graphile-worker stops its runner for good when a worker loses the database (a primary
 * restarted, a failover): the process would then idle with its jobs unrun.
 *
 * It is replaced as soon as its pool begins shutting down, not when its promise settles:
 * graphile-worker 0.17.3 shuts a pool down when it cannot record a job's outcome, and when two
 * outcomes fail to be recorded in batches of their own (the database away while jobs end), its
 * batcher counts one pending write too few (`batch()`, `allgood()` never clears its
 * backpressure), so the pool's shutdown waits forever and the promise never settles. A worker
 * then ran no job again: with both workers so, the scale suite's outbox never drained
 * (test/jobs/worker-runner-restart.test.ts). The old pool takes no new job once its shutdown
 * has begun; a job it still runs finishes there.
 */
async function supervised(
  opts: WorkerOptions,
  name: string,
  start: () => Promise<Runner>,
  stopping: () => boolean,
): Promise<SupervisedRunner> {
  let runner = await start();
  let restarting: Promise<void> | undefined;
  const supervise = (r: Runner) => {
    let replaced = false;
    const replace = () => {
      if (replaced || stopping() || r !== runner) return;
      replaced = true;
      restarting = restart(r);
    };
    r.events.on('pool:gracefulShutdown', replace);
    void r.promise.catch(() => {}).then(replace);
  };
  async function restart(old: Runner): Promise<void> {
    opts.log.warn(`worker runner stopped (${name}; the database went away): starting it again once the database answers`);
    for (let wait = 500; !stopping(); wait = Math.min(wait * 2, 5000)) {
      await new Promise((r) => setTimeout(r, wait));
      if (stopping()) return;
      // Its cron stops too (its workers already have); its promise may never settle, so it is not awaited.
      if (wait === 500) old.stop().catch((err: Error) => opts.log.debug(`old worker runner (${name}): ${err.message}`));
      try {
        const next = await start();
        if (stopping()) return void (await next.stop());
        runner = next;
        supervise(next);
        await queueDrain(next);
        opts.log.warn(`worker runner running again (${name})`);
        return;
      } catch (err) {
        opts.log.debug(`worker runner (${name}) not started yet: ${(err as Error).message}`);
      }
    }
  }
  supervise(runner);
  return {
    get runner() {
      return runner;
    },
    async stop() {
      await restarting;
      // A runner that stopped by itself (and was not replaced) says "already stopped".
      await runner.stop().catch((err: Error) => opts.log.debug(`worker runner: ${err.message}`));
    },
  };
}

const queueDrain = (runner: Runner) => runner.addJob(DRAIN_TASK, {}, { jobKey: DRAIN_TASK, jobKeyMode: 'preserve_run_at' });

async function startRunner(opts: WorkerOptions, pgPool: pg.Pool, heartbeats: WorkerHeartbeats, lane: Lane): Promise<Runner> {
  const logger = new Logger((scope) => (level, message) => {
    const line = `[worker${scope.taskIdentifier ? ` ${scope.taskIdentifier}` : ''}] ${message}`;
    if (level === 'error') opts.log.error(line);
    else if (level === 'warning') opts.log.warn(line);
    // A job that succeeded is routine (the outbox drain, sweeps with nothing to sweep): it was
    // two lines in three of a quiet server's log. Failures stay warnings and errors.
    else if (level === 'info' && !/^Completed task \d+ .* with success/.test(message)) opts.log.info(line);
    else opts.log.debug(line);
  });
  // Given to run() so the heartbeats see the pool's creation, which happens before run() returns.
  const events = new EventEmitter() as WorkerEvents;
  heartbeats.watch(events);
  return run({
    pgPool,
    events,
    concurrency: lane.concurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    taskList: lane.taskList,
    ...(lane.cron ? { crontab: crontabFor(opts) } : { parsedCronItems: [] }),
    // Without batching, graphile-worker 0.17 does not await a finished job's completion, so a
    // job that ends during stop() could stay locked (and re-run hours later). A batch is
    // flushed by stop(): nothing is lost on shutdown.
    preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
    logger,
  });
}
