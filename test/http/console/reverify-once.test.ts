// Re-verify reads the whole database and any signed-in reader may press it: presses while a check
// runs share that check (one scan, each workspace's result recorded), so they cannot stack full
// scans; a press after it ends checks again.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Sql } from '../../../src/db/connect.js';
import { runChainCheck } from '../../../src/http/console/data/chain.js';
import { makeWorkspace, type TestWorkspace } from '../../helpers/app.js';
import { createTestDb, type TestDb } from '../../helpers/db.js';

let t: TestDb;
let a: TestWorkspace;
let b: TestWorkspace;

beforeAll(async () => {
  t = await createTestDb();
  a = await makeWorkspace(t, 'reverify-a');
  b = await makeWorkspace(t, 'reverify-b');
});
afterAll(async () => t.drop());

/** The handle, counting the statements that scan every chain. */
function counting(sql: Sql): { sql: Sql; scans: () => number } {
  let scans = 0;
  const tag = (strings: TemplateStringsArray, ...values: unknown[]) => {
    if (strings.join('?').includes('doco.verify_chains()')) scans++;
    return (sql as unknown as (s: TemplateStringsArray, ...v: unknown[]) => unknown)(strings, ...values);
  };
  return { sql: Object.assign(tag, sql) as unknown as Sql, scans: () => scans };
}

it('three presses at once, from two workspaces, run one scan and record a check for each', async () => {
  const { sql, scans } = counting(t.sql);
  await Promise.all([
    runChainCheck(sql, a.id, a.principalId),
    runChainCheck(sql, a.id, a.principalId),
    runChainCheck(sql, b.id, b.principalId),
  ]);
  expect(scans()).toBe(1);
  const rows = await t.sql<{ workspace_id: string; intact: boolean }[]>`
    select workspace_id, intact from doco.chain_checks order by workspace_id`;
  expect(rows.filter((r) => r.workspace_id === a.id)).toHaveLength(2);
  expect(rows.filter((r) => r.workspace_id === b.id)).toHaveLength(1);
  expect(rows.every((r) => r.intact)).toBe(true);
  await runChainCheck(sql, a.id, a.principalId);
  expect(scans()).toBe(2);
});
