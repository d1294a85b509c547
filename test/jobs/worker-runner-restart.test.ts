// A worker whose runner shut itself down when the database went away runs jobs again once the
// database is back (src/jobs/worker.ts, docs/production.md). graphile-worker 0.17.3 shuts a pool
// down when it cannot record a job's outcome; when that happens twice (two jobs failing while
// the database is away), its batcher's count of pending writes goes below zero and the pool's
// shutdown never ends, so the runner's promise never settles. The scale suite's flake was that:
// both workers stuck so, nothing drained the outbox. The database "goes away" through a TCP proxy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, type RunningWorker } from '../../src/jobs/worker.js';
import { indexKeeper } from '../../src/indexing/index-keeper.js';
import { makeLog } from '../../src/lib/log.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { localProviders } from '../helpers/search.js';
import { tcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { until } from '../helpers/until.js';

let t: TestDb;
let proxy: TcpProxy;
const lines: string[] = [];
const log = makeLog('debug', (l) => lines.push(l));
const providers = localProviders();

beforeAll(async () => {
  t = await createTestDb();
  proxy = await tcpProxy(Number(new URL(t.url).port));
});
afterAll(async () => {
  await proxy.close();
  await t.drop();
});

/**
 * Three test__cut jobs in flight when the database goes away: two fail apart, so graphile-worker
 * tries (and fails) to record each failure in a batch of its own, while the third, still
 * running, keeps the pool's shutdown (begun at the first failure) from ending before both. The
 * third succeeds while the database is away, or, with `holdThird`, runs on until `letThirdGo`.
 */
async function cutThreeJobs(opts: { holdThird: boolean }) {
  const through = new URL(t.url);
  through.port = String(proxy.port);
  const state = { started: 0, ran: false, third: false };
  let cut!: () => void;
  const gate = new Promise<void>((r) => (cut = r));
  let letThirdGo!: () => void;
  const thirdHeld = opts.holdThird ? new Promise<void>((r) => (letThirdGo = r)) : Promise.resolve();
  const worker = await startWorker({
    connectionString: through.toString(),
    sql: t.sql,
    log,
    cron: false,
    concurrency: 3,
    // A dead process's pools are freed after the stale bound, far beyond this test: only this
    // process's own freeing of its stopped pool can free the cut jobs.
    heartbeat: { periodMs: 250, staleMs: 600_000 },
    ...providers,
    keeper: indexKeeper(providers.store, log),
    extraTasks: {
      test__cut: async (payload) => {
        const { n } = payload as { n: number };
        state.started++;
        await gate;
        await new Promise((r) => setTimeout(r, n * 400));
        if (n === 2) {
          state.third = true;
          return thirdHeld;
        }
        throw new Error('the database went away under this job');
      },
      test__after: async () => {
        state.ran = true;
      },
    },
  });
  // The drain queued at start-up runs on a runner of its own: were it running as the database went
  // away, that runner's pool would hold a fourth job to free. It runs on an empty database, at once.
  await until(async () => (await t.sql`select 1 from graphile_worker.jobs where task_identifier not like 'test\_\_%'`).length === 0);
  for (const n of [0, 1, 2]) await worker.runner.addJob('test__cut', { n });
  await until(async () => state.started === 3);
  await proxy.close();
  cut();
  await until(async () => lines.filter((l) => /Failed to fail jobs/.test(l)).length === 2);
  await until(async () => state.third);
  await proxy.open();
  return { worker, state, letThirdGo: () => letThirdGo?.() };
}

/** How many jobs this process freed from its own stopped pools, by its log. */
const freedByOwnPools = () =>
  lines.reduce((n, l) => n + Number(/freed (\d+) job\(s\) that worker pool pool-\S+ of this process held/.exec(l)?.[1] ?? 0), 0);

const rerun = (state: { started: number }, atLeast: number) =>
  until(async () => state.started >= atLeast, 20_000).catch((err: Error) => {
    throw new Error(`${err.message}: the cut jobs were not run again (${state.started} starts)\n${lines.slice(-30).join('\n')}`);
  });

describe('a worker whose database went away', () => {
  it('runs jobs again after two jobs failed apart while the database was away', async () => {
    lines.length = 0;
    let cut: Awaited<ReturnType<typeof cutThreeJobs>> | undefined;
    try {
      cut = await cutThreeJobs({ holdThird: false });
      await t.sql`select graphile_worker.add_job('test__after', '{}'::json)`;
      await until(async () => cut!.state.ran, 20_000).catch((err: Error) => {
        throw new Error(`${err.message}: the job added after the database came back never ran\n${lines.slice(-30).join('\n')}`);
      });
      // A new runner took it: the old pool stopped taking jobs when its shutdown began.
      // The runner that lost its pool says which it was: the main one, which runs test__after.
      expect(lines.some((l) => /worker runner stopped \(main;/.test(l))).toBe(true);
      // The three jobs whose end the old pool could not record (two failures, one success) are
      // freed by this process once that pool runs nothing, and run again on the new runner.
      await rerun(cut.state, 6);
      expect(freedByOwnPools()).toBe(3);
      // The old pool, running nothing any more, is forgotten: its heartbeat row goes with its jobs.
      const oldPools = [...new Set(lines.flatMap((l) => /that worker pool (pool-\S+) of this process held/.exec(l)?.[1] ?? []))];
      expect(oldPools).toHaveLength(1);
      await until(async () => (await t.sql`select 1 from doco.worker_heartbeats where worker_id = any(${oldPools})`).length === 0);
    } finally {
      await proxy.open().catch(() => {});
      await cut?.worker.stop();
    }
  }, 60_000);

  it('frees the cut jobs of a stopped pool while another of its jobs still runs', async () => {
    lines.length = 0;
    let cut: Awaited<ReturnType<typeof cutThreeJobs>> | undefined;
    try {
      cut = await cutThreeJobs({ holdThird: true });
      // The two failed jobs run again while the third still runs in the old pool, which beats on.
      await rerun(cut.state, 5);
      expect(freedByOwnPools()).toBe(2);
      const third = await t.sql<{ locked: boolean }[]>`
        select locked_by is not null as locked from graphile_worker._private_jobs where payload->>'n' = '2'`;
      expect(third).toEqual([{ locked: true }]);
    } finally {
      cut?.letThirdGo();
      await proxy.open().catch(() => {});
      await cut?.worker.stop();
    }
  }, 60_000);
});
