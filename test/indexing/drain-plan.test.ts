// The drain reads a batch's existing chunks by record, whatever Postgres's statistics say. A
// workspace's first drain runs on statistics taken before its chunks existed (autovacuum
// analyses a small table early, and a bulk ingest grows it faster than autovacuum comes back);
// priced on them, a sequential scan of doco.chunks looked cheapest, and every batch read every
// chunk written so far: a first ingest that grows quadratically with its size. Rows read are
// counted from the statistics views, not timed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type DbHandles } from '../../src/db/connect.js';
import { drainOutbox } from '../../src/indexing/drain.js';
import { makeLog } from '../../src/lib/log.js';
import { localEmbedder } from '../../src/providers/local-embedder.js';
import { embeddedStore } from '../../src/providers/vector/embedded/store.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { flushStats, rowsRead, sqlWorkspace, type SqlWorkspace, withoutAutovacuum } from '../sql/helpers.js';

let t: TestDb;
let ws: SqlWorkspace;
let drainer: DbHandles;
const RECORDS = 2000;
/**
 * The drain's own connections (two batches at a time, each recording its pending points on a
 * connection of its own), so their statistics reach the views when the test asks.
 */
const DRAIN_CONNECTIONS = 4;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'drain-plan');
  // This database is the test's own: no analysis mid-test (the point is statistics taken while it was small).
  await withoutAutovacuum(t.sql);
  drainer = connect(t.url, { max: DRAIN_CONNECTIONS });
});
afterAll(async () => {
  await drainer.sql.end();
  await t.drop();
});

/** Flushes the statistics of each of the drain's connections to the views. */
async function flushDrainer() {
  const conns = await Promise.all(Array.from({ length: DRAIN_CONNECTIONS }, () => drainer.sql.reserve()));
  for (const conn of conns) await flushStats(conn);
  for (const conn of conns) conn.release();
}

const addRecords = (n: number, from: number) => t.sql`
  insert into doco.nodes (id, workspace_id, collection_id, node_type, lifecycle, title, prose, body)
  select doco.new_id('rule'), ${ws.id}, ${ws.constitution}, 'rule', 'active', 'Rule ' || g,
         'Rule ' || g || ' holds for the billing service and its refunds, written down once.', '{}'::jsonb
    from generate_series(${from}::int, ${from + n - 1}::int) g`;

describe('the drain of a workspace that grew since its statistics', () => {
  it('reads a few rows of doco.chunks a batch, not every chunk written so far', async () => {
    const embedder = localEmbedder();
    const store = embeddedStore();
    await store.init(embedder.identity, embedder.dimensions);
    const deps = { sql: drainer.sql, embedder, store, log: makeLog('silent') };
    // Statistics taken while the workspace had no chunks, as on a first ingest.
    await t.sql`analyze doco.chunks`;
    await addRecords(RECORDS, 1);
    expect((await drainOutbox(deps, { batchSize: 500 })).chunksEmbedded).toBeGreaterThanOrEqual(RECORDS);
    await addRecords(20, RECORDS + 1);
    await flushDrainer();
    const before = await rowsRead(t.sql, 'chunks');
    const report = await drainOutbox(deps, { batchSize: 500 });
    expect(report.records).toBe(20);
    await flushDrainer();
    const read = (await rowsRead(t.sql, 'chunks')) - before;
    // Nothing analysed doco.chunks since it was empty.
    const [stats] = await t.sql<{ n: number }[]>`
      select (analyze_count + autoanalyze_count)::int as n from pg_stat_user_tables where schemaname = 'doco' and relname = 'chunks'`;
    expect(stats!.n).toBe(1);
    expect(read).toBeLessThan(RECORDS / 10);
  });
});
