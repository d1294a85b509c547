// A capture's one statement (doco.apply_operations, its triggers included) reads a few rows,
// not the workspace, once the workspace has grown past what it was when this connection first
// wrote: plans cached while a workspace is small are kept until statistics change, and the
// read-back of what was written once walked every record that way (22-57 ms a capture after
// 100k records were bulk-written). Rows read are counted from the statistics views, not timed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { flushStats, one, rowsRead, sqlWorkspace, type SqlWorkspace, withoutAutovacuum } from './helpers.js';

let t: TestDb;
let ws: SqlWorkspace;
const RECORDS = 2000;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'write-plan');
  // This database is the test's own: no analysis mid-test (the point is statistics taken while it was small).
  await withoutAutovacuum(t.sql);
});
afterAll(async () => t.drop());

describe('doco.apply_operations', () => {
  it('reads a few rows a capture after the workspace grew, on a connection that wrote while it was small', async () => {
    const conn = await t.sql.reserve();
    try {
      let n = 0;
      const capture = async () => {
        const [cs, id] = [one(await conn`select doco.new_id('changeset') as id`).id, one(await conn`select doco.new_id('rule') as id`).id];
        n++;
        await conn`select doco.apply_operations(
          ${JSON.stringify({ id: cs, workspace_id: ws.id, actor_id: null, source: 'sql', summary: null })}::text::jsonb,
          ${JSON.stringify([{ op: 'create', id, collection_id: ws.constitution, node_type: 'rule', lifecycle: 'active', title: `Rule ${n}`, prose: `Rule ${n} holds for services/api/handler_${n % 10}.go and #${n}.`, body: {} }])}::text::jsonb)`;
      };
      for (let i = 0; i < 10; i++) await capture(); // plans cached while the workspace is small
      // The bulk insert's own reads (its triggers' lookups, ~13 a row) reach the statistics views
      // when its connection flushes them, which may be a second later, inside the measured
      // captures: two CI runs read 2,618 rows a capture so, 26,180 in all. It flushes them here.
      const bulk = await t.sql.reserve();
      try {
        await bulk`
          insert into doco.nodes (id, workspace_id, collection_id, node_type, lifecycle, title, prose, body)
          select doco.new_id('rule'), ${ws.id}, ${ws.constitution}, 'rule', 'active', 'Bulk rule ' || g, 'Bulk rule ' || g || ' holds for services/api/handler_' || (g % 10) || '.go.', '{}'::jsonb
            from generate_series(1, ${RECORDS}) g`;
        await flushStats(bulk);
      } finally {
        bulk.release();
      }
      const [analysed] =
        await t.sql`select last_analyze, last_autoanalyze from pg_stat_user_tables where schemaname = 'doco' and relname = 'nodes'`;
      expect(analysed).toEqual({ last_analyze: null, last_autoanalyze: null });
      await capture();
      await flushStats(conn);
      const before = await rowsRead(t.sql);
      const calls = 10;
      for (let i = 0; i < calls; i++) await capture();
      await flushStats(conn);
      const perCall = ((await rowsRead(t.sql)) - before) / calls;
      expect(perCall).toBeGreaterThan(0);
      expect(perCall).toBeLessThan(RECORDS / 20);
    } finally {
      conn.release();
    }
  });
});
