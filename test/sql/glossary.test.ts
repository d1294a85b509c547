// Glossary terms from records in a glossary collection, kept by trigger, and the brief's
// glossary retriever finding them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { glossarySeeds } from '../../src/retrieval/retrievers.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
const post = async (path: string, body: unknown) => {
  const res = await api.call('POST', `/api/v1${path}`, ws.writeToken, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};
const terms = async () =>
  t.sql<
    { term: string; definition: string; node_ids: string[] }[]
  >`select term, definition, node_ids from doco.glossary where workspace_id = ${ws.id} order by term`;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'gloss');
  api = makeApp(t);
  await post('/collections', { slug: 'terms', template: 'glossary', goal: 'What our words mean' });
  await post('/collections', { slug: 'docs', template: 'documentation', goal: 'Docs' });
});
afterAll(async () => t.drop());

describe('glossary from records', () => {
  it('a reference in a glossary collection defines its title as a term', async () => {
    const rec = await post('/capture', {
      collection: 'terms',
      node_type: 'reference',
      title: 'Chargeback',
      prose: 'A payment the card network reverses after the customer disputes it.',
    });
    expect(await terms()).toEqual([
      { term: 'Chargeback', definition: 'A payment the card network reverses after the customer disputes it.', node_ids: [rec.node.id] },
    ]);
    const seeds = await glossarySeeds(t.sql, ws.id, 'How do we handle a chargeback on a refunded invoice?');
    expect(seeds.ids).toEqual([rec.node.id]);
    expect(seeds.because.get(rec.node.id)).toBe("defines the glossary term 'Chargeback'");
  });

  it('records outside a glossary collection define nothing', async () => {
    await post('/capture', { collection: 'docs', node_type: 'reference', title: 'Dunning', prose: 'How we chase unpaid invoices.' });
    expect((await terms()).map((r) => r.term)).toEqual(['Chargeback']);
  });

  it('an edit updates the definition, a rename moves the term, a retire removes it', async () => {
    const rec = await post('/capture', {
      collection: 'terms',
      node_type: 'reference',
      title: 'Payout',
      prose: 'Money we send to a merchant.',
    });
    await post('/changeset', { operations: [{ op: 'append', target: rec.node.id, prose: 'Weekly by default.' }] });
    expect((await terms()).find((r) => r.term === 'Payout')?.definition).toBe('Money we send to a merchant.\n\nWeekly by default.');
    await t.sql`update doco.nodes set title = 'Merchant payout' where id = ${rec.node.id}`;
    expect((await terms()).map((r) => r.term)).toEqual(['Chargeback', 'Merchant payout']);
    await post('/changeset', { operations: [{ op: 'retire', target: rec.node.id }] });
    expect((await terms()).map((r) => r.term)).toEqual(['Chargeback']);
  });
});
