// syncEmbeddedIndex against a real database: a start with no snapshot builds the index from
// doco.chunks; a start with a snapshot embeds only the chunks written after its watermark and
// drops points whose chunk rows are gone; chunks of another embedder queue their records.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { capture, changeset } from '../../src/graph/writes.js';
import { noJudge } from '../../src/providers/judge.js';
import { makeLog } from '../../src/lib/log.js';
import { drainOutbox } from '../../src/indexing/drain.js';
import { embeddedStore, type EmbeddedStore } from '../../src/providers/vector/embedded/store.js';
import { requeueOutdatedChunks, syncEmbeddedIndex } from '../../src/indexing/index-sync.js';
import { TOKENIZER_VERSION } from '../../src/text/tokenize.js';
import { makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { countingEmbedder, type CountingEmbedder } from '../helpers/counting-embedder.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
let ws: TestWorkspace;
let tmp: string;
const log = makeLog('silent');
/** The embedder of this process; `writer` is the index the drain fed before the "restart". */
let embedder: CountingEmbedder;
let writer: EmbeddedStore;
const ctx = () => ({ workspaceId: ws.id, principalId: ws.principalId, source: 'api' as const });

async function add(title: string, prose: string): Promise<string> {
  return (await capture({ db: t.db, judge: noJudge }, ctx(), { collection: 'constitution', node_type: 'reference', title, prose })).node.id;
}
const drainWith = (e: CountingEmbedder, store: EmbeddedStore) => drainOutbox({ sql: t.sql, embedder: e, store, log });
async function openStore(dir: string, e: CountingEmbedder = embedder): Promise<EmbeddedStore> {
  const store = embeddedStore({ dir });
  await store.init(e.identity, e.dimensions);
  return store;
}
const chunkRows = (identity: string) =>
  t.sql<{ id: string; node_id: string; embed_input: string; seq: string }[]>`
    select id::text, node_id, doco.chunk_embed_input(c) as embed_input, seq::text from doco.chunks c where embedder = ${identity} order by seq`;
const maxSeq = (rows: { seq: string }[]) => Math.max(...rows.map((r) => Number(r.seq)));
async function found(store: EmbeddedStore, query: string): Promise<string[]> {
  const [vector] = await embedder.embed([query], 'query');
  const { dense, sparse } = await store.search({ tenant: ws.id, vector: vector!, text: query, limit: 5 });
  return [...new Set([...dense, ...sparse].map((h) => h.nodeId))];
}
const long = (topic: string) =>
  Array.from(
    { length: 8 },
    (_, i) => `Part ${i} of the ${topic} guide: ${`the ${topic} team checks step ${i} twice before the release. `.repeat(5)}`,
  ).join('\n\n');

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'sync');
  tmp = await mkdtemp(path.join(os.tmpdir(), 'doco-sync-'));
  embedder = countingEmbedder();
  writer = embeddedStore();
  await writer.init(embedder.identity, embedder.dimensions);
});
afterAll(async () => {
  await t.drop();
  await rm(tmp, { recursive: true, force: true });
});
beforeEach(async () => {
  await drainWith(embedder, writer);
  embedder.reset();
});

describe('syncEmbeddedIndex', () => {
  const dir = () => path.join(tmp, 'index');
  let ids: Record<string, string> = {};
  let watermark = 0;

  it('builds the index from doco.chunks when there is no snapshot, and saves one', async () => {
    ids = {
      kiln: await add('Kiln firing schedule', long('kiln')),
      glaze: await add('Glaze recipes', 'Celadon glaze needs a reduction firing.'),
      clay: await add('Clay storage', 'Keep the stoneware clay sealed and damp.'),
    };
    await drainWith(embedder, writer);
    const rows = await chunkRows(embedder.identity);
    expect(rows.length).toBeGreaterThan(3);
    embedder.reset();

    const store = await openStore(dir());
    const report = await syncEmbeddedIndex({ sql: t.sql, embedder, store, log });
    expect(report).toEqual({ loadedSnapshot: false, added: rows.length, removed: 0, requeued: 0 });
    expect(embedder.documents).toBe(rows.length);
    expect(embedder.embedded.sort()).toEqual(rows.map((r) => r.embed_input).sort());
    expect(store.ids().sort()).toEqual(rows.map((r) => r.id).sort());
    expect(store.watermark).toBe(maxSeq(rows));
    expect(await found(store, 'celadon glaze reduction')).toContain(ids.glaze);
    // BM25 as the drain built it, title terms weighed as headers: the same hits, the same scores.
    const bm25 = (s: EmbeddedStore) =>
      s.search({ tenant: ws.id, vector: new Float32Array(embedder.dimensions), text: 'glaze kiln clay', limit: 10, sparseOnly: true });
    expect((await bm25(store)).sparse).toEqual((await bm25(writer)).sparse);
    watermark = store.watermark;

    const reopened = await openStore(dir());
    expect(await reopened.loadSnapshot()).toBe(true);
    expect(reopened.watermark).toBe(watermark);
    expect(reopened.ids().sort()).toEqual(store.ids().sort());
  });

  it('loads the snapshot, embeds only chunks after its watermark, and drops points whose rows are gone', async () => {
    expect(watermark).toBeGreaterThan(0);
    const gone = (await t.sql<{ id: string }[]>`select id::text from doco.chunks where node_id = ${ids.clay!}`).map((r) => r.id);
    expect(gone).toHaveLength(1);
    // Written after the snapshot and drained by a process that then stopped without saving.
    ids.wheel = await add('Wheel maintenance', "Grease the potter's wheel bearings monthly.");
    await t.sql`update doco.nodes set prose = 'Celadon glaze now needs an oxidation firing instead.' where id = ${ids.glaze!}`;
    await changeset({ db: t.db, judge: noJudge }, ctx(), { operations: [{ op: 'retire', target: ids.clay! }] });
    await drainWith(embedder, writer);
    const rows = await chunkRows(embedder.identity);
    const newer = rows.filter((r) => Number(r.seq) > watermark);
    expect(newer.map((r) => r.node_id).sort()).toEqual([ids.glaze, ids.wheel].sort());
    embedder.reset();

    const store = await openStore(dir());
    const report = await syncEmbeddedIndex({ sql: t.sql, embedder, store, log });
    expect(report).toEqual({ loadedSnapshot: true, added: newer.length, removed: gone.length, requeued: 0 });
    expect(embedder.documents).toBe(newer.length);
    expect(embedder.embedded.sort()).toEqual(newer.map((r) => r.embed_input).sort());
    expect(store.ids().sort()).toEqual(rows.map((r) => r.id).sort());
    expect(store.watermark).toBe(maxSeq(rows));
    expect(await found(store, 'potter wheel bearings grease')).toContain(ids.wheel);
    expect(await found(store, 'stoneware clay sealed damp')).not.toContain(ids.clay);
    const [vector] = await embedder.embed(['oxidation firing'], 'query');
    expect((await store.search({ tenant: ws.id, vector: vector!, text: 'oxidation', limit: 5 })).sparse.map((h) => h.nodeId)).toEqual([
      ids.glaze,
    ]);

    // Caught up and saved: the next start embeds nothing.
    embedder.reset();
    const again = await syncEmbeddedIndex({ sql: t.sql, embedder, store: await openStore(dir()), log });
    expect(again).toEqual({ loadedSnapshot: true, added: 0, removed: 0, requeued: 0 });
    expect(embedder.documents).toBe(0);
  });

  it('queues the records whose chunks another embedder made, once each, and leaves their chunks out', async () => {
    const old = countingEmbedder({ identity: 'old-hash-v0/256' });
    const oldStore = embeddedStore();
    await oldStore.init(old.identity, old.dimensions);
    const kilnOld = await add('Old kiln notes', long('firing'));
    const pending = await add('Old pending notes', 'Bisque firing notes from the old embedder.');
    await drainWith(old, oldStore);
    const oldRows = await chunkRows(old.identity);
    expect(new Set(oldRows.map((r) => r.node_id))).toEqual(new Set([kilnOld, pending]));
    // One of them is already waiting in the outbox: it is not queued a second time.
    await t.sql`insert into doco.outbox (node_id, workspace_id) values (${pending}, ${ws.id})`;
    embedder.reset();

    const store = await openStore(path.join(tmp, 'other-identity'));
    const report = await syncEmbeddedIndex({ sql: t.sql, embedder, store, log });
    expect(report).toMatchObject({ loadedSnapshot: false, requeued: 1 });
    const queued = await t.sql<{ node_id: string }[]>`select node_id from doco.outbox order by node_id`;
    expect(queued.map((r) => r.node_id)).toEqual([kilnOld, pending].sort());
    for (const r of oldRows) expect(store.ids()).not.toContain(r.id);
    expect(embedder.embedded.some((text) => text.includes('Old kiln notes'))).toBe(false);

    // The drain re-embeds them with this embedder; the index then holds every chunk row.
    embedder.reset();
    const drained = await drainWith(embedder, store);
    expect(drained).toMatchObject({ records: 2, chunksEmbedded: oldRows.length, chunksUnchanged: 0 });
    expect(embedder.documents).toBe(oldRows.length);
    expect(await chunkRows(old.identity)).toEqual([]);
    expect(store.ids().sort()).toEqual((await chunkRows(embedder.identity)).map((r) => r.id).sort());
  });
});

describe('syncEmbeddedIndex with a snapshot of another database', () => {
  it("rebuilds from this database when the home's snapshot was made from another one, or is ahead of its chunks", async () => {
    const dir = path.join(tmp, 'moved-home');
    // The home's snapshot, made from this database (a few records, the newest chunks).
    await add('Moved home record', 'Made before the home moved to another database.');
    await drainWith(embedder, writer);
    const first = await openStore(dir);
    await syncEmbeddedIndex({ sql: t.sql, embedder, store: first, log });
    const ours = await chunkRows(embedder.identity);
    expect(first.watermark).toBe(maxSeq(ours));

    // Another database, with records of its own under chunk numbers the snapshot covers.
    const other = await createTestDb();
    try {
      // Test databases are copies of one migrated template, and a copy keeps its identity: a
      // database migrated afresh (the embedded default's home pointed at a new DATABASE_URL) has its own.
      await other.sql`update doco.database_identity set id = gen_random_uuid()`;
      const otherWs = await makeWorkspace(other, 'other-db');
      const otherCtx = { workspaceId: otherWs.id, principalId: otherWs.principalId, source: 'api' as const };
      for (let i = 0; i < 3; i++)
        await capture({ db: other.db, judge: noJudge }, otherCtx, {
          collection: 'constitution',
          node_type: 'reference',
          title: `Other database record ${i}`,
          prose: `Raku firing ${i} happens outdoors.`,
        });
      const otherWriter = embeddedStore();
      await otherWriter.init(embedder.identity, embedder.dimensions);
      await drainOutbox({ sql: other.sql, embedder, store: otherWriter, log });
      // Its chunk numbers reach the snapshot's watermark: a watermark check alone would not tell.
      await other.sql`select setval('doco.chunk_seq', ${first.watermark + 10})`;
      await other.sql`update doco.chunks set seq = nextval('doco.chunk_seq')`;
      const theirs = (await other.sql<{ id: string }[]>`select id::text from doco.chunks`).map((r) => r.id);
      const warnings: string[] = [];
      const store = await openStore(dir);
      const report = await syncEmbeddedIndex({ sql: other.sql, embedder, store, log: makeLog('warn', (l) => warnings.push(l)) });
      expect(report).toMatchObject({ loadedSnapshot: false, added: theirs.length });
      expect(store.ids().sort()).toEqual(theirs.sort());
      expect(warnings.join('\n')).toContain('the snapshot is not used, it was made from another database');
      // Saved as that database's: the next start loads it.
      expect((await syncEmbeddedIndex({ sql: other.sql, embedder, store: await openStore(dir), log })).loadedSnapshot).toBe(true);
    } finally {
      await other.drop();
    }

    // Back on this database, restored from a backup taken before its newest chunks: the snapshot
    // (this database's, saved again) is ahead of what the database holds.
    const back = await openStore(dir);
    await syncEmbeddedIndex({ sql: t.sql, embedder, store: back, log });
    const newest = maxSeq(await chunkRows(embedder.identity));
    await t.sql`delete from doco.chunks where seq > ${newest - 2}`;
    const warnings: string[] = [];
    const restored = await openStore(dir);
    const report = await syncEmbeddedIndex({ sql: t.sql, embedder, store: restored, log: makeLog('warn', (l) => warnings.push(l)) });
    expect(report.loadedSnapshot).toBe(false);
    expect(warnings.join('\n')).toMatch(/past this database's newest \(\d+\): the database was restored or replaced/);
    expect(restored.ids().sort()).toEqual((await chunkRows(embedder.identity)).map((r) => r.id).sort());
  });
});

describe('syncEmbeddedIndex on a full disk', () => {
  it('serves the index it built from memory when the snapshot cannot be saved, and says so', async () => {
    const store = await openStore(path.join(tmp, 'full-disk'));
    store.save = async () => {
      throw new Error('ENOSPC: no space left on device, write');
    };
    const warnings: string[] = [];
    const report = await syncEmbeddedIndex({ sql: t.sql, embedder, store, log: makeLog('warn', (l) => warnings.push(l)) });
    expect(report.loadedSnapshot).toBe(false);
    expect(store.ids().sort()).toEqual((await chunkRows(embedder.identity)).map((r) => r.id).sort());
    expect(warnings.join('\n')).toContain(
      'saving the snapshot failed (ENOSPC: no space left on device, write); the index is served from memory',
    );
  });
});

describe('requeueOutdatedChunks', () => {
  it('queues the records whose chunks an older BM25 tokenizer made; the drain re-indexes them and nothing is queued again', async () => {
    const id = await add('Tokenizer upgrade notes', long('glazing'));
    await drainWith(embedder, writer);
    const rows = await t.sql<{ tokenizer: number }[]>`select tokenizer from doco.chunks where node_id = ${id}`;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.tokenizer === TOKENIZER_VERSION)).toBe(true);
    expect(await requeueOutdatedChunks(t.sql, embedder)).toBe(0);

    // As an upgrade finds them: chunks the version before made (its terms are in their hash).
    await t.sql`update doco.chunks set tokenizer = ${TOKENIZER_VERSION - 1}, content_hash = 'made-by-the-old-tokenizer-' || ordinal where node_id = ${id}`;
    expect(await requeueOutdatedChunks(t.sql, embedder)).toBe(1);
    expect(await requeueOutdatedChunks(t.sql, embedder)).toBe(0); // already waiting: not queued twice
    embedder.reset();
    const drained = await drainWith(embedder, writer);
    expect(drained).toMatchObject({ records: 1, chunksEmbedded: rows.length, chunksUnchanged: 0 });
    const after = await t.sql<{ tokenizer: number }[]>`select tokenizer from doco.chunks where node_id = ${id}`;
    expect(after.every((r) => r.tokenizer === TOKENIZER_VERSION)).toBe(true);
    expect(await requeueOutdatedChunks(t.sql, embedder)).toBe(0);
  });
});

describe('syncEmbeddedIndex after a long outage', () => {
  it('catches up more chunks than one batch in seq order: none skipped, none embedded twice', async () => {
    // Chunk seqs past 10 and more rows than one batch of 2,000: ordered as text ('10' < '9') the
    // catch-up would read rows twice and skip others.
    const id = await add('Long outage record', 'Its chunk rows were written while the index was down.');
    await drainWith(embedder, writer);
    await t.sql`
      insert into doco.chunks (workspace_id, collection_id, node_id, ordinal, node_type, body, embed_input, content_hash, embedder, tokenizer)
      select n.workspace_id, n.collection_id, n.id, 1000 + g, n.node_type, 'body ' || g, 'catch-up chunk ' || g, 'hash-' || g, ${embedder.identity}, ${TOKENIZER_VERSION}
        from doco.nodes n, generate_series(1, 2100) g where n.id = ${id}`;
    const rows = await chunkRows(embedder.identity);
    expect(rows.length).toBeGreaterThan(2100);
    embedder.reset();

    const store = await openStore(path.join(tmp, 'long-outage'));
    const report = await syncEmbeddedIndex({ sql: t.sql, embedder, store, log });
    expect(report).toMatchObject({ loadedSnapshot: false, added: rows.length, removed: 0 });
    expect(embedder.documents).toBe(rows.length);
    expect(store.ids().sort()).toEqual(rows.map((r) => r.id).sort());
    expect(store.watermark).toBe(maxSeq(rows));
    await t.sql`delete from doco.chunks where node_id = ${id} and ordinal >= 1000`;
  });
});
