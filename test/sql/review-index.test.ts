// The console's review queue and overview read the relations waiting for review (an agent's
// `relate`s, src/http/console/data/review.ts) through edges_review (migration 0037): the index's
// predicate must imply the queries', or each page load reads every edge of the workspace. The
// planner is told to avoid a sequential scan, so the index is used whenever it can be.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;

beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t.drop());

const plan = async (query: string) => {
  const conn = await t.sql.reserve();
  try {
    await conn`set enable_seqscan = off`;
    const rows = await conn.unsafe(`explain ${query}`, ['workspace_01K8Z3QH4V6X9M2T7R5B3N8P1D']);
    return rows.map((r) => String(r['QUERY PLAN'])).join('\n');
  } finally {
    await conn`reset enable_seqscan`;
    conn.release();
  }
};

describe('relations waiting for review', () => {
  it('are counted and listed through edges_review', async () => {
    // Counted through either index of pending relations by workspace (edges_pending_by_principal,
    // migration 0046, which the agents' cap reads, holds the same rows).
    expect(await plan(`select count(*) from doco.edges where workspace_id = $1 and lifecycle in ('drafting', 'queued')`)).toMatch(
      /edges_review|edges_pending_by_principal/,
    );
    expect(
      await plan(
        `select id from doco.edges where workspace_id = $1 and lifecycle in ('drafting', 'queued') order by updated_at desc, id desc limit 50`,
      ),
    ).toContain('edges_review');
  });
});
