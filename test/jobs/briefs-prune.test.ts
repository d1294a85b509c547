// Stored briefs are receipts, and every hook call stores one (~5 kB at the hooks' 1,500 tokens):
// the daily briefs__prune job deletes those older than DOCO_BRIEFS_KEEP_DAYS (90 by default, 0
// keeps them all), in every workspace, oldest first, a bounded number a transaction.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRIEFS_KEEP_DAYS, loadConfig } from '../../src/config/environment.js';
import { CRONTAB } from '../../src/jobs/tasks.js';
import { startWorker } from '../../src/jobs/worker.js';
import { indexKeeper } from '../../src/indexing/index-keeper.js';
import { makeLog } from '../../src/lib/log.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { configProblems } from '../helpers/config.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { expectError } from '../helpers/expect-error.js';
import { localProviders } from '../helpers/search.js';

let t: TestDb;
let a: TestWorkspace;
let b: TestWorkspace;
let api: ReturnType<typeof makeApp>;
const log = makeLog('silent');
const providers = localProviders();

const brief = async (ws: TestWorkspace, about: string) => {
  const res = await api.call('POST', '/api/v1/brief', ws.readToken, { about });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.brief_id as string;
};
const ageBy = (ids: string[], days: number) =>
  t.sql`update doco.briefs set created_at = now() - make_interval(days => ${days}) where id = any(${ids})`;
const stored = async () => (await t.sql<{ id: string }[]>`select id from doco.briefs`).map((r) => r.id);

async function prune(briefsKeepDays: number | undefined) {
  const { runner, stop } = await startWorker({
    connectionString: t.url,
    sql: t.sql,
    log,
    cron: false,
    ...providers,
    keeper: indexKeeper(providers.store, log),
    ...(briefsKeepDays === undefined ? {} : { briefsKeepDays }),
  });
  try {
    await runner.addJob('briefs__prune', {});
    const deadline = Date.now() + 15_000;
    while ((await t.sql`select 1 from graphile_worker.jobs where task_identifier = 'briefs__prune'`).length) {
      if (Date.now() > deadline) throw new Error('briefs__prune did not finish');
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await stop();
  }
}

beforeAll(async () => {
  t = await createTestDb();
  a = await makeWorkspace(t, 'prune-a');
  b = await makeWorkspace(t, 'prune-b');
  api = makeApp(t, undefined, providers);
});
afterAll(async () => t.drop());

describe('briefs__prune', () => {
  it('runs daily', () => {
    expect(CRONTAB).toMatch(/^\d+ \d+ \* \* \* briefs__prune /m);
  });

  it('deletes the briefs older than the days kept, in every workspace, and keeps the rest', async () => {
    const oldA = [await brief(a, 'refunds to the card'), await brief(a, 'ledger entries')];
    const oldB = [await brief(b, 'release tags')];
    const edgeA = [await brief(a, 'partial refunds')];
    const newA = [await brief(a, 'settlement files')];
    const newB = [await brief(b, 'review rules')];
    await ageBy([...oldA, ...oldB], 91);
    await ageBy(edgeA, 89);

    await prune(undefined);
    expect(await stored()).toHaveLength(6); // unset: nothing goes
    await prune(0);
    expect(await stored()).toHaveLength(6); // 0: every brief is kept

    await prune(90);
    expect((await stored()).sort()).toEqual([...edgeA, ...newA, ...newB].sort());
    const gone = expectError(await api.call('GET', `/api/v1/briefs/${oldA[0]}`, a.readToken), 404, 'not_found');
    expect(gone.message).toContain('DOCO_BRIEFS_KEEP_DAYS');
    const kept = await api.call('GET', `/api/v1/briefs/${edgeA[0]}`, a.readToken);
    expect(kept.status).toBe(200);
  });

  it('deletes a bounded number a call, the oldest first', async () => {
    await t.sql`delete from doco.briefs`;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await brief(i % 2 ? a : b, `ask number ${i}`));
    for (const [i, id] of ids.entries()) await ageBy([id], 200 - i * 10);
    const [first] = await t.sql<{ n: number }[]>`select doco.prune_briefs(interval '90 days', 2) as n`;
    expect(first!.n).toBe(2);
    expect((await stored()).sort()).toEqual(ids.slice(2).sort());
    const [rest] = await t.sql<{ n: number }[]>`select doco.prune_briefs(interval '90 days', 2) as n`;
    expect(rest!.n).toBe(2);
    expect(await stored()).toEqual([ids[4]]);
  });
});

describe('DOCO_BRIEFS_KEEP_DAYS', () => {
  it('is 90 days unless set, and 0 keeps every brief', () => {
    expect(BRIEFS_KEEP_DAYS).toBe(90);
    expect(loadConfig({}).briefsKeepDays).toBe(90);
    expect(loadConfig({ DOCO_BRIEFS_KEEP_DAYS: '0' }).briefsKeepDays).toBe(0);
    expect(loadConfig({ DOCO_BRIEFS_KEEP_DAYS: '365' }).briefsKeepDays).toBe(365);
  });

  it('refuses what is not a whole number of days, in one line', () => {
    for (const bad of ['-1', '1.5', 'ninety', ' 9', '40000', '123456'])
      expect(configProblems({ DOCO_BRIEFS_KEEP_DAYS: bad }), bad).toEqual([expect.stringMatching(/^DOCO_BRIEFS_KEEP_DAYS: must be/)]);
  });
});
