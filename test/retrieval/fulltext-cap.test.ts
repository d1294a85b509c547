// The full-text seed's bound (src/retrieval/retrievers.ts, FULLTEXT_MAX_MATCHES): a word the
// planner's statistics put in more rows than the bound is not ranked, even when it is the ask's
// only word, so the seed's cost does not grow with the workspace; a word under the bound is
// ranked as before. The rows are written with plain SQL (the seed reads doco.nodes and its
// statistics, nothing else), then analysed as autovacuum would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FULLTEXT_MAX_MATCHES, fulltextSeeds, SEED_LIMIT } from '../../src/retrieval/retrievers.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { sqlWorkspace, type SqlWorkspace } from '../sql/helpers.js';

const RECORDS = 15_000;
/** In one row of 6 (2,500 rows, a sixth of them: under the rule that drops a word in a fifth). */
const OVER_BOUND = 'ledger';
/** In one row of 10 (1,500 rows): under the bound. */
const UNDER_BOUND = 'quartz';
/** In one row of 1,000 (15 rows). */
const RARE = 'zircon';

let t: TestDb;
let ws: SqlWorkspace;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'fulltext-cap');
  await t.sql`
    insert into doco.nodes (id, workspace_id, collection_id, node_type, lifecycle, title, prose, body)
    select doco.new_id('reference'), ${ws.id}, ${ws.constitution}, 'reference', 'active', 'Note ' || g,
           concat_ws(' ', 'Note', g, 'about the service',
             case when g % 6 = 0 then ${OVER_BOUND} end,
             case when g % 10 = 0 then ${UNDER_BOUND} end,
             case when g % 1000 = 0 then ${RARE} end),
           '{}'::jsonb
      from generate_series(1, ${RECORDS}) g`;
  await t.sql`analyze doco.nodes`;
}, 120_000);
afterAll(async () => t.drop());

const holding = async (ids: string[], word: string) =>
  (await t.sql<{ n: number }[]>`select count(*)::int as n from doco.nodes where id = any(${ids}) and prose like ${`%${word}%`}`)[0]!.n;

describe('the full-text seed on a large workspace', () => {
  it('is bounded between the two words of this test', () => {
    expect(RECORDS / 6).toBeGreaterThan(FULLTEXT_MAX_MATCHES);
    expect(RECORDS / 10).toBeLessThan(FULLTEXT_MAX_MATCHES);
  });

  it('does not rank a word in more rows than the bound, even alone', async () => {
    const alone = await fulltextSeeds(t.sql, ws.id, OVER_BOUND);
    expect(alone.ids).toEqual([]);
    const beside = await fulltextSeeds(t.sql, ws.id, `${OVER_BOUND} ${RARE}`);
    expect(beside.ids).toHaveLength(RECORDS / 1000);
    expect(await holding(beside.ids, RARE)).toBe(RECORDS / 1000);
  });

  it('ranks a word under the bound as before', async () => {
    const list = await fulltextSeeds(t.sql, ws.id, UNDER_BOUND);
    expect(list.ids).toHaveLength(SEED_LIMIT);
    expect(await holding(list.ids, UNDER_BOUND)).toBe(SEED_LIMIT);
    const both = await fulltextSeeds(t.sql, ws.id, `${UNDER_BOUND} ${RARE}`);
    // Rows holding both words rank first.
    expect(await holding(both.ids.slice(0, 15), RARE)).toBe(15);
  });
});
