// The duplicate guard's one query per changeset (doco.duplicate_candidates_batch) reads a few
// rows, not every record of the draft's type, in a workspace whose tables were never analysed,
// on a connection that called it often while the workspace was young. Rows read are counted
// from the statistics views, not timed: each failure this guards against read every active
// record of the type per call or more (the exact-text lookup taken by another index: 665 rows
// at 600 records; a generic plan cached at ten records and kept as they grew: 1,800).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { flushStats, one, rowsRead, sqlWorkspace, type SqlWorkspace } from './helpers.js';

let t: TestDb;
let ws: SqlWorkspace;
const RECORDS = 600;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'dup-plan');
  // This database is the test's own: autovacuum must not analyse it mid-test (the point is a table without statistics).
  await t.sql`alter table doco.nodes set (autovacuum_enabled = false)`;
});
afterAll(async () => t.drop());

const addRules = (from: number, to: number) => t.sql`
  insert into doco.nodes (id, workspace_id, collection_id, node_type, lifecycle, title, prose, body)
  select doco.new_id('rule'), ${ws.id}, ${ws.constitution}, 'rule', 'active', 'Rule ' || g, 'Rule ' || g || ' holds for every service, always.', '{}'::jsonb
    from generate_series(${from}::int, ${to}::int) g`;

describe('doco.duplicate_candidates_batch', () => {
  it('reads about the outbox window and the index hits per call, not every record of the type, without statistics', async () => {
    await addRules(1, 10);
    const [analysed] =
      await t.sql`select last_analyze, last_autoanalyze from pg_stat_user_tables where schemaname = 'doco' and relname = 'nodes'`;
    expect(analysed).toEqual({ last_analyze: null, last_autoanalyze: null });
    const drafts = JSON.stringify([
      {
        node_type: 'rule',
        collection_id: ws.constitution,
        title: 'Rule 7',
        prose: 'Rule 7 holds for every service, always.',
        body: {},
        ids: [],
      },
    ]);
    const conn = await t.sql.reserve();
    try {
      const call = () => conn`select count(*)::int as n from doco.duplicate_candidates_batch(${ws.id}, ${drafts}::text::jsonb) b`;
      // Called often while the workspace is young, as a guard is: a plan cached then (a generic
      // plan, chosen after five calls, for ten records) must not outlive the workspace's growth.
      for (let i = 0; i < 10; i++) await call();
      await addRules(11, RECORDS);
      await call();
      // This connection's counts reach the views once it is idle after a forced flush.
      await flushStats(conn);
      const before = await rowsRead(t.sql, 'nodes');
      const calls = 10;
      let candidates = 0;
      for (let i = 0; i < calls; i++) candidates = one(await call()).n;
      await flushStats(conn);
      const perCall = ((await rowsRead(t.sql, 'nodes')) - before) / calls;
      // The outbox's 32 newest (read twice: their ids, then their text) and the exact match.
      expect(candidates).toBe(32 + 1);
      expect(perCall).toBeGreaterThan(0);
      expect(perCall).toBeLessThan(RECORDS / 4);
    } finally {
      conn.release();
    }
  });
});
