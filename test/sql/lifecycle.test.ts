// Lifecycle rules of sql/lifecycle.sql, exercised through plain SQL: drafting → queued → active
// → retired, forward only, retired final; active edges only between active records (except
// `replaces` new → old); retiring a record retires its edges; no cross-workspace edges; no deletes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { edgeRow, expectSqlState, insertEdge, insertNode, nodeRow, one, sqlWorkspace, type SqlWorkspace } from './helpers.js';

let t: TestDb;
let ws: SqlWorkspace;
let other: SqlWorkspace;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'life');
  other = await sqlWorkspace(t.sql, 'life-other');
});
afterAll(async () => t.drop());

const setNode = (id: string, lifecycle: string) => t.sql`update doco.nodes set lifecycle = ${lifecycle} where id = ${id}`;
const setEdge = (id: string, lifecycle: string) => t.sql`update doco.edges set lifecycle = ${lifecycle} where id = ${id}`;

describe('record lifecycle', () => {
  it('moves forward one step at a time, each step a new version', async () => {
    const id = await insertNode(t.sql, ws, { lifecycle: 'drafting' });
    for (const step of ['queued', 'active', 'retired']) await setNode(id, step);
    const versions = await t.sql`select version, lifecycle from doco.node_versions where node_id = ${id} order by version`;
    expect(versions.map((v) => [v.version, v.lifecycle])).toEqual([
      [1, 'drafting'],
      [2, 'queued'],
      [3, 'active'],
      [4, 'retired'],
    ]);
  });

  it('may skip forward (drafting → active, drafting → retired)', async () => {
    const a = await insertNode(t.sql, ws, { lifecycle: 'drafting' });
    await setNode(a, 'active');
    expect((await nodeRow(t.sql, a)).lifecycle).toBe('active');
    const b = await insertNode(t.sql, ws, { lifecycle: 'drafting' });
    await setNode(b, 'retired');
    expect((await nodeRow(t.sql, b)).lifecycle).toBe('retired');
  });

  it('refuses to move back (DC001) and leaves the record as it was', async () => {
    const id = await insertNode(t.sql, ws);
    await expectSqlState(setNode(id, 'queued'), 'DC001');
    await expectSqlState(setNode(id, 'drafting'), 'DC001');
    const queued = await insertNode(t.sql, ws, { lifecycle: 'queued' });
    await expectSqlState(setNode(queued, 'drafting'), 'DC001');
    expect(await nodeRow(t.sql, id)).toMatchObject({ lifecycle: 'active', version: 1 });
    expect(await nodeRow(t.sql, queued)).toMatchObject({ lifecycle: 'queued', version: 1 });
  });

  it('treats retired as final: no way back and no content change', async () => {
    const id = await insertNode(t.sql, ws, { title: 'Old rule', prose: 'old', body: { k: 1 } });
    await setNode(id, 'retired');
    await expectSqlState(setNode(id, 'active'), 'DC001');
    await expectSqlState(setNode(id, 'drafting'), 'DC001');
    await expectSqlState(t.sql`update doco.nodes set title = 'New title' where id = ${id}`, 'DC001');
    await expectSqlState(t.sql`update doco.nodes set prose = 'new' where id = ${id}`, 'DC001');
    await expectSqlState(t.sql`update doco.nodes set body = '{"k": 2}' where id = ${id}`, 'DC001');
    await expectSqlState(t.sql`update doco.nodes set collection_id = ${ws.people} where id = ${id}`, 'DC001');
    expect(await nodeRow(t.sql, id)).toMatchObject({ lifecycle: 'retired', title: 'Old rule', prose: 'old', body: { k: 1 }, version: 2 });
  });
});

describe('edge lifecycle', () => {
  it('moves forward only, and retired is final', async () => {
    const a = await insertNode(t.sql, ws);
    const b = await insertNode(t.sql, ws);
    const e = await insertEdge(t.sql, ws, a, b, 'supports', 'drafting');
    await setEdge(e, 'queued');
    await setEdge(e, 'active');
    await expectSqlState(setEdge(e, 'queued'), 'DC001');
    await expectSqlState(setEdge(e, 'drafting'), 'DC001');
    expect(await edgeRow(t.sql, e)).toMatchObject({ lifecycle: 'active', version: 3 });
    await setEdge(e, 'retired');
    await expectSqlState(setEdge(e, 'active'), 'DC001');
    expect(await edgeRow(t.sql, e)).toMatchObject({ lifecycle: 'retired', version: 4 });
  });

  it('refuses an active edge from or to a record that is not active', async () => {
    const active = await insertNode(t.sql, ws);
    const drafting = await insertNode(t.sql, ws, { lifecycle: 'drafting' });
    const queued = await insertNode(t.sql, ws, { lifecycle: 'queued' });
    const retired = await insertNode(t.sql, ws, { lifecycle: 'retired' });
    const { count: before } = one(await t.sql`select count(*)::int from doco.edges`);
    await expectSqlState(insertEdge(t.sql, ws, active, drafting), 'DC001');
    await expectSqlState(insertEdge(t.sql, ws, drafting, active), 'DC001');
    await expectSqlState(insertEdge(t.sql, ws, active, queued, 'supports'), 'DC001');
    await expectSqlState(insertEdge(t.sql, ws, active, retired, 'derived_from'), 'DC001');
    await expectSqlState(insertEdge(t.sql, ws, retired, active, 'replaces'), 'DC001');
    const { count: after } = one(await t.sql`select count(*)::int from doco.edges`);
    expect(after).toBe(before);
  });

  it('lets a drafting edge wait for its records, and becomes active only once they are', async () => {
    const a = await insertNode(t.sql, ws);
    const b = await insertNode(t.sql, ws, { lifecycle: 'drafting' });
    const e = await insertEdge(t.sql, ws, a, b, 'flows_to', 'drafting');
    await expectSqlState(setEdge(e, 'active'), 'DC001');
    await setNode(b, 'active');
    await setEdge(e, 'active');
    expect((await edgeRow(t.sql, e)).lifecycle).toBe('active');
  });

  it('refuses a new edge, even one waiting for review, from or to a retired record (DC001): it could never go live', async () => {
    const live = await insertNode(t.sql, ws);
    const gone = await insertNode(t.sql, ws, { lifecycle: 'retired' });
    for (const lifecycle of ['drafting', 'queued', 'active']) {
      await expectSqlState(insertEdge(t.sql, ws, live, gone, 'relates_to', lifecycle), 'DC001');
      await expectSqlState(insertEdge(t.sql, ws, gone, live, 'relates_to', lifecycle), 'DC001');
    }
    expect(await t.sql`select 1 from doco.edges where from_id = ${gone} or to_id = ${gone}`).toHaveLength(0);
    // A proposed replacement of a retired record may wait, as an active one may stand.
    expect((await edgeRow(t.sql, await insertEdge(t.sql, ws, live, gone, 'replaces', 'queued'))).lifecycle).toBe('queued');
  });
});

describe('replaces (new → old)', () => {
  it('may be created, active, towards an already-retired record', async () => {
    const old = await insertNode(t.sql, ws, { lifecycle: 'retired' });
    const next = await insertNode(t.sql, ws);
    const e = await insertEdge(t.sql, ws, next, old, 'replaces');
    expect(await edgeRow(t.sql, e)).toMatchObject({ lifecycle: 'active', version: 1 });
  });

  it('stays active when the old record retires, while its other edges retire', async () => {
    const old = await insertNode(t.sql, ws);
    const next = await insertNode(t.sql, ws);
    const peer = await insertNode(t.sql, ws);
    const replaces = await insertEdge(t.sql, ws, next, old, 'replaces');
    const outgoing = await insertEdge(t.sql, ws, old, peer, 'supports');
    await setNode(old, 'retired');
    expect(await edgeRow(t.sql, replaces)).toMatchObject({ lifecycle: 'active', version: 1 });
    expect(await edgeRow(t.sql, outgoing)).toMatchObject({ lifecycle: 'retired', version: 2 });
  });

  it('is retired when the record it comes from (the new one) retires', async () => {
    const old = await insertNode(t.sql, ws, { lifecycle: 'retired' });
    const next = await insertNode(t.sql, ws);
    const replaces = await insertEdge(t.sql, ws, next, old, 'replaces');
    await setNode(next, 'retired');
    expect(await edgeRow(t.sql, replaces)).toMatchObject({ lifecycle: 'retired', version: 2 });
  });
});

describe('retiring a record', () => {
  it('retires its live edges in both directions, in the same transaction, and no others', async () => {
    const hub = await insertNode(t.sql, ws);
    const [p, q, r, s] = [
      await insertNode(t.sql, ws),
      await insertNode(t.sql, ws),
      await insertNode(t.sql, ws),
      await insertNode(t.sql, ws),
    ];
    const out = await insertEdge(t.sql, ws, hub, p, 'supports');
    const inc = await insertEdge(t.sql, ws, q, hub, 'constrained_by');
    const draftIn = await insertEdge(t.sql, ws, r, hub, 'relates_to', 'drafting');
    const queuedOut = await insertEdge(t.sql, ws, hub, r, 'flows_to', 'queued');
    const alreadyRetired = await insertEdge(t.sql, ws, hub, s, 'derived_from');
    await setEdge(alreadyRetired, 'retired');
    const unrelated = await insertEdge(t.sql, ws, p, q, 'supports');

    const { txid } = one(
      await t.sql.begin(async (tx) => {
        await tx`update doco.nodes set lifecycle = 'retired' where id = ${hub}`;
        return tx`select txid_current()::text as txid`;
      }),
    );

    for (const e of [out, inc, draftIn, queuedOut]) {
      const row = one(
        await t.sql`
        select e.lifecycle, e.version, cs.txid::text as txid
          from doco.edges e join doco.changesets cs on cs.id = e.changeset_id where e.id = ${e}`,
      );
      expect(row).toEqual({ lifecycle: 'retired', version: 2, txid });
    }
    // The edge that was already retired is not written again; an edge not touching hub stays.
    expect(await edgeRow(t.sql, alreadyRetired)).toMatchObject({ lifecycle: 'retired', version: 2 });
    expect(await edgeRow(t.sql, unrelated)).toMatchObject({ lifecycle: 'active', version: 1 });
    const node = one(
      await t.sql`select n.version, cs.txid::text as txid from doco.nodes n join doco.changesets cs on cs.id = n.changeset_id where n.id = ${hub}`,
    );
    expect(node).toEqual({ version: 2, txid });
  });

  it('rolls back with the retirement: a refused transaction leaves the edges live', async () => {
    const a = await insertNode(t.sql, ws);
    const b = await insertNode(t.sql, ws);
    const e = await insertEdge(t.sql, ws, a, b);
    await expectSqlState(
      t.sql.begin(async (tx) => {
        await tx`update doco.nodes set lifecycle = 'retired' where id = ${a}`;
        await tx`update doco.nodes set lifecycle = 'active' where id = ${a}`;
      }),
      'DC001',
    );
    expect(await edgeRow(t.sql, e)).toMatchObject({ lifecycle: 'active', version: 1 });
    expect(await nodeRow(t.sql, a)).toMatchObject({ lifecycle: 'active', version: 1 });
  });
});

describe('workspace boundaries and deletes', () => {
  it('refuses an edge between records of two workspaces (DC004)', async () => {
    const mine = await insertNode(t.sql, ws);
    const theirs = await insertNode(t.sql, other);
    await expectSqlState(insertEdge(t.sql, ws, mine, theirs), 'DC004');
    await expectSqlState(insertEdge(t.sql, ws, theirs, mine), 'DC004');
    await expectSqlState(insertEdge(t.sql, other, mine, theirs, 'supports', 'drafting'), 'DC004');
    // Both records in one workspace, but the edge claims the other one.
    const mine2 = await insertNode(t.sql, ws);
    await expectSqlState(insertEdge(t.sql, other, mine, mine2), 'DC004');
    const { count } = one(await t.sql`select count(*)::int from doco.edges where ${mine} in (from_id, to_id)`);
    expect(count).toBe(0);
  });

  it('refuses to delete or truncate records and edges (DC005)', async () => {
    const a = await insertNode(t.sql, ws);
    const b = await insertNode(t.sql, ws);
    const e = await insertEdge(t.sql, ws, a, b);
    await expectSqlState(t.sql`delete from doco.edges where id = ${e}`, 'DC005');
    await expectSqlState(t.sql`delete from doco.nodes where id = ${b}`, 'DC005');
    await expectSqlState(t.sql`delete from doco.nodes where id = ${a}`, 'DC005');
    await expectSqlState(t.sql`truncate doco.edges cascade`, 'DC005');
    await expectSqlState(t.sql`truncate doco.nodes cascade`, 'DC005');
    expect(await nodeRow(t.sql, a)).toBeDefined();
    expect(await nodeRow(t.sql, b)).toBeDefined();
    expect(await edgeRow(t.sql, e)).toBeDefined();
  });
});
