// One hop over the graph: each of the top seeds brings its newest 5 live neighbours (an edge
// between two seeds counts for both), a retired seed brings the record that replaced it, and a
// record with thousands of live edges sends Postgres's newest 5 only (it sent them all, and the
// lists per seed were copied at every edge: 22 s for one brief at 20,000 edges).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hop, HOP_PER_SEED } from '../../src/retrieval/hop.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { insertEdge, insertNode, sqlWorkspace, type SqlWorkspace } from '../sql/helpers.js';

let t: TestDb;
let ws: SqlWorkspace;
let hub: string;
let other: string;
/** The hub's neighbours, oldest edge first. */
const neighbours: string[] = [];

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'hop');
  hub = await insertNode(t.sql, ws, { title: 'Hub' });
  other = await insertNode(t.sql, ws, { title: 'Other seed' });
  for (let i = 0; i < 12; i++) {
    const n = await insertNode(t.sql, ws, { title: `Neighbour ${i}` });
    neighbours.push(n);
    await insertEdge(t.sql, ws, i % 2 ? hub : n, i % 2 ? n : hub);
  }
  // The newest edge of all joins the two seeds; a retired edge and a queued one never count.
  await insertEdge(t.sql, ws, neighbours[0]!, hub, 'relates_to', 'retired');
  const queued = await insertNode(t.sql, ws, { title: 'Queued neighbour' });
  await insertEdge(t.sql, ws, hub, queued, 'supports', 'queued');
  await insertEdge(t.sql, ws, other, hub, 'supports');
});
afterAll(async () => t.drop());

describe('hop', () => {
  it("brings each seed's newest live neighbours, an edge between seeds counting for both", async () => {
    const got = await hop(t.sql, ws.id, [hub, other]);
    const newestOfHub = [...neighbours].reverse().slice(0, HOP_PER_SEED - 1);
    expect(got.ids).toEqual([other, ...newestOfHub, hub]);
    expect(got.because.get(other)).toBe(`linked to ${hub} (supports)`);
    expect(got.because.get(newestOfHub[0]!)).toBe(`linked to ${hub} (relates_to)`);
    expect(got.because.get(hub)).toBe(`linked to ${other} (supports)`);
    expect(got.via.get(neighbours[11]!)).toBe(hub);
  });

  it('reads the newest 5 of a record with thousands of live edges, in the order of a full read', async () => {
    const many = await t.sql<{ id: string }[]>`
      insert into doco.nodes (id, workspace_id, collection_id, node_type, title, prose)
      select doco.new_id('rule'), ${ws.id}, ${ws.constitution}, 'rule', 'Spoke ' || g, 'Stands as written.'
        from generate_series(1, 3000) g returning id`;
    await t.sql`
      insert into doco.edges (id, workspace_id, from_id, to_id, edge_type)
      select doco.new_id('edge'), ${ws.id}, ${other}, id, 'relates_to' from unnest(${many.map((m) => m.id)}::text[]) as id`;
    // One statement, one time: ties broken by from_id, to_id, edge_type, as a full read orders them.
    const want = (
      await t.sql<{ to_id: string }[]>`
        select to_id from doco.edges where from_id = ${other} and lifecycle = 'active' and edge_type <> 'replaces' or to_id = ${other} and lifecycle = 'active'
         order by updated_at desc, from_id, to_id, edge_type limit ${HOP_PER_SEED}`
    ).map((r) => (r.to_id === other ? hub : r.to_id));
    const got = await hop(t.sql, ws.id, [other]);
    expect(got.ids).toEqual(want);
  });
});
