// A seed list cut among tied rows keeps the same rows whatever plan or connection ran it: ties on
// rank and time are broken by id (src/retrieval/retrievers.ts fulltextSeeds, the constitution in
// candidates.ts). Without it, which of the tied rows a brief received depended on which pooled
// connection ran the statement and what plan it held: a brief of the eval's fixture moved between
// runs (its records share one changeset's time).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConstitution } from '../../src/retrieval/candidates.js';
import { fulltextSeeds, SEED_LIMIT } from '../../src/retrieval/retrievers.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { sqlWorkspace, type SqlWorkspace } from '../sql/helpers.js';

const RECORDS = SEED_LIMIT + 40;

let t: TestDb;
let ws: SqlWorkspace;
let ids: string[];

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'seed-ties');
  // One statement (one time for all), written in the reverse of id order: the table's order is no tie-break.
  await t.sql`
    insert into doco.nodes (id, workspace_id, collection_id, node_type, lifecycle, title, prose, body)
    select id, ${ws.id}, ${ws.constitution}, 'reference', 'active', 'Retry budget', 'Retries stop after the budget is spent.', '{}'::jsonb
      from (select doco.new_id('reference') as id from generate_series(1, ${RECORDS}::int)) s
     order by id desc`;
  await t.sql`analyze doco.nodes`;
  ids = (
    await t.sql<{ id: string }[]>`select id from doco.nodes where workspace_id = ${ws.id} and node_type = 'reference' order by id`
  ).map((r) => r.id);
});
afterAll(async () => t.drop());

describe('seeds cut among ties', () => {
  it('full text keeps the tied rows of smallest id, in id order', async () => {
    const seeds = await fulltextSeeds(t.sql, ws.id, 'retry budget');
    expect(seeds.ids).toEqual(ids.slice(0, SEED_LIMIT));
  });

  it('so does the constitution', async () => {
    const rows = await loadConstitution(t.sql, ws.id, 20);
    expect(rows.map((r) => r.id)).toEqual(ids.slice(0, 20));
  });
});
