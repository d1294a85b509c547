// The words the full-text seed leaves out, from the planner's statistics (src/retrieval/
// fulltext-stats.ts): a word in a fifth of the records is searched only when the ask holds nothing
// else; the statistics are read once a minute per handle, and a brief that finds them older is
// answered from them while they are read again. Rows are written with plain SQL and analysed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/db/connect.js';
import { droppedLexemes } from '../../src/retrieval/fulltext-stats.js';
import { fulltextSeeds } from '../../src/retrieval/retrievers.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { sqlWorkspace, type SqlWorkspace } from '../sql/helpers.js';

const RECORDS = 50;
/** In 2 rows of 5 (20 rows): common. */
const COMMON = 'ledger';
/** In 2 rows (g = 7, 14). */
const RARE = 'zircon';

let t: TestDb;
let ws: SqlWorkspace;

const write = (from: number, to: number) => t.sql`
  insert into doco.nodes (id, workspace_id, collection_id, node_type, lifecycle, title, prose, body)
  select doco.new_id('reference'), ${ws.id}, ${ws.constitution}, 'reference', 'active', 'Note ' || g,
         concat_ws(' ', 'Note', g, 'about the service',
           case when g % 5 in (1, 2) then ${COMMON} end,
           case when g in (7, 14) then ${RARE} end),
         '{}'::jsonb
    from generate_series(${from}::int, ${to}::int) g`;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'fulltext-stats');
  await write(1, RECORDS);
  await t.sql`analyze doco.nodes`;
});
afterAll(async () => t.drop());

const prosesOf = async (ids: string[]) =>
  (await t.sql<{ prose: string }[]>`select prose from doco.nodes where id = any(${ids})`).map((r) => r.prose);

describe('the words full text leaves out', () => {
  it('searches a word in a fifth of the records only when the ask holds nothing else', async () => {
    expect((await droppedLexemes(t.sql)).common).toContain(COMMON);
    const beside = await fulltextSeeds(t.sql, ws.id, `${COMMON} ${RARE}`);
    expect(beside.ids).toHaveLength(2);
    for (const prose of await prosesOf(beside.ids)) expect(prose).toContain(RARE);
    const alone = await fulltextSeeds(t.sql, ws.id, COMMON);
    expect(alone.ids).toHaveLength(20);
  });

  it('reads the statistics once a minute, answering from the last figures while it reads them again', async () => {
    // A handle of its own, so this test starts with nothing remembered.
    const own = connect(t.url);
    try {
      const start = performance.now();
      const holds = async (now?: number) => {
        const { common } = await droppedLexemes(own.sql, now);
        return { servic: common.includes('servic'), quasar: common.includes('quasar') };
      };
      expect(await holds(start)).toEqual({ servic: true, quasar: false });
      // Every record now says 'quasar' where it said 'service'.
      await t.sql`update doco.nodes set prose = replace(prose, 'about the service', 'about a quasar') where workspace_id = ${ws.id}`;
      await t.sql`analyze doco.nodes`;
      expect(await holds(start + 59_000)).toEqual({ servic: true, quasar: false });
      // A minute on: answered from the old figures, and read again for the next brief.
      expect(await holds(start + 61_000)).toEqual({ servic: true, quasar: false });
      let fresh = await holds();
      for (let i = 0; i < 100 && fresh.servic; i++) {
        await new Promise((r) => setTimeout(r, 20));
        fresh = await holds();
      }
      expect(fresh).toEqual({ servic: false, quasar: true });
    } finally {
      await own.close();
    }
  });
});
