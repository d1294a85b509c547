// Where a record's full-text vector is stored (migration 0022): in the row, so the full-text
// seed's ranking of many matches reads no TOAST table; a long prose goes out of line instead.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { insertNode, one, sqlWorkspace, type SqlWorkspace } from './helpers.js';

let t: TestDb;
let ws: SqlWorkspace;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'tsv-storage');
});
afterAll(async () => t.drop());

/** Prose of distinct words (a tsvector of it does not compress), about `words` long. */
function distinctProse(words: number, seed: string): string {
  return Array.from({ length: words }, (_, i) => `${seed}${i.toString(36)}word`).join(' ');
}

async function storage(id: string) {
  return one(
    await t.sql<{ tsv_out_of_line: boolean; prose_out_of_line: boolean }[]>`
    select pg_column_toast_chunk_id(search_tsv) is not null as tsv_out_of_line,
           pg_column_toast_chunk_id(prose) is not null as prose_out_of_line
      from doco.nodes where id = ${id}`,
  );
}

describe('search_tsv storage', () => {
  it('keeps the tsvector of a record past the TOAST target in its row, and moves the prose out', async () => {
    // ~300 distinct words: a tsvector of ~4 kB and a prose of ~3.5 kB that pglz cannot shrink
    // by much, so the row must give up one of them to fit the 2 kB target.
    const id = await insertNode(t.sql, ws, { type: 'state', collection: ws.people, prose: distinctProse(300, 'q') });
    expect(await storage(id)).toEqual({ tsv_out_of_line: false, prose_out_of_line: true });
  });

  it('leaves a short record wholly in its row', async () => {
    const id = await insertNode(t.sql, ws, { type: 'state', collection: ws.people, prose: 'A short note about refunds.' });
    expect(await storage(id)).toEqual({ tsv_out_of_line: false, prose_out_of_line: false });
  });
});
