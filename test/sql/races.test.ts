// The lifecycle rules under concurrency (sql/lifecycle.sql), through plain SQL on two
// connections, as two psql users would race: each interleaving is forced (the second
// transaction's statement is left running until Postgres reports it blocked, or it finished),
// and each race is run many times.
import type postgres from 'postgres';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { Session, started, type Outcome } from '../helpers/race.js';
import { expectSqlState, insertEdge, insertNode, one, sqlWorkspace, verifyChains, whileTampered, type SqlWorkspace } from './helpers.js';

const ROUNDS = 50;

let t: TestDb;
let ws: SqlWorkspace;
let s1: Session;
let s2: Session;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'races');
  s1 = await Session.open(t.sql);
  s2 = await Session.open(t.sql);
});
beforeEach(async () => {
  await s1.reset();
  await s2.reset();
});
afterAll(async () => {
  await s1.end();
  await s2.end();
  await t.drop();
});

const lifecycleOf = async (id: string) =>
  one(await t.sql<{ lifecycle: string }[]>`select lifecycle from doco.nodes where id = ${id}`).lifecycle;

/** Active edges (other than replaces → old) touching a record that is not active: must always be none. */
const brokenEdges = () => t.sql`
  select e.id from doco.edges e
    join doco.nodes f on f.id = e.from_id
    join doco.nodes o on o.id = e.to_id
   where e.lifecycle = 'active'
     and (f.lifecycle <> 'active' or (o.lifecycle <> 'active' and not (e.edge_type = 'replaces' and o.lifecycle = 'retired')))`;

describe('two transactions superseding one record', () => {
  it('let exactly one win; the other is refused with DC001', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const old = await insertNode(t.sql, ws, { title: `Old ${round}` });
      const [first, second] = round % 2 ? [s1, s2] : [s2, s1];
      const replacements = new Map<Session, string>();
      for (const s of [first, second]) {
        await s.conn`begin`;
        replacements.set(s, await insertNode(s.conn, ws, { title: `New ${round}` }));
      }
      // Both have written their replacement; the first links and retires the old record...
      await insertEdge(first.conn, ws, replacements.get(first)!, old, 'replaces');
      await first.conn`update doco.nodes set lifecycle = 'retired' where id = ${old}`;
      // ...while the second tries the same before the first commits.
      const secondEdge = started(insertEdge(second.conn, ws, replacements.get(second)!, old, 'replaces').then((id) => [id]));
      expect(await second.blockedOrDone(secondEdge)).toBe('blocked');
      await first.conn`commit`;
      const outcome: Outcome = await secondEdge;
      expect(outcome, `round ${round}`).toMatchObject({ ok: false, code: 'DC001' });
      expect((outcome as { message: string }).message).toContain(`already replaced by ${replacements.get(first)}`);
      await second.conn`rollback`;

      expect(await lifecycleOf(old)).toBe('retired');
      const live = await t.sql`select from_id from doco.edges where to_id = ${old} and edge_type = 'replaces' and lifecycle <> 'retired'`;
      expect(live.map((r) => r.from_id)).toEqual([replacements.get(first)]);
    }
    expect(await verifyChains(t.sql)).toEqual([]);
  });

  it('refuses a second live replaces edge one after the other too, and the unique index holds without the triggers', async () => {
    const old = await insertNode(t.sql, ws, { title: 'Old' });
    const a = await insertNode(t.sql, ws, { title: 'A' });
    const b = await insertNode(t.sql, ws, { title: 'B' });
    await insertEdge(t.sql, ws, a, old, 'replaces');
    await expectSqlState(insertEdge(t.sql, ws, b, old, 'replaces'), 'DC001');
    await expectSqlState(insertEdge(t.sql, ws, b, old, 'replaces', 'drafting'), 'DC001');
    // With every trigger off (session_replication_role = replica), the index still refuses it.
    let bypassed: string | undefined;
    await whileTampered(
      t.sql,
      (tx) =>
        (tx as postgres.TransactionSql)
          .savepoint(
            (sp) => sp`
        insert into doco.edges (id, workspace_id, from_id, to_id, edge_type, changeset_id)
        values (doco.new_id('edge'), ${ws.id}, ${b}, ${old}, 'replaces', (select changeset_id from doco.nodes where id = ${b}))`,
          )
          .then(
            () => void (bypassed = 'inserted'),
            (e: { code?: string }) => void (bypassed = e.code),
          ),
      async () => undefined,
    );
    expect(bypassed).toBe('23505');
  });
});

type Mode = 'relate-first' | 'retire-first' | 'activate-first' | 'retire-before-activate';

describe('a relate racing a retire', () => {
  it('never commits an active edge touching a non-active record', async () => {
    const modes: Mode[] = ['relate-first', 'retire-first', 'activate-first', 'retire-before-activate'];
    const seen = new Set<string>();
    for (let round = 0; round < ROUNDS * 2; round++) {
      const mode = modes[round % modes.length]!;
      const from = await insertNode(t.sql, ws, { title: `From ${round}` });
      const to = await insertNode(t.sql, ws, { title: `To ${round}` });
      const retired = Math.floor(round / modes.length) % 2 ? from : to;
      const activating = mode.includes('activate');
      const drafted = activating ? await insertEdge(t.sql, ws, from, to, 'supports', 'drafting') : undefined;
      const relate = (s: Session) =>
        drafted
          ? s.conn`update doco.edges set lifecycle = 'active' where id = ${drafted} returning id`
          : s.conn`insert into doco.edges (id, workspace_id, from_id, to_id, edge_type)
                   values (doco.new_id('edge'), ${ws.id}, ${from}, ${to}, 'supports') returning id`;
      const retire = (s: Session) => s.conn`update doco.nodes set lifecycle = 'retired' where id = ${retired} returning id`;

      const relateFirst = mode === 'relate-first' || mode === 'activate-first';
      const [a, b] = relateFirst ? [relate, retire] : [retire, relate];
      await s1.conn`begin`;
      await s2.conn`begin`;
      expect(await started(a(s1))).toMatchObject({ ok: true });
      const second = started(b(s2));
      seen.add(`${mode}:${await s2.blockedOrDone(second)}`);
      await s1.conn`commit`;
      const outcome = await second;
      if (outcome.ok) await s2.conn`commit`;
      else {
        // Only the relate may lose, and only to the lifecycle rule.
        expect({ mode, code: outcome.code, loser: b === relate }).toEqual({ mode, code: 'DC001', loser: true });
        await s2.conn`rollback`;
      }
      expect(await lifecycleOf(retired)).toBe('retired');
      expect(await brokenEdges(), `round ${round} (${mode}, retiring ${retired === from ? 'from' : 'to'})`).toEqual([]);
    }
    // Every interleaving made the second writer wait for the first.
    expect([...seen].sort()).toEqual(modes.map((m) => `${m}:blocked`).sort());
    expect(await verifyChains(t.sql)).toEqual([]);
  });
});
