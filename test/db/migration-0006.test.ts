// Migration 0006 on a database written before it: two live replacements of one record (as the
// supersede race could leave) become one, the earlier, so the unique index can be built; and
// replacements made before it inherit their replaced records' touches, along whole chains.
// The pre-0006 state is rebuilt inside a transaction that is rolled back afterwards.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { findProjectRoot } from '../../src/lib/project-root.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { insertEdge, insertNode, sqlWorkspace, type Sql, type SqlWorkspace } from '../sql/helpers.js';

let t: TestDb;
let ws: SqlWorkspace;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'm6');
});
afterAll(async () => t.drop());

class Rollback extends Error {}

const touchesOf = (tx: Sql, id: string) =>
  tx<{ value: string; inherited_from: string | null }[]>`
    select value, inherited_from from doco.touches where node_id = ${id} and kind = 'path' order by value`;

it('keeps the first of two live replacements and backfills inherited touches', async () => {
  const migration = await readFile(path.join(findProjectRoot(), 'migrations', '0006_supersede_rules.sql'), 'utf8');
  const old = await insertNode(t.sql, ws, { title: 'Old' });
  const first = await insertNode(t.sql, ws, { title: 'First' });
  const second = await insertNode(t.sql, ws, { title: 'Second' });
  await insertEdge(t.sql, ws, first, old, 'replaces');
  // A chain p ← q ← r, superseded the way the app does it.
  const p = await insertNode(t.sql, ws, { title: 'P', prose: 'Lives in app/p.ts' });
  const q = await insertNode(t.sql, ws, { title: 'Q', prose: 'Lives in app/q.ts' });
  await insertEdge(t.sql, ws, q, p, 'replaces');
  await t.sql`update doco.nodes set lifecycle = 'retired' where id = ${p}`;
  const r = await insertNode(t.sql, ws, { title: 'R' });
  await insertEdge(t.sql, ws, r, q, 'replaces');
  await t.sql`update doco.nodes set lifecycle = 'retired' where id = ${q}`;

  let result: Record<string, unknown> = {};
  await t.sql
    .begin(async (tx) => {
      // Back to the state before 0006: no inherited touches, no index, and a duplicate replacement.
      await tx`drop index doco.edges_one_live_replacement`;
      await tx`alter table doco.edges disable trigger _100_check_lifecycle`;
      await insertEdge(tx, ws, second, old, 'replaces');
      await tx`alter table doco.edges enable trigger _100_check_lifecycle`;
      await tx`delete from doco.touches where inherited_from is not null`;
      await tx`alter table doco.touches drop column inherited_from`;

      await tx.unsafe(migration);

      result = {
        replaces: [
          ...(await tx`select from_id, lifecycle from doco.edges where to_id = ${old} and edge_type = 'replaces' order by created_at, id`),
        ],
        q: [...(await touchesOf(tx, q))],
        r: [...(await touchesOf(tx, r))],
        verify: [...(await tx`select * from doco.verify_chains()`)],
      };
      throw new Rollback();
    })
    .catch((err) => {
      if (!(err instanceof Rollback)) throw err;
    });

  expect(result).toEqual({
    replaces: [
      { from_id: first, lifecycle: 'active' },
      { from_id: second, lifecycle: 'retired' },
    ],
    q: [
      { value: 'app/p.ts', inherited_from: p },
      { value: 'app/q.ts', inherited_from: null },
    ],
    r: [
      { value: 'app/p.ts', inherited_from: q },
      { value: 'app/q.ts', inherited_from: q },
    ],
    verify: [],
  });
});
