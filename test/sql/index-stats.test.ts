// doco.index_stats, the receipt's "searched N tokens": kept by statement triggers on doco.chunks
// as a workspace's shards, one per writing connection (sql/index_stats.sql, migration 0033).
// The shards must add up to what doco.chunks holds, and two drains in different processes must
// not wait for each other on the workspace's figures (they did when it was one row).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type postgres from 'postgres';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { insertNode, one, sqlWorkspace, type SqlWorkspace } from './helpers.js';

let t: TestDb;
let ws: SqlWorkspace;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'index-stats');
});
afterAll(async () => t.drop());

const insertChunk = (sql: postgres.Sql | postgres.ReservedSql, nodeId: string, ordinal: number, body: string) => sql`
  insert into doco.chunks (workspace_id, collection_id, node_id, ordinal, node_type, body, embed_input, content_hash, embedder, tokenizer)
  values (${ws.id}, ${ws.constitution}, ${nodeId}, ${ordinal}, 'rule', ${body}, ${body}, md5(${body}), 'test', 1)`;

const figures = async () =>
  one(
    await t.sql<{ chunks: number; chars: number; held_chunks: number; held_chars: number }[]>`
      select (select coalesce(sum(chunks), 0)::int from doco.index_stats where workspace_id = ${ws.id}) as chunks,
             (select coalesce(sum(chars), 0)::int from doco.index_stats where workspace_id = ${ws.id}) as chars,
             (select count(*)::int from doco.chunks where workspace_id = ${ws.id}) as held_chunks,
             (select coalesce(sum(length(body)), 0)::int from doco.chunks where workspace_id = ${ws.id}) as held_chars`,
  );

describe('doco.index_stats', () => {
  it('adds up, over its shards, to what doco.chunks holds after inserts, updates and deletes', async () => {
    const node = await insertNode(t.sql, ws, { type: 'rule' });
    await insertChunk(t.sql, node, 0, 'Refunds go back to the card that paid.');
    await insertChunk(t.sql, node, 1, 'Never as store credit.');
    await t.sql`update doco.chunks set body = body || ' Ever.' where node_id = ${node} and ordinal = 1`;
    await t.sql`delete from doco.chunks where node_id = ${node} and ordinal = 0`;
    const f = await figures();
    expect(f.held_chunks).toBe(1);
    expect([f.chunks, f.chars]).toEqual([f.held_chunks, f.held_chars]);
  });

  it('lets a second connection index while another holds its transaction open', async () => {
    // Two connections of different shards, as two worker processes' drains would be.
    const held: postgres.ReservedSql[] = [];
    const shardOf = async (c: postgres.ReservedSql) => one(await c<{ shard: number }[]>`select doco.index_stats_shard() as shard`).shard;
    let first: postgres.ReservedSql | undefined;
    let second: postgres.ReservedSql | undefined;
    try {
      // Fewer than the pool holds: sixteen shards make eight connections of one shard unlikely.
      while (!second && held.length < 8) {
        const c = await t.sql.reserve();
        held.push(c);
        if (!first) first = c;
        else if ((await shardOf(c)) !== (await shardOf(first))) second = c;
      }
      expect(second).toBeDefined();
      const [a, b] = [await insertNode(t.sql, ws, { type: 'rule' }), await insertNode(t.sql, ws, { type: 'rule' })];
      await first!`begin`;
      await insertChunk(first!, a, 0, 'A drain that is still embedding holds this open.');
      // With one row a workspace, this waited for the first transaction's end: the timeout ended it.
      await second!`set statement_timeout = '3s'`;
      await insertChunk(second!, b, 0, 'Another drain commits meanwhile.');
      await first!`commit`;
      const f = await figures();
      expect([f.chunks, f.chars]).toEqual([f.held_chunks, f.held_chars]);
    } finally {
      if (first) await first`rollback`.catch(() => {});
      if (second) await second`reset statement_timeout`.catch(() => {});
      for (const c of held) c.release();
    }
  });
});
