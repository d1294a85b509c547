// An edit of a record's text re-derives its touches (doco.refresh_own_touches, sql/touches.sql)
// with a plan made once a connection. A plan made while the workspace was small must not read
// every touch once it has grown: the edit reads a few rows, on a connection that edited while
// the tables were small, with statistics taken then and not since (autovacuum analyses a small
// table early, and a bulk ingest grows it faster than autovacuum comes back). Before, the delete
// of the old touches scanned them all on every edit (4,002 rows of doco.touches an edit here). Rows read are
// counted from the statistics views, not timed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { flushStats, one, rowsRead, sqlWorkspace, type SqlWorkspace, withoutAutovacuum } from './helpers.js';

let t: TestDb;
let ws: SqlWorkspace;
const RECORDS = 2000;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'edit-plan');
  // This database is the test's own: no analysis mid-test (the point is statistics taken while it was small).
  await withoutAutovacuum(t.sql);
});
afterAll(async () => t.drop());

describe("an edit of a record's text", () => {
  it('reads a few rows after the workspace grew, on a connection that edited while it was small', async () => {
    const conn = await t.sql.reserve();
    try {
      const id = one(await conn`select doco.new_id('rule') as id`).id;
      await conn`insert into doco.nodes (id, workspace_id, collection_id, node_type, lifecycle, title, prose, body)
                 values (${id}, ${ws.id}, ${ws.constitution}, 'rule', 'drafting', 'Edited rule', 'First text.', '{}'::jsonb)`;
      let n = 0;
      const edit = async () => {
        n++;
        // Unprepared, so planned each time: what is measured is the plans the triggers keep.
        await conn.unsafe(
          'update doco.nodes set prose = $1 where id = $2',
          [`Edit ${n} holds for services/api/handler_${n % 10}.go, see #${n}.`, id],
          {
            prepare: false,
          },
        );
      };
      // Statistics taken while the workspace is small, as autovacuum takes them early on, and plans made then.
      await conn`analyze doco.nodes`;
      await conn`analyze doco.touches`;
      for (let i = 0; i < 10; i++) await edit();
      const analyses = () =>
        t.sql`select relname, analyze_count + autoanalyze_count as n from pg_stat_user_tables where schemaname = 'doco' and relname in ('nodes', 'touches') order by relname`;
      const analysedBefore = await analyses();
      // Two touches a record: 4,000 rows that a scan of doco.touches would read on every edit.
      const bulk = await t.sql.reserve();
      try {
        await bulk`
          insert into doco.nodes (id, workspace_id, collection_id, node_type, lifecycle, title, prose, body)
          select doco.new_id('rule'), ${ws.id}, ${ws.constitution}, 'rule', 'active', 'Bulk rule ' || g, 'Bulk rule ' || g || ' holds for services/api/handler_' || (g % 10) || '.go and #' || g || '.', '{}'::jsonb
            from generate_series(1, ${RECORDS}) g`;
        // Its own reads reach the statistics views when it flushes them: here, not mid-measure.
        await flushStats(bulk);
      } finally {
        bulk.release();
      }
      await edit();
      await flushStats(conn);
      // Of doco.touches alone: Postgres's own foreign-key checks keep plans of their own (the
      // version row's check of its record may scan doco.nodes until the next ANALYZE), which no
      // function setting reaches.
      const before = await rowsRead(t.sql, 'touches');
      const calls = 10;
      for (let i = 0; i < calls; i++) await edit();
      await flushStats(conn);
      const perCall = ((await rowsRead(t.sql, 'touches')) - before) / calls;
      // Nothing analysed the tables since they grew: the plans' statistics are still the small ones.
      expect(await analyses()).toEqual(analysedBefore);
      // The edit did re-derive the touches: the last issue it names, not the first.
      const issues = await conn<{ value: string }[]>`select value from doco.touches where node_id = ${id} and kind = 'issue'`;
      expect(issues.map((r) => r.value)).toEqual([`#${n}`]);
      expect(perCall).toBeGreaterThan(0);
      expect(perCall).toBeLessThan(RECORDS / 20);
    } finally {
      conn.release();
    }
  });
});
