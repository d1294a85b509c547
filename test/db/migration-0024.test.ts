// Migration 0024 on a database written before it: the PageRank scores stored on doco.nodes move
// to doco.node_ranks (records scored 0 get no row, which reads as 0), and the column goes. The
// pre-0024 state is rebuilt inside a transaction that is rolled back afterwards.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { findProjectRoot } from '../../src/lib/project-root.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { insertNode, sqlWorkspace, type SqlWorkspace } from '../sql/helpers.js';

let t: TestDb;
let ws: SqlWorkspace;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'm24');
});
afterAll(async () => t.drop());

class Rollback extends Error {}

it('moves the stored scores to doco.node_ranks and drops the column', async () => {
  const migration = await readFile(path.join(findProjectRoot(), 'migrations', '0024_node_ranks.sql'), 'utf8');
  const hub = await insertNode(t.sql, ws, { title: 'Hub' });
  const leaf = await insertNode(t.sql, ws, { title: 'Leaf' });
  const unscored = await insertNode(t.sql, ws, { title: 'Unscored' });
  let result: Record<string, unknown> = {};
  await t.sql
    .begin(async (tx) => {
      // Back to the state before 0024: scores on the records, no table beside them.
      await tx`drop table doco.node_ranks`;
      await tx`alter table doco.nodes add column pagerank double precision not null default 0`;
      await tx`update doco.nodes set pagerank = case id when ${hub} then 2.5 when ${leaf} then 0.5 else 0 end where id in (${hub}, ${leaf}, ${unscored})`;

      await tx.unsafe(migration);

      result = {
        ranks: [
          ...(await tx`select node_id, pagerank from doco.node_ranks where node_id in (${hub}, ${leaf}, ${unscored}) order by pagerank desc`),
        ],
        column: [
          ...(await tx`select column_name from information_schema.columns where table_schema = 'doco' and table_name = 'nodes' and column_name = 'pagerank'`),
        ],
        verify: [...(await tx`select * from doco.verify_chains()`)],
      };
      throw new Rollback();
    })
    .catch((err) => {
      if (!(err instanceof Rollback)) throw err;
    });
  expect(result.ranks).toEqual([
    { node_id: hub, pagerank: 2.5 },
    { node_id: leaf, pagerank: 0.5 },
  ]);
  expect(result.column).toEqual([]);
  expect(result.verify).toEqual([]);
});
