// A worker that dies holds nothing for long (issue 28, point 4; docs/jobs.md, "What a dead
// worker leaves"): each worker beats in doco.worker_heartbeats with the database's clock, and a
// live one frees the jobs and named queues of a worker whose beat stopped, through
// graphile-worker's force_unlock_workers, instead of graphile-worker's 4 hours. Short bounds here
// (an option of startWorker); every wait polls a condition, none asserts a duration.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Logger, runMigrations, type Task } from 'graphile-worker';
import { indexKeeper } from '../../src/indexing/index-keeper.js';
import { startWorker, type RunningWorker, type WorkerOptions } from '../../src/jobs/worker.js';
import { makeLog } from '../../src/lib/log.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { localProviders } from '../helpers/search.js';
import { until } from '../helpers/until.js';

let t: TestDb;
const lines: string[] = [];
const log = makeLog('debug', (l) => lines.push(l));
const providers = localProviders();
const heartbeat = { periodMs: 250, staleMs: 3_000 };
const quietLogger = new Logger(() => () => {});

beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t.drop());

const start = (name: string, extraTasks: Record<string, Task>, over: Partial<WorkerOptions> = {}) =>
  startWorker({
    connectionString: t.url,
    sql: t.sql,
    log: makeLog('debug', (l) => lines.push(`${name}: ${l}`)),
    cron: false,
    concurrency: 1,
    heartbeat,
    ...providers,
    keeper: indexKeeper(providers.store, log),
    extraTasks,
    ...over,
  });

/** The pool id a job is locked by, once it is locked. */
const lockedBy = (task: string) =>
  until(async () => {
    const [row] = await t.sql<{ locked_by: string | null }[]>`
      select locked_by from graphile_worker.jobs where task_identifier = ${task}`;
    return row?.locked_by;
  });

const beatOf = async (id: string) =>
  (await t.sql<{ beat_at: Date }[]>`select beat_at from doco.worker_heartbeats where worker_id = ${id}`)[0]?.beat_at;

describe('workers whose heartbeat stopped', () => {
  it('frees the job (and its named queue) a dead worker held, and a live worker runs it', async () => {
    // The dead worker beats through a connection of its own, ended below: its process is as good
    // as gone to the others (its runner, still alive, can take nothing: its one slot is held).
    const deadSql = postgres(t.url, { max: 1, onnotice: () => {} });
    const runs: string[] = [];
    let letGo!: () => void;
    const held = new Promise<void>((r) => (letGo = r));
    let dead: RunningWorker | undefined;
    let live: RunningWorker | undefined;
    try {
      dead = await start(
        'dead',
        {
          test__held: async () => {
            runs.push('dead');
            await held;
          },
        },
        { sql: deadSql },
      );
      await dead.runner.addJob('test__held', {}, { queueName: 'slack:test:C1' });
      const deadId = await lockedBy('test__held');
      // graphile-worker locks under its pool's id, and the dead worker beat under that id.
      expect(deadId).toMatch(/^pool-/);
      await until(async () => (await beatOf(deadId)) !== undefined);
      const [queue] = await t.sql`select locked_by from graphile_worker._private_job_queues where queue_name = 'slack:test:C1'`;
      expect(queue!.locked_by).toBe(deadId);

      await deadSql.end();
      live = await start('live', {
        test__held: async () => {
          runs.push('live');
        },
      });
      // Freed, run by the live worker and completed: the job is gone, and so is the dead row.
      await until(async () => runs.includes('live'));
      await until(async () => (await t.sql`select 1 from graphile_worker.jobs where task_identifier = 'test__held'`).length === 0);
      expect(await beatOf(deadId)).toBeUndefined();
      const [q] = await t.sql`select locked_by from graphile_worker._private_job_queues where queue_name = 'slack:test:C1'`;
      expect(q?.locked_by ?? null).toBeNull();
      // The line names every pool freed (the dead process ran two: startWorker's lanes), in any order.
      const freed = lines
        .filter((l) => l.startsWith('live: '))
        .flatMap((l) => /freed the jobs of worker\(s\) whose heartbeat stopped: (.+)$/.exec(l)?.[1]?.split(', ') ?? []);
      expect(freed).toContain(deadId);
      expect(runs).toEqual(['dead', 'live']);
    } finally {
      letGo();
      await live?.stop();
      await dead?.stop();
      await deadSql.end();
    }
  }, 60_000);

  it('leaves a live worker’s job locked however long it runs, and its beat comes back when its row is gone', async () => {
    let runs = 0;
    let letGo!: () => void;
    const held = new Promise<void>((r) => (letGo = r));
    let busy: RunningWorker | undefined;
    let other: RunningWorker | undefined;
    try {
      busy = await start('busy', {
        test__long: async () => {
          runs++;
          await held;
        },
      });
      await busy.runner.addJob('test__long', {});
      const busyId = await lockedBy('test__long');
      // Started once the busy worker holds the job, so only a freed job could reach it.
      other = await start('other', { test__long: async () => void runs++ });
      // Until the job has been locked for twice the bound by the database's clock, and the
      // busy worker has beaten since: the other worker's ticks had every chance to free it.
      await until(async () => {
        const [row] = await t.sql<{ past: boolean }[]>`
          select now() - locked_at > make_interval(secs => ${(2 * heartbeat.staleMs) / 1000}) as past
            from graphile_worker.jobs where task_identifier = 'test__long'`;
        return row?.past;
      });
      const [free] = await t.sql<
        { freed: string[] }[]
      >`select doco.free_dead_workers(make_interval(secs => ${heartbeat.staleMs / 1000})) as freed`;
      expect(free!.freed).toEqual([]);
      expect(await lockedBy('test__long')).toBe(busyId);
      expect(runs).toBe(1);

      // A row deleted (as a worker cut off from the database past the bound would find it) comes back.
      await t.sql`delete from doco.worker_heartbeats where worker_id = ${busyId}`;
      await until(async () => (await beatOf(busyId)) !== undefined);
    } finally {
      letGo();
      await other?.stop();
      await busy?.stop();
    }
    // A clean stop removes the rows.
    expect(await t.sql`select worker_id from doco.worker_heartbeats`).toEqual([]);
  }, 60_000);

  it('frees what an id with no heartbeat row has locked longer than the bound, and nothing fresher or beating', async () => {
    // A pool killed between locking its first job and its first beat never wrote a row; its
    // locks, once older than the bound, are a dead worker's (sql/worker_heartbeats.sql). Jobs of
    // tasks no worker here runs, locked by hand as graphile-worker locks them.
    await runMigrations({ connectionString: t.url, logger: quietLogger });
    const add = async (task: string, queue: string | null) => {
      const [row] = await t.sql<{ id: string }[]>`
        select (graphile_worker.add_job(${task}, '{}'::json, queue_name => ${queue})).id::text as id`;
      return row!.id;
    };
    const lock = async (id: string, by: string, ago: string) => {
      await t.sql`update graphile_worker._private_jobs set locked_by = ${by}, locked_at = now() - ${ago}::interval where id = ${id}`;
      await t.sql`
        update graphile_worker._private_job_queues q set locked_by = ${by}, locked_at = now() - ${ago}::interval
          from graphile_worker._private_jobs j where j.id = ${id} and q.id = j.job_queue_id`;
    };
    const never = await add('test__never_beat', 'orphan:q1');
    const fresh = await add('test__just_locked', 'orphan:q2');
    const beating = await add('test__beating', null);
    await lock(never, 'pool-never-beat', '10 seconds');
    await lock(fresh, 'pool-just-locked', '0 seconds');
    await lock(beating, 'pool-beating', '10 seconds');
    await t.sql`select doco.beat_workers(${['pool-beating']}::text[], 'test', 1)`;
    try {
      const [free] = await t.sql<{ freed: string[] }[]>`
        select doco.free_dead_workers(make_interval(secs => ${heartbeat.staleMs / 1000})) as freed`;
      expect(free!.freed).toEqual(['pool-never-beat']);
      const jobs = await t.sql<{ task_identifier: string; locked_by: string | null }[]>`
        select task_identifier, locked_by from graphile_worker.jobs
         where id in (${never}, ${fresh}, ${beating}) order by task_identifier`;
      expect(jobs.map((j) => [j.task_identifier, j.locked_by])).toEqual([
        ['test__beating', 'pool-beating'],
        ['test__just_locked', 'pool-just-locked'],
        ['test__never_beat', null],
      ]);
      const queues = await t.sql<{ queue_name: string; locked_by: string | null }[]>`
        select queue_name, locked_by from graphile_worker._private_job_queues where queue_name like 'orphan:%' order by queue_name`;
      expect(queues.map((q) => [q.queue_name, q.locked_by])).toEqual([
        ['orphan:q1', null],
        ['orphan:q2', 'pool-just-locked'],
      ]);
    } finally {
      await t.sql`select doco.forget_workers(${['pool-beating']}::text[])`;
      await t.sql`delete from graphile_worker._private_jobs where id in (${never}, ${fresh}, ${beating})`;
    }
  });
});
