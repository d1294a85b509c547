// A record's file path in its BM25 header: the words of a doc section's path (docs/core/mempool.md
// → "core mempool") count as header terms for BM25 and never reach the embedder; they are part
// of the chunk's content hash; and the index rebuilt from doco.chunks (start-up catch-up) reads
// them as the drain did.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capture } from '../../src/graph/writes.js';
import { noJudge } from '../../src/providers/judge.js';
import { makeLog } from '../../src/lib/log.js';
import { chunkContentHash, chunkSource, lexicalFields, lexicalTerms, type ChunkSource } from '../../src/indexing/chunker.js';
import { drainOutbox } from '../../src/indexing/drain.js';
import { embeddedStore, type EmbeddedStore } from '../../src/providers/vector/embedded/store.js';
import { syncEmbeddedIndex } from '../../src/indexing/index-sync.js';
import { pathWords, recordChunkSource } from '../../src/indexing/record-source.js';
import { HEADER_WEIGHT, sparseDocumentVector, termIndex, tokenize } from '../../src/text/tokenize.js';
import { makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { countingEmbedder, type CountingEmbedder } from '../helpers/counting-embedder.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

describe('pathWords', () => {
  it('names a file by its folders and name, without the docs root, the extension, or a README / index name', () => {
    expect(pathWords('docs/core/mempool.md')).toBe('core mempool');
    expect(pathWords('docs/architecture/adr/adr-074-timeout_params.md')).toBe('architecture adr adr 074 timeout params');
    expect(pathWords('repos/billing/README.md')).toBe('repos billing');
    expect(pathWords('docs/guides/index.mdx')).toBe('guides');
    expect(pathWords('cometbft:docs/guides/install.md')).toBe('cometbft guides install');
    expect(pathWords('consensus/wal.go')).toBe('consensus wal');
  });

  it('gives nothing for a record without a path', () => {
    expect(pathWords(undefined)).toBe('');
    expect(pathWords(null)).toBe('');
    expect(pathWords('')).toBe('');
    expect(pathWords('docs/README.md')).toBe('');
  });
});

describe('a chunk source with a context', () => {
  const source = (over: Partial<ChunkSource> = {}): ChunkSource => ({
    title: 'Mempool — Config',
    headingPath: ['Mempool'],
    body: 'The size limit caps how many transactions wait.',
    metadata: { node_type: 'reference' },
    ...over,
  });

  it('keeps the context out of the embedding input and puts it in the hash', () => {
    const [plain] = chunkSource(source(), 'e');
    const [withPath] = chunkSource(source({ context: 'core mempool' }), 'e');
    const [otherPath] = chunkSource(source({ context: 'core gossip' }), 'e');
    expect(withPath!.embedInput).toBe(plain!.embedInput);
    expect(withPath!.embedInput).not.toContain('core');
    expect(withPath!.context).toBe('core mempool');
    expect(new Set([plain!.contentHash, withPath!.contentHash, otherPath!.contentHash]).size).toBe(3);
    // A chunk without a context hashes as it always did.
    expect(plain!.contentHash).toBe(chunkContentHash('e', plain!.embedInput, { node_type: 'reference' }));
    expect(chunkSource(source({ context: '  ' }), 'e')[0]!.contentHash).toBe(plain!.contentHash);
  });

  it('gives BM25 the context as header, before the title and heading path', () => {
    const [chunk] = chunkSource(source({ context: 'core mempool' }), 'e');
    expect(lexicalFields(chunk!.embedInput, chunk!.text, chunk!.context)).toEqual({
      text: 'core mempool\nMempool — Config\nMempool\n\nThe size limit caps how many transactions wait.',
      header: 'core mempool\nMempool — Config\nMempool',
    });
    const [bare] = chunkSource(source({ title: ' ', headingPath: [], context: 'core mempool' }), 'e');
    expect(lexicalFields(bare!.embedInput, bare!.text, bare!.context)).toEqual({
      text: `core mempool\n${bare!.text}`,
      header: 'core mempool',
    });
    expect(lexicalFields(bare!.embedInput, bare!.text, '')).toEqual({ text: bare!.text, header: '' });
  });

  it("gives BM25's terms from the embedding input's, as tokenizing its text would (one tokenizing serves both)", () => {
    for (const context of ['core mempool', 'cometbft guides café', 'Über9 stateSync', '']) {
      for (const c of chunkSource(
        source({ context, headingPath: ['Naïve', 'x2'], body: 'Ünïcödé façade.\n\nstateSync V2Cache refunds.' }),
        'e',
      )) {
        const { text } = lexicalFields(c.embedInput, c.text, c.context);
        expect(lexicalTerms(tokenize(c.embedInput), c.context)).toEqual(tokenize(text));
      }
    }
  });

  it('counts a path word HEADER_WEIGHT times in the BM25 vector', () => {
    const [chunk] = chunkSource(source({ body: 'Nothing here names the folder.', context: 'core mempool' }), 'e');
    const { text, header } = lexicalFields(chunk!.embedInput, chunk!.text, chunk!.context);
    const weights = sparseDocumentVector(text, header);
    const weightOf = (term: string) => weights.values[weights.indices.indexOf(termIndex(term))];
    // "core" is in the path only; "nothing" in the body only: same count, header weighs more.
    expect(weightOf('core')).toBeGreaterThan(weightOf('nothing')!);
    expect(HEADER_WEIGHT).toBeGreaterThan(1);
  });

  it('comes from a record pointer path (a doc section), and not for a plain record', () => {
    const node = { id: 'n', workspace_id: 'w', collection_id: 'c', node_type: 'reference', title: 'Mempool — Config', prose: 'Text.' };
    expect(recordChunkSource({ ...node, body: { pointer: { path: 'docs/core/mempool.md', heading: 'Config' } } }).context).toBe(
      'core mempool',
    );
    expect(recordChunkSource({ ...node, body: {} }).context).toBe('');
    expect(recordChunkSource({ ...node, body: { pointer: { url: 'https://example.com' } } }).context).toBe('');
  });
});

describe('path words in the index', () => {
  let t: TestDb;
  let ws: TestWorkspace;
  let embedder: CountingEmbedder;
  let tmp: string;
  const log = makeLog('silent');

  beforeAll(async () => {
    t = await createTestDb();
    ws = await makeWorkspace(t, 'path-words');
    embedder = countingEmbedder();
    tmp = await mkdtemp(path.join(os.tmpdir(), 'doco-path-words-'));
  });
  afterAll(async () => {
    await t.drop();
    await rm(tmp, { recursive: true, force: true });
  });

  async function openStore(dir?: string): Promise<EmbeddedStore> {
    const store = embeddedStore(dir ? { dir } : {});
    await store.init(embedder.identity, embedder.dimensions);
    return store;
  }
  const bm25 = async (store: EmbeddedStore, query: string) =>
    (
      await store.search({ tenant: ws.id, vector: new Float32Array(embedder.dimensions), text: query, limit: 5, sparseOnly: true })
    ).sparse.map((h) => h.nodeId);

  it('are found by BM25 after a drain and after a rebuild from doco.chunks, and never embedded', async () => {
    const { node } = await capture(
      { db: t.db, judge: noJudge },
      { workspaceId: ws.id, principalId: ws.principalId, source: 'api' },
      {
        collection: 'constitution',
        node_type: 'reference',
        title: 'Replay — Config',
        prose: 'How many records are read back at start, and what happens to a torn final entry.',
        body: { pointer: { path: 'docs/consensus/write-ahead-journal.md', heading: 'Config' } },
      },
    );
    const writer = await openStore();
    await drainOutbox({ sql: t.sql, embedder, store: writer, log });
    expect(await bm25(writer, 'journal')).toEqual([node.id]);
    expect(embedder.embedded.join('\n')).not.toContain('journal');
    const [row] = await t.sql<
      { embed_input: string }[]
    >`select doco.chunk_embed_input(c) as embed_input from doco.chunks c where node_id = ${node.id}`;
    expect(row!.embed_input).not.toContain('journal');

    // A fresh process: no snapshot, the index is built from doco.chunks (index-sync.ts).
    const rebuilt = await openStore(path.join(tmp, 'index'));
    await syncEmbeddedIndex({ sql: t.sql, embedder, store: rebuilt, log });
    expect(await bm25(rebuilt, 'journal')).toEqual([node.id]);
    const search = (store: EmbeddedStore) =>
      store.search({
        tenant: ws.id,
        vector: new Float32Array(embedder.dimensions),
        text: 'consensus journal replay',
        limit: 5,
        sparseOnly: true,
      });
    expect((await search(rebuilt)).sparse).toEqual((await search(writer)).sparse);
    await writer.close();
    await rebuilt.close();
  });
});
