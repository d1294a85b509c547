// One owner per deployment credential (sql/connectors.sql, doco.connector_owners): the Notion
// integration, the Drive account and a Slack team reach content of their own, so the first
// workspace to add a connector on one holds it, and a connector of another workspace on it is
// refused with DC009, whose message names neither the holder nor its connector. Through plain SQL,
// as psql would write it, with the race forced on two connections.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { Session, started } from '../helpers/race.js';
import { expectSqlState, sqlWorkspace, type Sql, type SqlWorkspace } from './helpers.js';

const ROUNDS = 20;

let t: TestDb;
let a: SqlWorkspace;
let b: SqlWorkspace;
let s1: Session;
let s2: Session;

beforeAll(async () => {
  t = await createTestDb();
  a = await sqlWorkspace(t.sql, 'owners-a');
  b = await sqlWorkspace(t.sql, 'owners-b');
  s1 = await Session.open(t.sql);
  s2 = await Session.open(t.sql);
});
beforeEach(async () => {
  await s1.reset();
  await s2.reset();
  await t.sql`delete from doco.connectors`;
});
afterAll(async () => {
  await s1.end();
  await s2.end();
  await t.drop();
});

const addRow = (sql: Sql, ws: SqlWorkspace, kind: string, routingKey: string, target = '') =>
  sql<{ id: string }[]>`
    insert into doco.connectors (id, workspace_id, kind, routing_key, target)
    values (doco.new_id('connector'), ${ws.id}, ${kind}, ${routingKey}, ${target}) returning id`;

const owners = () =>
  t.sql<{ kind: string; routing_key: string; workspace_id: string }[]>`
    select kind, routing_key, workspace_id from doco.connector_owners order by kind, routing_key`;

describe('a deployment credential', () => {
  it("is held by the first workspace to add a connector on it; another workspace's is DC009 naming neither", async () => {
    const [notion] = await addRow(t.sql, a, 'notion', 'integration');
    await addRow(t.sql, a, 'drive', 'account', 'folderA0001');
    await addRow(t.sql, a, 'drive', 'account', 'folderB0002'); // the holder adds more
    await addRow(t.sql, a, 'slack', 'T0ACME', 'C0BILLING');
    expect(await owners()).toEqual([
      { kind: 'drive', routing_key: 'account', workspace_id: a.id },
      { kind: 'notion', routing_key: 'integration', workspace_id: a.id },
      { kind: 'slack', routing_key: 'T0ACME', workspace_id: a.id },
    ]);
    const messages = [
      await expectSqlState(addRow(t.sql, b, 'notion', 'integration'), 'DC009'),
      await expectSqlState(addRow(t.sql, b, 'drive', 'account'), 'DC009'),
      await expectSqlState(addRow(t.sql, b, 'drive', 'account', 'folderC0003'), 'DC009'),
      // A Slack team: team-wide, and one channel (it would take that channel from a team-wide connector).
      await expectSqlState(addRow(t.sql, b, 'slack', 'T0ACME'), 'DC009'),
      await expectSqlState(addRow(t.sql, b, 'slack', 'T0ACME', 'C0OTHER'), 'DC009'),
    ];
    expect(messages[0]).toBe(
      "this deployment's Notion integration is not available to this workspace: whoever runs this Doco deployment decides which workspace it serves",
    );
    for (const m of messages) {
      expect(m).not.toContain(a.id);
      expect(m).not.toContain('owners-a');
      expect(m).not.toContain(notion!.id);
    }
    expect((await t.sql`select 1 from doco.connectors where workspace_id = ${b.id}`).length).toBe(0);
    // A moved connector is a new claim too.
    await expectSqlState(t.sql`update doco.connectors set workspace_id = ${b.id} where id = ${notion!.id}`, 'DC009');
  });

  it('claims a GitHub installation as it does a Slack team; other installations and teams are free', async () => {
    await addRow(t.sql, a, 'github', '42', 'octo/a');
    await expectSqlState(addRow(t.sql, b, 'github', '42', 'octo/b'), 'DC009');
    await addRow(t.sql, b, 'github', '43', 'octo/c');
    await addRow(t.sql, a, 'slack', 'T0ACME');
    await addRow(t.sql, b, 'slack', 'T0OTHER');
    expect(await owners()).toEqual([
      { kind: 'github', routing_key: '42', workspace_id: a.id },
      { kind: 'github', routing_key: '43', workspace_id: b.id },
      { kind: 'slack', routing_key: 'T0ACME', workspace_id: a.id },
      { kind: 'slack', routing_key: 'T0OTHER', workspace_id: b.id },
    ]);
  });

  it("is let go when the holder's last connector on it goes, and then another workspace may take it", async () => {
    const [one] = await addRow(t.sql, a, 'drive', 'account', 'folderA0001');
    const [two] = await addRow(t.sql, a, 'drive', 'account', 'folderB0002');
    await t.sql`delete from doco.connectors where id = ${one!.id}`;
    await expectSqlState(addRow(t.sql, b, 'drive', 'account'), 'DC009');
    await t.sql`delete from doco.connectors where id = ${two!.id}`;
    expect(await owners()).toEqual([]);
    await addRow(t.sql, b, 'drive', 'account');
    expect(await owners()).toEqual([{ kind: 'drive', routing_key: 'account', workspace_id: b.id }]);
  });
});

describe('two workspaces adding the Notion connector at once', () => {
  it('let exactly one win; the other is refused with DC009', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      await t.sql`delete from doco.connectors`;
      const [first, second] = round % 2 ? [s1, s2] : [s2, s1];
      const [wsFirst, wsSecond] = round % 2 ? [a, b] : [b, a];
      await first.conn`begin`;
      await second.conn`begin`;
      await addRow(first.conn, wsFirst, 'notion', 'integration');
      const racing = started(addRow(second.conn, wsSecond, 'notion', 'integration'));
      expect(await second.blockedOrDone(racing)).toBe('blocked');
      await first.conn`commit`;
      expect(await racing, `round ${round}`).toMatchObject({ ok: false, code: 'DC009' });
      await second.conn`rollback`;
      const rows = await t.sql<{ workspace_id: string }[]>`select workspace_id from doco.connectors where kind = 'notion'`;
      expect(rows).toEqual([{ workspace_id: wsFirst.id }]);
      expect(await owners()).toEqual([{ kind: 'notion', routing_key: 'integration', workspace_id: wsFirst.id }]);
    }
  });

  it('when the first rolls back, the second takes it', async () => {
    await s1.conn`begin`;
    await s2.conn`begin`;
    await addRow(s1.conn, a, 'notion', 'integration');
    const racing = started(addRow(s2.conn, b, 'notion', 'integration'));
    expect(await s2.blockedOrDone(racing)).toBe('blocked');
    await s1.conn`rollback`;
    expect(await racing).toMatchObject({ ok: true });
    await s2.conn`commit`;
    expect(await owners()).toEqual([{ kind: 'notion', routing_key: 'integration', workspace_id: b.id }]);
  });

  it("a holder's last connector removed while it adds another keeps the claim", async () => {
    const [old] = await addRow(t.sql, a, 'drive', 'account', 'folderA0001');
    await s1.conn`begin`;
    await s2.conn`begin`;
    await addRow(s1.conn, a, 'drive', 'account', 'folderB0002');
    const removing = started(s2.conn`delete from doco.connectors where id = ${old!.id} returning id`);
    expect(await s2.blockedOrDone(removing)).toBe('blocked');
    await s1.conn`commit`;
    expect(await removing).toMatchObject({ ok: true });
    await s2.conn`commit`;
    expect(await owners()).toEqual([{ kind: 'drive', routing_key: 'account', workspace_id: a.id }]);
    await expectSqlState(addRow(t.sql, b, 'drive', 'account'), 'DC009');
  });
});
