// Workers' heartbeats: this process's graphile-worker pools beat in doco.worker_heartbeats, and
// the jobs a dead worker locked are freed within a minute or two, not graphile-worker's 4 hours;
// those a pool of this process stopped taking and runs no more, within two periods
// (docs/jobs.md, "What a dead worker leaves"; sql/worker_heartbeats.sql).
import { hostname } from 'node:os';
import type { WorkerEvents, WorkerPool } from 'graphile-worker';
import type { Sql } from '../db/connect.js';
import type { Log } from '../lib/log.js';

export interface HeartbeatOptions {
  /** How often this process beats and frees dead workers' jobs (ms). */
  periodMs?: number;
  /** A worker whose last beat is older than this is dead (ms); well above the period, since a
   * live worker's job freed by mistake would run twice. */
  staleMs?: number;
}

export const HEARTBEAT_DEFAULTS = { periodMs: 15_000, staleMs: 90_000 } as const;

export interface WorkerHeartbeats {
  /** Tracks the pools of a runner about to start (pass the `events` given to `run`). */
  watch(events: WorkerEvents): void;
  /** Stops beating and deletes this process's rows: call once its runner has stopped. */
  stop(): Promise<void>;
}

/**
 * The timer beats independently of jobs, so a worker busy with a long job keeps beating; a beat
 * that fails (the database away) is retried at the next tick, and the row, even one deleted as
 * stale meanwhile, comes back then. Both the beat and the comparison use the database's now().
 */
export function workerHeartbeats(sql: Sql, log: Log, opts: HeartbeatOptions = {}): WorkerHeartbeats {
  const periodMs = opts.periodMs ?? HEARTBEAT_DEFAULTS.periodMs;
  const staleMs = opts.staleMs ?? HEARTBEAT_DEFAULTS.staleMs;
  if (!(periodMs > 0) || !(staleMs >= 3 * periodMs)) {
    throw new Error(`worker heartbeat: the stale bound (${staleMs} ms) must be at least 3 periods (${periodMs} ms)`);
  }
  // Every pool this process created and has not seen released; ids are graphile-worker's
  // `locked_by` (its pool's id, not a worker's: batchGetJobs is handed workerPool.id).
  const pools = new Map<string, WorkerPool>();
  const seen = new Set<string>();
  /** Pools released since they were last looked at. */
  const released = new Set<string>();
  /** The pools that stopped taking jobs (shutting down, or released): when a tick first saw each so, and each job it saw them run, when last. */
  const stopping = new Map<string, { since: number; running: Map<string, number> }>();
  let stopped = false;
  let failing = false;
  let ticking: Promise<void> | undefined;
  let again = false;

  async function tick(): Promise<void> {
    const now = performance.now();
    const beating = [...pools.values()].filter(beats).map((p) => p.id);
    const watch = (id: string, running: string[]) => {
      const s = stopping.get(id) ?? { since: now, running: new Map<string, number>() };
      for (const job of running) s.running.set(job, now);
      stopping.set(id, s);
    };
    for (const p of pools.values()) if (p._shuttingDown) watch(p.id, runningJobs(p));
    for (const id of released) watch(id, []);
    try {
      if (beating.length) await sql`select doco.beat_workers(${beating}::text[], ${hostname()}, ${process.pid})`;
      for (const [id, s] of stopping) await freeIdleJobs(id, s, now);
      const [row] = await sql<{ freed: string[] }[]>`
        select doco.free_dead_workers(make_interval(secs => ${staleMs / 1000})) as freed`;
      if (row && row.freed.length) log.warn(`freed the jobs of worker(s) whose heartbeat stopped: ${row.freed.join(', ')}`);
      if (failing) log.info('worker heartbeat recorded again');
      failing = false;
    } catch (err) {
      // The database away: nothing to do but try again at the next tick.
      if (!failing) log.warn(`worker heartbeat not recorded: ${(err as Error).message}`);
      failing = true;
    }
  }
  /**
   * What a pool that stopped taking jobs still locks but runs in none of its workers is a job
   * whose end it failed to write (graphile-worker 0.17.3 writes it once: its batcher rethrows at
   * the first error, and the pool shuts down) or one it locked as the database went away: nothing
   * will touch it again. Freed once a period has passed since a tick first saw the pool stop and
   * since the job last ran in it, so that an end already on its way has landed. A pool that runs
   * nothing any more is forgotten, its heartbeat rows with it.
   */
  async function freeIdleJobs(id: string, s: { since: number; running: Map<string, number> }, now: number): Promise<void> {
    if (now - s.since < periodMs) return;
    const keep = [...s.running].filter(([, at]) => now - at < periodMs).map(([job]) => job);
    const pool = pools.get(id);
    const done = keep.length === 0 && !(pool && beats(pool));
    const [freed] = await sql<{ jobs: number }[]>`select doco.free_idle_jobs(${id}, ${keep}::bigint[]) as jobs`;
    if (done) await sql`select doco.forget_workers(${[id]}::text[])`;
    if (freed && freed.jobs > 0)
      log.warn(`freed ${freed.jobs} job(s) that worker pool ${id} of this process held without running them, their end unrecorded`);
    if (done) {
      stopping.delete(id);
      pools.delete(id);
      released.delete(id);
    }
  }
  // One tick at a time; one asked for during a tick (a new pool) runs right after it.
  const run = () => {
    if (stopped) return;
    if (ticking) return void (again = true);
    ticking = tick().finally(() => {
      ticking = undefined;
      if (again) {
        again = false;
        run();
      }
    });
  };
  const timer = setInterval(run, periodMs);

  return {
    watch(events) {
      events.on('pool:create', ({ workerPool }) => {
        pools.set(workerPool.id, workerPool);
        seen.add(workerPool.id);
        // At once, not a period later: a pool killed before its first beat waits 4 hours.
        run();
      });
      events.on('pool:release', ({ workerPool }) => {
        pools.delete(workerPool.id);
        released.add(workerPool.id);
      });
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      while (ticking) await ticking;
      if (seen.size) await sql`select doco.forget_workers(${[...seen]}::text[])`;
    },
  };
}

/**
 * A pool beats while it takes jobs, and while shutting down only as long as a job still runs in
 * it; what it locks without running is freed by freeIdleJobs (docs/jobs.md, "Workers'
 * heartbeats"). `_shuttingDown` and `_workers` are graphile-worker 0.17.3's internals (the
 * version is pinned).
 */
function beats(pool: WorkerPool): boolean {
  return !pool._shuttingDown || pool._workers.some((w) => w.getActiveJob() !== null);
}

/** The ids of the jobs the pool's workers run now. */
function runningJobs(pool: WorkerPool): string[] {
  return pool._workers.flatMap((w) => {
    const job = w.getActiveJob();
    return job ? [String(job.id)] : [];
  });
}
