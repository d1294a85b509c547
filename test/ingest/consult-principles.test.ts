// The "consult principles" call (docs/ingest.md) over ingested docs: the first 400 characters of a spec,
// filtered to architecture principles, at most four of those that pass search's floor, each cut to 400 characters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { ingestTree, makeTree, removeTree } from '../helpers/docs.js';
import { drainAll, localProviders } from '../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
let root: string;
const providers = localProviders();

const long = (topic: string) =>
  `${topic} is decided here, once, for every service. ` +
  'Each caller follows it without exception, and reviews check it before a change merges. '.repeat(12);

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'consult');
  api = makeApp(t, undefined, providers);
  const principles = [
    'Idempotent webhook delivery',
    'Ledger entries are append-only',
    'Retries use exponential backoff',
    'Tenants never share a cache key',
    'Money is stored in minor units',
    'Clocks come from the database',
  ];
  root = await makeTree({
    'docs/architecture/principles.md': `# Principles\n\n${principles.map((p) => `## ${p}\n\n${long(p)}`).join('\n\n')}`,
    'docs/guides/webhooks.md': `# Webhooks guide\n\n## Delivering webhooks\n\n${long('Idempotent webhook delivery in practice')}`,
  });
  await ingestTree(t, ws, root);
  await drainAll(t.sql, providers);
});
afterAll(async () => {
  await t.drop();
  await removeTree(root);
});

describe('consult principles', () => {
  it('returns at most four architecture principles, the relevant ones, best first, cut to 400 characters', async () => {
    const spec =
      'Add a retry to webhook delivery so a receiver that times out gets the same event again, delivered idempotently, with exponential backoff between attempts. '
        .repeat(4)
        .slice(0, 400);
    const res = await api.call('GET', `/api/v1/search?shape=architecturePrinciple&limit=4&q=${encodeURIComponent(spec)}`, ws.readToken);
    expect(res.status).toBe(200);
    const results = res.body.results as { title: string; text: string; source: { pointer: { path: string } } }[];
    // The principles this spec is about; the other four share no word with it and stay under
    // search's floor (docs/search.md), so fewer than four come back.
    expect(results.map((r) => r.title)).toEqual([
      'Principles — Retries use exponential backoff',
      'Principles — Idempotent webhook delivery',
    ]);
    for (const r of results) {
      expect(r.source.pointer.path).toBe('docs/architecture/principles.md');
      expect(r.text.length).toBeLessThanOrEqual(400);
    }
    // The guide's section is a docSection: never a principle, however well it matches.
    expect(results.map((r) => r.title).join(' ')).not.toContain('Webhooks guide');
    expect(
      results
        .slice(0, 2)
        .map((r) => r.title)
        .join(' '),
    ).toMatch(/Idempotent webhook delivery|Retries use exponential backoff/);
  });
});
