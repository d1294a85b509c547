// The full-text index's pending list (migration 0031): GIN keeps new entries in a list every
// search reads whole until it merges them; bounded at 256 kB, so a brief's full-text seed never
// reads megabytes of entries written since the last vacuum.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { one, sqlWorkspace, type SqlWorkspace } from './helpers.js';

let t: TestDb;
let ws: SqlWorkspace;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'gin-pending');
  // Reads the GIN metapage; the test's own cluster has the contrib modules.
  await t.sql`create extension if not exists pgstattuple`;
});
afterAll(async () => t.drop());

const pending = async () =>
  one(
    await t.sql<{ pages: number; tuples: number }[]>`
    select pending_pages::int as pages, pending_tuples::int as tuples from pgstatginindex('doco.nodes_search_tsv')`,
  );

describe('the full-text index pending list', () => {
  it('stays within 256 kB (32 pages) however many records are written between vacuums', async () => {
    // 600 records of 40 distinct words each: about 120 pending pages under GIN's default 4 MB.
    await t.sql`
      insert into doco.nodes (id, workspace_id, collection_id, node_type, lifecycle, title, prose, body)
      select doco.new_id('state'), ${ws.id}, ${ws.people}, 'state', 'active', 'Record ' || i,
             (select string_agg('w' || i || 'x' || j, ' ') from generate_series(1, 40) j), '{}'::jsonb
        from generate_series(1, 600) i`;
    const { pages, tuples } = await pending();
    expect(pages).toBeLessThanOrEqual(32);
    // The list was merged along the way, not skipped: some entries are still pending.
    expect(tuples).toBeGreaterThan(0);
  });
});
