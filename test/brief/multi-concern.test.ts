// A multi-part ask gets each concern covered (docs/brief.md): two dozen sections answer the long first
// clause and mention the operator guide in passing; one section is about updating that guide,
// the short trailing concern ("…, and update the operator guide"). Its words are common, so by
// relevance to the whole ask it ranks below the first clause's many; the brief lifts it among
// its first ten items and sends it in full. Real Postgres, real write path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Brief, Item } from '../../src/brief/types.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { docSection, writer } from '../helpers/brief-docs.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { drainAll, localProviders } from '../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
const providers = localProviders();
let guide = '';

const ranked = (b: Brief): Item[] =>
  Object.values(b.tiers)
    .flat()
    .sort((x, y) => y.score - x.score);

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'multi-concern');
  api = makeApp(t, undefined, providers);
  const post = writer(api, () => ws);
  await post('/collections', { slug: 'docs', template: 'documentation', goal: 'The service documentation' });
  const words = ['retention', 'period', 'compaction', 'blocks', 'bucket', 'storage', 'tenant', 'metrics'];
  for (let i = 0; i < 24; i++) {
    const some = words.filter((_, w) => (i >> (w % 4)) & 1 || w === i % 8).join(', ');
    await post(
      '/capture',
      docSection(
        `docs/storage/note-${i}.md`,
        `Storage note ${i}: ${words[i % 8]} and ${words[(i + 3) % 8]}`,
        `How the storage of metrics blocks works, part ${i}: ${some}. The retention period of each tenant's blocks in the bucket and the compaction of old blocks decide how much storage a tenant uses; the operator guide has the defaults.`,
      ),
    );
  }
  guide = (
    await post(
      '/capture',
      docSection(
        'docs/contributing/operator-guide.md',
        'Updating the operator guide',
        'A change an operator can see updates the operator guide in the same pull request: the guide page of the component, its defaults table, and the upgrade notes of the operator guide. Reviewers check that the operator guide was updated.',
      ),
    )
  ).node.id;
  await drainAll(t.sql, providers);
});
afterAll(async () => t.drop());

describe('a multi-part ask whose trailing concern shares no word with the rest', () => {
  it('puts the one section answering that concern among the first ten items, sent in full', async () => {
    const res = await api.call('POST', '/api/v1/brief', ws.readToken, {
      about:
        "shorten the retention period of each tenant's metrics blocks in the storage bucket and speed up the compaction of old blocks, and update the operator guide",
      budget: 4000,
    });
    expect(res.status).toBe(200);
    const items = ranked(res.body as Brief);
    const at = items.findIndex((i) => i.id === guide);
    expect(at, JSON.stringify(items.map((i) => [i.title, i.score]))).toBeGreaterThanOrEqual(0);
    expect(at).toBeLessThan(10);
    expect(items[at]!.expanded).toBe(true);
    // The first clause keeps most of the first places.
    expect(items.slice(0, 10).filter((i) => i.title.startsWith('docs/storage/')).length).toBeGreaterThanOrEqual(7);
  });
});
