// The vector never lags the text: a section updated in place gets new chunk content hashes and
// is re-embedded by the outbox drain, an unchanged one is not, and a reaped section's chunks
// leave the index.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { countingEmbedder } from '../helpers/counting-embedder.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { ingestTree, makeTree, manifestRecords, prose, removeTree, writeTree } from '../helpers/docs.js';
import { drainAll, localProviders } from '../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let root: string;
const embedder = countingEmbedder();
const providers = localProviders({ embedder });
const doc = (refunds: string) =>
  `# Billing\n\n## Invoices\n\n${prose('invoice')}\n\n## Refunds\n\n${refunds}\n\n## Taxes\n\n${prose('tax')}\n\n## Dunning\n\n${prose('dunning')}`;

const chunksOf = async (nodeId: string) =>
  t.sql<
    { content_hash: string; embed_input: string }[]
  >`select content_hash, doco.chunk_embed_input(c) as embed_input from doco.chunks c where node_id = ${nodeId} order by ordinal`;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'doc-index');
  root = await makeTree({ 'docs/billing.md': doc(prose('refund')) });
  await ingestTree(t, ws, root);
  await drainAll(t.sql, providers);
});
afterAll(async () => {
  await t.drop();
  await removeTree(root);
});

describe('indexing ingested sections', () => {
  it('embeds each section with its title and heading path', async () => {
    const id = (await manifestRecords(t, ws)).get('docs/billing.md#refunds')!.node_id;
    const [chunk] = await chunksOf(id);
    expect(chunk!.embed_input).toBe(`Billing — Refunds\nBilling\n\n${prose('refund')}`);
  });

  it('re-embeds a changed section (new content hash, new text in the index) and nothing else', async () => {
    const sections = await manifestRecords(t, ws);
    const id = sections.get('docs/billing.md#refunds')!.node_id;
    const before = await chunksOf(id);
    const others = await t.sql`select node_id, content_hash from doco.chunks where node_id <> ${id} order by node_id, ordinal`;
    const reworded = 'Refunds go back to the card that paid, within five working days, and never as store credit. '.repeat(3);
    await writeTree(root, { 'docs/billing.md': doc(reworded) });
    expect((await ingestTree(t, ws, root)).updated).toBe(1);
    embedder.reset();
    const drained = await drainAll(t.sql, providers);
    expect(drained.records).toBe(1);
    expect(embedder.embedded).toHaveLength(1);
    expect(embedder.embedded[0]).toContain('never as store credit');
    const after = await chunksOf(id);
    expect(after[0]!.content_hash).not.toBe(before[0]!.content_hash);
    expect(after[0]!.embed_input).toContain(reworded.trim());
    expect(await t.sql`select node_id, content_hash from doco.chunks where node_id <> ${id} order by node_id, ordinal`).toEqual(others);
    const hits = await providers.store.search({
      tenant: ws.id,
      vector: (await embedder.embed(['store credit refunds card'], 'query'))[0]!,
      text: 'store credit refunds card',
      limit: 3,
    });
    expect(hits.dense.map((h) => h.nodeId)).toContain(id);
  });

  it('embeds nothing when a rerun changed nothing', async () => {
    expect((await ingestTree(t, ws, root)).skipped).toBe(4);
    embedder.reset();
    expect((await drainAll(t.sql, providers)).records).toBe(0);
    expect(embedder.documents).toBe(0);
  });

  it("removes a reaped section's chunks from the index", async () => {
    const id = (await manifestRecords(t, ws)).get('docs/billing.md#dunning')!.node_id;
    await writeTree(root, { 'docs/billing.md': doc(prose('refund')).replace(/\n\n## Dunning[\s\S]*$/, '') });
    expect((await ingestTree(t, ws, root)).reap).toMatchObject({ outcome: 'reaped', count: 1 });
    await drainAll(t.sql, providers);
    expect(await chunksOf(id)).toEqual([]);
  });
});
