// doco.verify_chains() hashes each version's canonical JSON written out as text
// (doco.node_version_text, doco.edge_version_text), the triggers the jsonb of
// doco.node_version_doc / edge_version_doc: the two must be the same text for any content, or
// an intact chain would read as broken.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { insertEdge, insertNode, sqlWorkspace, verifyChains, type SqlWorkspace } from './helpers.js';

let t: TestDb;
let ws: SqlWorkspace;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'chain-text');
});
afterAll(async () => t.drop());

// Quotes, backslashes, control characters, non-ASCII (and beyond the BMP), JSON-looking text,
// and a body with nesting, numbers, nulls, booleans and keys jsonb must order.
const awkward = [
  { title: 'plain', prose: '', body: {} },
  {
    title: 'She said "no" \\ then \\"yes\\"',
    prose: 'tab\there\nnew line\r\u0001\u001f\u007f end',
    body: { z: 1, a: [1, 2.5, -3e-7, null, true] },
  },
  {
    title: 'Ünïcödé — “quotes” 日本語 😀',
    prose: '{"not": "json"}, [1, 2]',
    body: { 'key with spaces': { nested: { deeper: ['x', { y: null }] } }, bb: 'é', a: '' },
  },
  { title: '</script><b>', prose: '\\u0041 is not A', body: { long: 'x'.repeat(5000), num: 12345678901234567890, f: 0.1 } },
];

describe('the canonical text verify_chains() hashes', () => {
  it('is the jsonb text of every node version, whatever the content', async () => {
    const ids: string[] = [];
    for (const r of awkward) ids.push(await insertNode(t.sql, ws, { type: 'principal', collection: ws.people, ...r }));
    await t.sql`update doco.nodes set lifecycle = 'retired' where id = ${ids[1]!}`;
    const rows = await t.sql<{ same: boolean; text: string }[]>`
      select doco.node_version_text(v) = doco.node_version_doc(v)::text as same, doco.node_version_text(v) as text
        from doco.node_versions v where v.node_id = any(${ids})`;
    expect(rows.length).toBe(awkward.length + 1);
    for (const row of rows) expect(row.same, row.text.slice(0, 200)).toBe(true);
  });

  it('is the jsonb text of every edge version', async () => {
    const a = await insertNode(t.sql, ws, { title: 'edge end a' });
    const b = await insertNode(t.sql, ws, { title: 'edge end b' });
    const edge = await insertEdge(t.sql, ws, a, b);
    await t.sql`update doco.edges set lifecycle = 'retired' where id = ${edge}`;
    const rows = await t.sql<{ same: boolean }[]>`
      select doco.edge_version_text(v) = doco.edge_version_doc(v)::text as same from doco.edge_versions v where v.edge_id = ${edge}`;
    expect(rows.map((r) => r.same)).toEqual([true, true]);
  });

  it('leaves every chain of these records intact', async () => {
    expect(await verifyChains(t.sql)).toEqual([]);
  });
});
