// A chunk's embedding input, held whole (rows written before migration 0034, or an input that
// does not hold the body) or as the text around its body: doco.chunk_embed_input reads either,
// and a row never holds both.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { insertNode, one, sqlWorkspace, type SqlWorkspace } from './helpers.js';

let t: TestDb;
let ws: SqlWorkspace;
let node: string;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'chunk-embed-input');
  node = await insertNode(t.sql, ws, { type: 'rule' });
});
afterAll(async () => t.drop());

const insertChunk = (ordinal: number, input: { embed_input?: string; embed_before?: string; embed_after?: string }) => t.sql`
  insert into doco.chunks (workspace_id, collection_id, node_id, ordinal, node_type, body, embed_input, embed_before, embed_after,
                           content_hash, embedder, tokenizer)
  values (${ws.id}, ${ws.constitution}, ${node}, ${ordinal}, 'rule', 'Refunds go back to the card that paid.',
          ${input.embed_input ?? null}, ${input.embed_before ?? ''}, ${input.embed_after ?? ''}, md5(${String(ordinal)}), 'test', 1)`;

const inputOf = async (ordinal: number) =>
  one(
    await t.sql<{ input: string }[]>`
      select doco.chunk_embed_input(c) as input from doco.chunks c where node_id = ${node} and ordinal = ${ordinal}`,
  ).input;

describe('doco.chunk_embed_input', () => {
  it('reads an input held whole as it is, and one held as the text around the body put back together', async () => {
    await insertChunk(0, { embed_input: 'Billing — Refunds\nRefunds go back to the card that paid.' });
    await insertChunk(1, { embed_before: 'Billing — Refunds\n' });
    await insertChunk(2, { embed_after: '\nGuide > Setup' });
    expect(await inputOf(0)).toBe('Billing — Refunds\nRefunds go back to the card that paid.');
    expect(await inputOf(1)).toBe('Billing — Refunds\nRefunds go back to the card that paid.');
    expect(await inputOf(2)).toBe('Refunds go back to the card that paid.\nGuide > Setup');
  });

  it('refuses a row holding the input both whole and in parts, and writes nothing', async () => {
    await expect(
      insertChunk(3, { embed_input: 'A header\nRefunds go back to the card that paid.', embed_before: 'A header\n' }),
    ).rejects.toThrow(/chunks_embed_input_once/);
    expect(one(await t.sql<{ n: number }[]>`select count(*)::int as n from doco.chunks where node_id = ${node} and ordinal = 3`).n).toBe(0);
  });
});
