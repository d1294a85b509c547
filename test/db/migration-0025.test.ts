// Migration 0025 on a database written before it: each deployment credential (the Notion
// integration, the Drive account, a Slack team) is claimed by the earliest workspace that has a
// connector on it; a second workspace's connectors stay, and take the claim over when the
// holder's last one goes. GitHub is not claimed. The pre-0025 state is rebuilt inside a
// transaction that is rolled back afterwards.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { findProjectRoot } from '../../src/lib/project-root.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { sqlWorkspace, type SqlWorkspace } from '../sql/helpers.js';

let t: TestDb;
let a: SqlWorkspace;
let b: SqlWorkspace;

beforeAll(async () => {
  t = await createTestDb();
  a = await sqlWorkspace(t.sql, 'm25-a');
  b = await sqlWorkspace(t.sql, 'm25-b');
});
afterAll(async () => t.drop());

class Rollback extends Error {}

it('claims each credential for its earliest workspace; a later one takes the claim when the holder leaves', async () => {
  const root = findProjectRoot();
  const migration = await readFile(path.join(root, 'migrations', '0025_connector_owners.sql'), 'utf8');
  const functions = await readFile(path.join(root, 'sql', 'connectors.sql'), 'utf8');
  let result: Record<string, unknown> = {};
  await t.sql
    .begin(async (tx) => {
      // Back to the state before 0025: no claims, no body hashes, and no triggers that need them.
      await tx`drop trigger _100_claim_credential on doco.connectors`;
      await tx`drop trigger _900_release_credential on doco.connectors`;
      await tx`drop table doco.connector_owners`;
      await tx`alter table doco.connector_deliveries drop column body_hash`;
      const add = (ws: SqlWorkspace, kind: string, key: string, target: string, minutesAgo: number) =>
        tx`insert into doco.connectors (id, workspace_id, kind, routing_key, target, created_at)
           values (doco.new_id('connector'), ${ws.id}, ${kind}, ${key}, ${target}, now() - make_interval(mins => ${minutesAgo}))`;
      await add(a, 'notion', 'integration', '', 50);
      await add(b, 'drive', 'account', 'folderB0002', 40);
      await add(a, 'drive', 'account', '', 30);
      await add(b, 'slack', 'T0ACME', 'C0BILLING', 20);
      await add(a, 'slack', 'T0ACME', '', 10);
      await add(a, 'github', '7', 'octo/a', 5);

      await tx.unsafe(migration);
      await tx.unsafe(functions);
      const owners = () => tx`select kind, routing_key, workspace_id from doco.connector_owners order by kind, routing_key`;
      const before = [...(await owners())];
      await tx`delete from doco.connectors where workspace_id = ${b.id} and kind = 'drive'`;
      result = {
        before,
        after: [...(await owners())],
        column: [
          ...(await tx`select column_name from information_schema.columns where table_schema = 'doco' and table_name = 'connector_deliveries' and column_name = 'body_hash'`),
        ],
      };
      throw new Rollback();
    })
    .catch((err) => {
      if (!(err instanceof Rollback)) throw err;
    });
  expect(result.before).toEqual([
    { kind: 'drive', routing_key: 'account', workspace_id: b.id },
    { kind: 'notion', routing_key: 'integration', workspace_id: a.id },
    { kind: 'slack', routing_key: 'T0ACME', workspace_id: b.id },
  ]);
  expect(result.after).toEqual([
    { kind: 'drive', routing_key: 'account', workspace_id: a.id },
    { kind: 'notion', routing_key: 'integration', workspace_id: a.id },
    { kind: 'slack', routing_key: 'T0ACME', workspace_id: b.id },
  ]);
  expect(result.column).toEqual([{ column_name: 'body_hash' }]);
});
