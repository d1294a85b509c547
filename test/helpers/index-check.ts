// What the index must hold after a load or a crash: chunks for every live record of a collection
// and none for a retired one, and, with Qdrant (the loopback fake), exactly those chunks' points.
// Shared by the crash suite (test/crash/changesets.test.ts) and the scale suite (test/scale/).
import type postgres from 'postgres';
import { expect } from 'vitest';
import type { FakeQdrant } from './fake-qdrant.js';

const EMBEDDER = 'local-hash-v1/512';
const sorted = (ids: Iterable<string>) => [...ids].sort();

/** Chunks exist for every live record of `collection` and for no retired one; returns chunk id → record. */
export async function expectChunksOfLiveRecordsOnly(sql: postgres.Sql, collection: string): Promise<Map<string, string>> {
  const [row] = await sql<{ unindexed: number; retired_chunks: number; dupes: number }[]>`
    select (select count(*)::int from doco.nodes n join doco.collections c on c.id = n.collection_id
             where c.slug = ${collection} and n.lifecycle <> 'retired' and not exists (select 1 from doco.chunks k where k.node_id = n.id)) as unindexed,
           (select count(*)::int from doco.chunks k join doco.nodes n on n.id = k.node_id where n.lifecycle = 'retired') as retired_chunks,
           (select count(*)::int from (select 1 from doco.chunks group by node_id, ordinal having count(*) > 1) d) as dupes`;
  expect(row).toEqual({ unindexed: 0, retired_chunks: 0, dupes: 0 });
  const chunks = await sql<{ id: string; node_id: string }[]>`select id::text, node_id from doco.chunks where embedder = ${EMBEDDER}`;
  expect((await sql`select count(*)::int as n from doco.chunks where embedder <> ${EMBEDDER}`)[0]!.n).toBe(0);
  return new Map(chunks.map((c) => [c.id, c.node_id]));
}

/** The Qdrant fake's one collection holds exactly the points of `chunks`, each with its record. */
export function expectQdrantHolds(qdrant: FakeQdrant, chunks: Map<string, string>): void {
  const collections = [...qdrant.collections.values()];
  expect(collections).toHaveLength(1);
  const points = new Map([...collections[0]!.points.values()].map((p) => [String(p.id), p.payload.node_id]));
  expect(sorted(points.keys()), 'Qdrant holds exactly the chunks of doco.chunks').toEqual(sorted(chunks.keys()));
  for (const [id, nodeId] of chunks) expect(points.get(id)).toBe(nodeId);
}

/** Both of the above: the live records' chunks, and Qdrant exactly them. Returns chunk id → record. */
export async function expectIndexHoldsLiveChunks(sql: postgres.Sql, collection: string, qdrant: FakeQdrant): Promise<Map<string, string>> {
  const chunks = await expectChunksOfLiveRecordsOnly(sql, collection);
  expectQdrantHolds(qdrant, chunks);
  return chunks;
}
