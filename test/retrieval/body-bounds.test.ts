// What a brief and a search read of a record's body is bounded (sql/candidates.sql): a body may
// hold 256 KiB whoever wrote it, and every search result and brief item carried its pointer as
// written: 100 queued records with a 240 KB pointer each made a person's search answer 24 MB
// (48 MB over MCP), and every later brief ~1 MB (a hostile review).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { drainAll, localProviders } from '../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
const providers = localProviders();
const NOTE = 'zebra quokka crossing '.repeat(9_000); // 198 KB

const bodyOf = async (body: unknown) =>
  (await t.sql<{ b: unknown }[]>`select doco.candidate_body(${t.sql.json(body as never)}::jsonb) as b`)[0]!.b;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'body-bounds');
  api = makeApp(t, undefined, providers);
  for (let i = 0; i < 5; i++) {
    const res = await api.call('POST', '/api/v1/capture', ws.writeToken, {
      collection: 'constitution',
      node_type: 'reference',
      title: `Zebra crossing ${i}`,
      prose: `Quokkas use zebra crossing ${i} at dawn.`,
      body: {
        pointer: { path: `docs/crossings/${i}.md`, note: NOTE, extra: { nested: true } },
        heading_path: Array.from({ length: 40 }, () => 'h'.repeat(900)),
      },
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(201);
  }
  // One that does not compress: stored large, so Postgres sends only the projection (doco.candidate_body).
  const res = await api.call('POST', '/api/v1/capture', ws.writeToken, {
    collection: 'constitution',
    node_type: 'reference',
    title: 'Zebra crossing noise',
    prose: 'Quokkas use the noisy zebra crossing too.',
    body: { pointer: { path: 'docs/crossings/noise.md', note: randomBytes(100_000).toString('base64') } },
  });
  expect(res.status).toBe(201);
  const [stored] = await t.sql<{ size: number }[]>`select pg_column_size(body) as size from doco.nodes where id = ${res.body.node.id}`;
  expect(stored!.size).toBeGreaterThan(100_000);
  await drainAll(t.sql, providers);
});
afterAll(async () => t.drop());

describe('a record body as retrieval reads it', () => {
  it('keeps every pointer Doco writes as written', async () => {
    for (const pointer of [
      { path: 'docs/adr/adr-042.md', heading: 'Decision', section_key: 'docs/adr/adr-042.md#decision' },
      { page_id: 'abc', url: 'https://www.notion.so/abc', parent: { type: 'database', id: null } },
      { repo: 'acme/app', number: 7, url: 'https://github.com/acme/app/pull/7', state: 'open' },
    ])
      expect(await bodyOf({ source_kind: 'github', shape: 'githubPr', pointer, question: 'not read' })).toEqual({
        source_kind: 'github',
        shape: 'githubPr',
        pointer,
      });
  });

  it('cuts a large pointer to its first 20 short fields and ten headings of 300 characters', async () => {
    const wide = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${String(i).padStart(2, '0')}`, 'v'.repeat(100)]));
    const b = (await bodyOf({ pointer: { ...wide, deep: { x: 1 } }, heading_path: Array.from({ length: 12 }, () => 'h'.repeat(400)) })) as {
      pointer: Record<string, string>;
      heading_path: string[];
    };
    expect(Object.keys(b.pointer)).toEqual(Object.keys(wide).slice(0, 20));
    expect(b.heading_path).toHaveLength(10);
    expect(b.heading_path.every((h) => h.length === 300)).toBe(true);
    expect(await bodyOf({ shape: 's'.repeat(1001), pointer: 'docs/a.md' })).toEqual({});
  });

  it('sends a search result and a brief item a bounded pointer, whatever the record holds', async () => {
    const search = await api.call('GET', '/api/v1/search?q=zebra%20quokka%20crossing&limit=100', ws.readToken);
    expect(search.status).toBe(200);
    expect(search.body.results.length).toBe(6);
    expect(JSON.stringify(search.body).length).toBeLessThan(30_000);
    for (const r of search.body.results) {
      expect(r.source.pointer.path).toMatch(/^docs\/crossings\/(\d|noise)\.md$/);
      expect(r.source.pointer.note).toHaveLength(500);
      expect(r.source.pointer.note.endsWith('…')).toBe(true);
      expect(r.source.pointer.extra).toBeUndefined();
    }
    const brief = await api.call('POST', '/api/v1/brief', ws.readToken, { about: 'zebra quokka crossing' });
    expect(brief.status).toBe(200);
    expect(JSON.stringify(brief.body).length).toBeLessThan(40_000);
  });
});
