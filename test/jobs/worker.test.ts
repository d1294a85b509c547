// The in-process graphile-worker runner: the PageRank sweep job, the crontab, and a stop that
// lets a running job finish (no lost job on shutdown).
import { parseCrontab, type TaskList } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CRONTAB } from '../../src/jobs/tasks.js';
import { startWorker } from '../../src/jobs/worker.js';
import { makeLog } from '../../src/lib/log.js';
import { changeset } from '../../src/graph/writes.js';
import { noJudge } from '../../src/providers/judge.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { localProviders } from '../helpers/search.js';
import { indexKeeper } from '../../src/indexing/index-keeper.js';
import { makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { one } from '../sql/helpers.js';

let t: TestDb;
let ws: TestWorkspace;
const log = makeLog('silent');
const providers = localProviders();
const jobDeps = { ...providers, keeper: indexKeeper(providers.store, log) };

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'jobs');
});
afterAll(async () => t.drop());

/** A worker on the test database, without the crontab; `extraTasks` add to or replace the built-in tasks. */
const startTestWorker = (extraTasks?: TaskList, concurrency?: number) =>
  startWorker({
    connectionString: t.url,
    sql: t.sql,
    log,
    cron: false,
    ...jobDeps,
    ...(extraTasks ? { extraTasks } : {}),
    ...(concurrency ? { concurrency } : {}),
  });

async function until(check: () => Promise<boolean>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not met in time');
}

describe('worker', () => {
  it('has a valid crontab that sweeps PageRank every minute', () => {
    const items = parseCrontab(CRONTAB);
    expect(items.map((i) => i.task)).toContain('pagerank__sweep');
    expect(items.map((i) => i.task)).toContain('derivations__catch_up');
  });

  it('recomputes PageRank for collections whose edges changed', async () => {
    const ctx = { workspaceId: ws.id, principalId: ws.principalId, source: 'api' as const };
    await changeset({ db: t.db, judge: noJudge }, ctx, {
      collection: 'constitution',
      operations: [
        { op: 'create', alias: 'hub', node_type: 'rule', title: 'Hub rule', prose: 'Everything depends on this.' },
        { op: 'create', alias: 'a', node_type: 'rule', title: 'A', prose: 'a' },
        { op: 'create', alias: 'b', node_type: 'rule', title: 'B', prose: 'b' },
        { op: 'relate', from: '$a', to: '$hub', edge_type: 'supports' },
        { op: 'relate', from: '$b', to: '$hub', edge_type: 'supports' },
      ],
    });
    expect((await t.sql`select count(*)::int as n from doco.pagerank_dirty`)[0]!.n).toBeGreaterThan(0);
    const { runner, stop } = await startTestWorker();
    try {
      await runner.addJob('pagerank__sweep', {});
      await until(async () => (await t.sql`select count(*)::int as n from doco.pagerank_dirty`)[0]!.n === 0);
      const ranks = await t.sql<{ title: string; pagerank: number }[]>`
        select n.title, r.pagerank from doco.nodes n join doco.node_ranks r on r.node_id = n.id where n.title in ('Hub rule', 'A', 'B') order by r.pagerank desc`;
      expect(ranks[0]!.title).toBe('Hub rule');
      expect(ranks[0]!.pagerank).toBeGreaterThan(ranks[1]!.pagerank);
    } finally {
      await stop();
    }
  });

  it('lets a running job finish when it stops', async () => {
    await t.sql`create table if not exists public.job_marks (note text)`;
    let started = false;
    const { runner, stop } = await startTestWorker({
      test__slow: async () => {
        started = true;
        await new Promise((r) => setTimeout(r, 800));
        await t.sql`insert into public.job_marks values ('done')`;
      },
    });
    await runner.addJob('test__slow', {});
    await until(async () => started);
    await stop();
    expect(await t.sql`select note from public.job_marks`).toEqual([{ note: 'done' }]);
    // Completed means deleted from the queue, not left locked to re-run hours later.
    const [left] = await t.sql`select count(*)::int as n from graphile_worker.jobs where task_identifier = 'test__slow'`;
    expect(left!.n).toBe(0);
  });

  it('indexes a new record while long jobs hold every slot of the main runner', async () => {
    // Two jobs as long as a paced connector sweep or a large docs ingest, held until the end.
    let held = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { runner, stop } = await startTestWorker(
      {
        test__hold: async () => {
          held++;
          await gate;
        },
      },
      2,
    );
    try {
      await until(async () => one(await t.sql<{ n: number }[]>`select count(*)::int as n from doco.outbox`).n === 0);
      await runner.addJob('test__hold', { n: 1 });
      await runner.addJob('test__hold', { n: 2 });
      await until(async () => held === 2);
      const ctx = { workspaceId: ws.id, principalId: ws.principalId, source: 'api' as const };
      await changeset({ db: t.db, judge: noJudge }, ctx, {
        collection: 'constitution',
        operations: [{ op: 'create', node_type: 'rule', title: 'Kiln', prose: 'The kiln fires at cone six, never hotter.' }],
      });
      await until(async () => one(await t.sql<{ n: number }[]>`select count(*)::int as n from doco.outbox`).n === 0, 10_000);
      const { sparse } = await providers.store.search({
        tenant: ws.id,
        vector: new Float32Array(providers.embedder.dimensions),
        text: 'kiln cone',
        limit: 5,
        sparseOnly: true,
      });
      expect(sparse.length).toBeGreaterThan(0);
      // Both long jobs are still running: the drain did not wait for a slot of theirs.
      const [running] = await t.sql<{ n: number }[]>`
        select count(*)::int as n from graphile_worker.jobs where task_identifier = 'test__hold' and locked_at is not null`;
      expect(running!.n).toBe(2);
    } finally {
      release();
      await stop();
    }
  });

  it('runs one drain at a time, however many are queued, with the main runner idle', async () => {
    // A drain runs until the outbox is empty: a second one at once in the process would share its
    // core and hold another of the server's pool connections (docs/jobs.md, "Lanes").
    let running = 0;
    let most = 0;
    let ran = 0;
    const { runner, stop } = await startTestWorker(
      {
        outbox__drain: async () => {
          running++;
          most = Math.max(most, running);
          await new Promise((r) => setTimeout(r, 300));
          running--;
          ran++;
        },
      },
      2,
    );
    try {
      // Unkeyed, so none replaces another: three drains queued at once, beside the one at start.
      for (let i = 0; i < 3; i++) await runner.addJob('outbox__drain', { n: i });
      await until(async () => ran >= 4);
      expect(most).toBe(1);
    } finally {
      await stop();
    }
  });

  it('re-derives touches at start when an upgrade changed the functions that derive them', async () => {
    const { node } = one(
      await t.sql<{ node: string }[]>`
      select id as node from doco.nodes where workspace_id = ${ws.id} and title = 'Hub rule'`,
    );
    // What an older extractor left on a record: a touch its text does not name.
    await t.sql`insert into doco.touches (node_id, workspace_id, kind, value) values (${node}, ${ws.id}, 'path', 'old/extractor.go')`;
    // An upgrade: sql/ applied with touch functions of another fingerprint than the stored one.
    await t.sql`update doco.derivations set fingerprint = 'an older release' where name = 'touches'`;
    expect(one(await t.sql<{ n: number }[]>`select doco.note_derivations() as n`).n).toBe(1);
    const { stop } = await startTestWorker();
    try {
      await until(
        async () =>
          one(await t.sql<{ pending: string | null }[]>`select pending from doco.derivations where name = 'touches'`).pending === null,
      );
    } finally {
      await stop();
    }
    expect(await t.sql`select value from doco.touches where node_id = ${node}`).toEqual([]);
    const [row] =
      await t.sql`select fingerprint = doco.derivation_fingerprint('touches') as current from doco.derivations where name = 'touches'`;
    expect(row!.current).toBe(true);
  });
});
