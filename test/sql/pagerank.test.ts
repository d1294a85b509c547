// PageRank of sql/pagerank.sql: doco.compute_pagerank(collection) over live edges, scaled so
// live records average 1.0; the dirty marks written by edge and lifecycle triggers; and
// doco.pagerank_sweep(), which recomputes exactly the dirty collections, and
// doco.pagerank_sweep_one(), the worker's: one collection a statement, so writes to others never
// wait for the sweep.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { insertEdge, insertNode, one, sqlWorkspace, type SqlWorkspace } from './helpers.js';

let t: TestDb;

beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t.drop());
beforeEach(async () => {
  await t.sql`delete from doco.pagerank_dirty`;
});

const compute = async (collection: string) => one(await t.sql<{ n: number }[]>`select doco.compute_pagerank(${collection}) as n`).n;

async function scores(collection: string): Promise<Map<string, number>> {
  const rows = await t.sql<{ id: string; pagerank: number }[]>`
    select n.id, coalesce(r.pagerank, 0) as pagerank from doco.nodes n left join doco.node_ranks r on r.node_id = n.id where n.collection_id = ${collection}`;
  return new Map(rows.map((r) => [r.id, r.pagerank]));
}

async function liveAverage(collection: string): Promise<number> {
  const { avg } = one(
    await t.sql<{ avg: number }[]>`
    select avg(coalesce(r.pagerank, 0))::float8 as avg from doco.nodes n left join doco.node_ranks r on r.node_id = n.id
     where n.collection_id = ${collection} and n.lifecycle <> 'retired'`,
  );
  return avg;
}

const dirty = async () =>
  (await t.sql<{ collection_id: string }[]>`select collection_id from doco.pagerank_dirty order by 1`).map((r) => r.collection_id);

/** A hub that four others support, plus one edge between two of the others. */
async function star(ws: SqlWorkspace) {
  const hub = await insertNode(t.sql, ws, { title: 'hub' });
  const leaf = (i: number) => insertNode(t.sql, ws, { title: `leaf ${i}` });
  const leaves: [string, string, string, string] = [await leaf(0), await leaf(1), await leaf(2), await leaf(3)];
  for (const leaf of leaves) await insertEdge(t.sql, ws, leaf, hub, 'supports');
  await insertEdge(t.sql, ws, leaves[0], leaves[1], 'relates_to');
  return { hub, leaves };
}

describe('doco.compute_pagerank', () => {
  it('ranks the record many others point to highest, and scores average 1.0', async () => {
    const ws = await sqlWorkspace(t.sql, 'pr-star');
    const { hub, leaves } = await star(ws);
    expect(await compute(ws.constitution)).toBe(5);
    const s = await scores(ws.constitution);
    for (const leaf of leaves) expect(s.get(hub)!).toBeGreaterThan(2 * s.get(leaf)!);
    // leaf 1 is pointed at once; leaves 0, 2, 3 by nobody and score alike.
    expect(s.get(leaves[1])!).toBeGreaterThan(s.get(leaves[0])!);
    expect(s.get(leaves[2])!).toBeCloseTo(s.get(leaves[0])!, 9);
    expect(s.get(leaves[3])!).toBeCloseTo(s.get(leaves[0])!, 9);
    expect(await liveAverage(ws.constitution)).toBeCloseTo(1.0, 9);
  });

  it('gives every record 1.0 when there are no live edges', async () => {
    const ws = await sqlWorkspace(t.sql, 'pr-flat');
    const a = await insertNode(t.sql, ws);
    const b = await insertNode(t.sql, ws);
    await insertEdge(t.sql, ws, a, b, 'supports', 'drafting'); // not live: ignored
    expect(await compute(ws.constitution)).toBe(2);
    for (const score of (await scores(ws.constitution)).values()) expect(score).toBeCloseTo(1.0, 9);
  });

  it('leaves retired records out: scored 0, and the live ones still average 1.0', async () => {
    const ws = await sqlWorkspace(t.sql, 'pr-retired');
    const { hub, leaves } = await star(ws);
    await compute(ws.constitution);
    const before = await scores(ws.constitution);
    expect(before.get(leaves[3])!).toBeGreaterThan(0);

    await t.sql`update doco.nodes set lifecycle = 'retired' where id = ${leaves[3]}`;
    expect(await compute(ws.constitution)).toBe(4);
    const after = await scores(ws.constitution);
    expect(after.get(leaves[3])).toBe(0);
    expect(await liveAverage(ws.constitution)).toBeCloseTo(1.0, 9);
    expect(after.get(hub)!).toBeGreaterThan(after.get(leaves[0])!);

    // The retired leaf's edge to the hub is retired with it, so it no longer lends the hub weight.
    const { n } = one(await t.sql`select count(*)::int as n from doco.edges where from_id = ${leaves[3]} and lifecycle = 'active'`);
    expect(n).toBe(0);
  });

  it('writes the scores beside the records: no record row is rewritten, and a retired record loses its rank row', async () => {
    const ws = await sqlWorkspace(t.sql, 'pr-narrow');
    const { hub, leaves } = await star(ws);
    const rowVersions = async () =>
      new Map(
        (await t.sql<{ id: string; xmin: string }[]>`select id, xmin::text from doco.nodes where collection_id = ${ws.constitution}`).map(
          (r) => [r.id, r.xmin],
        ),
      );
    const before = await rowVersions();
    await compute(ws.constitution);
    expect(await rowVersions()).toEqual(before);
    expect((await t.sql`select node_id from doco.node_ranks where node_id = any(${[hub, ...leaves]})`).length).toBe(5);
    await t.sql`update doco.nodes set lifecycle = 'retired' where id = ${leaves[0]}`;
    await compute(ws.constitution);
    expect(await t.sql`select node_id from doco.node_ranks where node_id = ${leaves[0]}`).toEqual([]);
  });

  it('counts only edges whose two ends are live records of the collection', async () => {
    const ws = await sqlWorkspace(t.sql, 'pr-cross');
    const a = await insertNode(t.sql, ws);
    const b = await insertNode(t.sql, ws);
    const outsider = await insertNode(t.sql, ws, { type: 'principal', title: 'Ann', collection: ws.people });
    await insertEdge(t.sql, ws, outsider, a, 'supports'); // from another collection: not in this graph
    expect(await compute(ws.constitution)).toBe(2);
    const s = await scores(ws.constitution);
    expect(s.get(a)).toBeCloseTo(1.0, 9);
    expect(s.get(b)).toBeCloseTo(1.0, 9);
  });

  it('returns 0 for a collection with no live records, and writes no versions', async () => {
    const ws = await sqlWorkspace(t.sql, 'pr-empty');
    expect(await compute(ws.people)).toBe(0);
    const star2 = await star(ws);
    const { before } = one(await t.sql`select count(*)::int as before from doco.node_versions where workspace_id = ${ws.id}`);
    await compute(ws.constitution);
    const { after } = one(await t.sql`select count(*)::int as after from doco.node_versions where workspace_id = ${ws.id}`);
    expect(after).toBe(before);
    const hub = one(
      await t.sql`select n.version, r.pagerank from doco.nodes n join doco.node_ranks r on r.node_id = n.id where n.id = ${star2.hub}`,
    );
    expect(hub.version).toBe(1);
    expect(hub.pagerank).toBeGreaterThan(1);
  });
});

describe('dirty marks and the sweep', () => {
  it('marks the collection dirty when an edge is inserted', async () => {
    const ws = await sqlWorkspace(t.sql, 'pr-dirty-insert');
    const a = await insertNode(t.sql, ws);
    const b = await insertNode(t.sql, ws);
    expect(await dirty()).toEqual([]);
    await insertEdge(t.sql, ws, a, b);
    expect(await dirty()).toEqual([ws.constitution]);
  });

  it('marks the collection dirty when an edge is retired', async () => {
    const ws = await sqlWorkspace(t.sql, 'pr-dirty-retire');
    const a = await insertNode(t.sql, ws);
    const b = await insertNode(t.sql, ws);
    const e = await insertEdge(t.sql, ws, a, b);
    await t.sql`delete from doco.pagerank_dirty`;
    await t.sql`update doco.edges set lifecycle = 'retired' where id = ${e}`;
    expect(await dirty()).toEqual([ws.constitution]);
  });

  it('marks both collections of an edge that crosses collections', async () => {
    const ws = await sqlWorkspace(t.sql, 'pr-dirty-cross');
    const a = await insertNode(t.sql, ws);
    const p = await insertNode(t.sql, ws, { type: 'principal', title: 'Bo', collection: ws.people });
    await insertEdge(t.sql, ws, a, p, 'attributed_to');
    expect(await dirty()).toEqual([ws.constitution, ws.people].sort());
  });

  it('marks the collection dirty when a record retires, and not for a PageRank write', async () => {
    const ws = await sqlWorkspace(t.sql, 'pr-dirty-node');
    const a = await insertNode(t.sql, ws);
    await t.sql`insert into doco.node_ranks (node_id, pagerank) values (${a}, 2)`;
    await t.sql`update doco.nodes set title = 'renamed' where id = ${a}`;
    expect(await dirty()).toEqual([]);
    await t.sql`update doco.nodes set lifecycle = 'retired' where id = ${a}`;
    expect(await dirty()).toEqual([ws.constitution]);
  });

  it('recomputes exactly the dirty collections, clears them and says how many', async () => {
    const ws1 = await sqlWorkspace(t.sql, 'pr-sweep-1');
    const ws2 = await sqlWorkspace(t.sql, 'pr-sweep-2');
    const quiet = await sqlWorkspace(t.sql, 'pr-sweep-quiet');
    const s1 = await star(ws1);
    const s2 = await star(ws2);
    const q = await insertNode(t.sql, quiet);
    await t.sql`delete from doco.pagerank_dirty where collection_id = ${quiet.constitution}`;
    expect(await dirty()).toEqual([ws1.constitution, ws2.constitution].sort());

    const { swept } = one(await t.sql`select doco.pagerank_sweep() as swept`);
    expect(swept).toBe(2);
    expect(await dirty()).toEqual([]);
    for (const [ws, s] of [
      [ws1, s1],
      [ws2, s2],
    ] as const) {
      const scored = await scores(ws.constitution);
      expect(scored.get(s.hub)!).toBeGreaterThan(scored.get(s.leaves[0])!);
      expect(await liveAverage(ws.constitution)).toBeCloseTo(1.0, 9);
    }
    // Not dirty, so not computed: still at the column default.
    expect((await scores(quiet.constitution)).get(q)).toBe(0);

    const { again } = one(await t.sql`select doco.pagerank_sweep() as again`);
    expect(again).toBe(0);
  });
  it('sweeps one dirty collection a call, and a write to another collection does not wait for it', async () => {
    const ws1 = await sqlWorkspace(t.sql, 'pr-one-1');
    const ws2 = await sqlWorkspace(t.sql, 'pr-one-2');
    const s1 = await star(ws1);
    const s2 = await star(ws2);
    expect(await dirty()).toEqual([ws1.constitution, ws2.constitution].sort());

    // A sweep in a transaction still open holds the first collection's mark.
    const sweeping = await t.sql.reserve();
    try {
      await sweeping`begin`;
      const { collection } = one(await sweeping<{ collection: string }[]>`select doco.pagerank_sweep_one() as collection`);
      const [first, second] = [ws1.constitution, ws2.constitution].sort();
      expect(collection).toBe(first);
      const [mine, other] = first === ws1.constitution ? [s1, s2] : [s2, s1];
      const [mineWs, otherWs] = first === ws1.constitution ? [ws1, ws2] : [ws2, ws1];
      // A write marking the other collection dirty goes through at once.
      await t.sql.begin(async (tx) => {
        await tx`set local lock_timeout = '2s'`;
        await insertEdge(tx, otherWs, other.leaves[2], other.leaves[3]);
      });
      // One marking the collection being swept waits for the sweep's commit, as it must.
      await expect(
        t.sql.begin(async (tx) => {
          await tx`set local lock_timeout = '200ms'`;
          await insertEdge(tx, mineWs, mine.leaves[2], mine.leaves[3]);
        }),
      ).rejects.toMatchObject({ code: '55P03' });
      // The other collection is the next sweep's, even while the first is held.
      const next = one(await t.sql<{ collection: string | null }[]>`select doco.pagerank_sweep_one() as collection`);
      expect(next.collection).toBe(second);
      await sweeping`commit`;
    } finally {
      sweeping.release();
    }
    expect(await dirty()).toEqual([]);
    for (const ws of [ws1, ws2]) expect(await liveAverage(ws.constitution)).toBeCloseTo(1.0, 9);
    expect(one(await t.sql<{ collection: string | null }[]>`select doco.pagerank_sweep_one() as collection`).collection).toBeNull();
  });
});
