// One openChangeset for both libraries' transactions: in a postgres.js transaction and in a
// Kysely one, the changeset's row is written and a write later in the same transaction is
// stamped with it (its version row names it, its principal is the changeset's actor).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePrincipal } from '../../src/auth/workspaces.js';
import { newChangeset, openChangeset } from '../../src/graph/open-changeset.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { insertNode, one, sqlWorkspace, type SqlWorkspace } from '../sql/helpers.js';

let t: TestDb;
let ws: SqlWorkspace;
let actor: string;
let record: string;
beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'open-changeset');
  actor = await ensurePrincipal(t.db, ws.id, 'tester', 'cli');
  record = await insertNode(t.sql, ws);
});
afterAll(async () => {
  await t.drop();
});

const latestVersion = async () =>
  one(
    await t.sql<{ changeset_id: string; principal_id: string | null }[]>`
  select changeset_id, principal_id from doco.node_versions where node_id = ${record} order by version desc limit 1`,
  );
const changesetRow = async (id: string) =>
  one(await t.sql`select workspace_id, actor_id, source, summary from doco.changesets where id = ${id}`);

describe('openChangeset', () => {
  it('opens a changeset in a postgres.js transaction', async () => {
    const changeset = newChangeset({ workspaceId: ws.id, actorId: actor, source: 'ingest', summary: 'postgres.js' });
    await t.sql.begin(async (tx) => {
      await openChangeset(tx, changeset);
      await tx`update doco.nodes set prose = prose || ' Once.' where id = ${record}`;
    });
    expect(await changesetRow(changeset.id)).toEqual({ workspace_id: ws.id, actor_id: actor, source: 'ingest', summary: 'postgres.js' });
    expect(await latestVersion()).toEqual({ changeset_id: changeset.id, principal_id: actor });
  });

  it('opens a changeset in a Kysely transaction', async () => {
    const changeset = newChangeset({ workspaceId: ws.id, actorId: actor, source: 'api', summary: null });
    await t.db.transaction().execute(async (trx) => {
      await openChangeset(trx, changeset);
      await trx.updateTable('doco.nodes').set({ title: 'A record, retitled' }).where('id', '=', record).execute();
    });
    expect(await changesetRow(changeset.id)).toEqual({ workspace_id: ws.id, actor_id: actor, source: 'api', summary: null });
    expect(await latestVersion()).toEqual({ changeset_id: changeset.id, principal_id: actor });
  });
});
