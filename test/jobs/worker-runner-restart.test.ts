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

describe('a worker whose database went away', () => {
  it('runs jobs again after two jobs failed apart while the database was away', async () => {
    const through = new URL(t.url);
    through.port = String(proxy.port);
    let started = 0;
    let cut!: () => void;
    const gate = new Promise<void>((r) => (cut = r));
    let ran = false;
    let third = false;
    let worker: RunningWorker | undefined;
    try {
      worker = await startWorker({
        connectionString: through.toString(),
        sql: t.sql,
        log,
        cron: false,
        concurrency: 3,
        // A dead process's pools are freed after the stale bound, far beyond this test: only this
        // process's own freeing of its stopped pool can free the three jobs below.
        heartbeat: { periodMs: 250, staleMs: 600_000 },
        ...providers,
        keeper: indexKeeper(providers.store, log),
        extraTasks: {
          // Three jobs in flight when the database goes away: two fail apart, so graphile-worker
          // tries (and fails) to record each failure in a batch of its own, while the third, still
          // running, keeps the pool's shutdown (begun at the first failure) from ending before both.
          test__cut: async (payload) => {
            const { n } = payload as { n: number };
            started++;
            await gate;
            await new Promise((r) => setTimeout(r, n * 400));
            if (n === 2) return void (third = true);
            throw new Error('the database went away under this job');
          },
          test__after: async () => {
            ran = true;
          },
        },
      });
      await worker.runner.addJob('test__cut', { n: 0 });
      await worker.runner.addJob('test__cut', { n: 1 });
      await worker.runner.addJob('test__cut', { n: 2 });
      await until(async () => started === 3);
      await proxy.close();
      cut();
      await until(async () => lines.filter((l) => /Failed to fail jobs/.test(l)).length === 2);
      // The third job holds the pool's shutdown (begun at the first failure) past the second.
      await until(async () => third);
      await proxy.open();
      await t.sql`select graphile_worker.add_job('test__after', '{}'::json)`;
      await until(async () => ran, 20_000).catch((err: Error) => {
        throw new Error(`${err.message}: the job added after the database came back never ran\n${lines.slice(-30).join('\n')}`);
      });
      // A new runner took it: the old pool stopped taking jobs when its shutdown began.
      expect(lines.some((l) => /worker runner stopped/.test(l))).toBe(true);
      // The three jobs whose end the old pool could not record (two failures, one success) are
      // freed by this process once that pool runs nothing, and run again on the new runner.
      await until(async () => started >= 6, 20_000).catch((err: Error) => {
        throw new Error(`${err.message}: the cut jobs were not run again (${started} starts)\n${lines.slice(-30).join('\n')}`);
      });
      expect(lines.some((l) => /freed 3 job\(s\) that this process's stopped worker pool\(s\) held/.test(l))).toBe(true);
    } finally {
      await proxy.open().catch(() => {});
      await worker?.stop();
    }
  }, 60_000);
});
