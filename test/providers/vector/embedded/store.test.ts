// The embedded vector store alone: dense and BM25 search, tenant isolation, filters, removal,
// replacement, compaction, and snapshots on disk (round trip, refusal of a snapshot that does
// not fit, a damaged snapshot read as none, a save stopped before its rename, leftovers).
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, truncate, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EmbeddedIndex } from '../../../../src/providers/vector/embedded/memory-index.js';
import { embeddedStore, type EmbeddedStore } from '../../../../src/providers/vector/embedded/store.js';
import { termIndex, tokenize } from '../../../../src/text/tokenize.js';
import type { ChunkPoint, StoreAnswer, StoreFilter, StoreQuery } from '../../../../src/providers/vector/port.js';

const DIMS = 32;
const IDENTITY = 'test-hash/32';
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
/** A small deterministic embedding: terms hashed into DIMS signed buckets, unit length. */
function embed(text: string): Float32Array {
  const v = new Float32Array(DIMS);
  for (const term of tokenize(text)) {
    const h = termIndex(term);
    v[h % DIMS]! += h & 0x80000000 ? -1 : 1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

function point(n: number, text: string, over: Partial<ChunkPoint> = {}): ChunkPoint {
  return {
    id: uuid(n),
    tenant: 'ws_a',
    collectionId: 'col_1',
    nodeId: `reference_${n}`,
    nodeType: 'reference',
    shape: '',
    sourceKind: 'record',
    text,
    vector: embed(text),
    ...over,
  };
}

async function newStore(dir?: string, identity = IDENTITY, dims = DIMS, vectorsInMemoryBytes?: number): Promise<EmbeddedStore> {
  const store = embeddedStore({ ...(dir ? { dir } : {}), ...(vectorsInMemoryBytes === undefined ? {} : { vectorsInMemoryBytes }) });
  await store.init(identity, dims);
  return store;
}

const query = (text: string, over: Partial<StoreQuery> = {}): StoreQuery => ({
  tenant: 'ws_a',
  vector: embed(text),
  text,
  limit: 10,
  ...over,
});
const ids = (hits: { id: string }[]) => hits.map((h) => h.id);

/** A deterministic corpus: each text draws words from a small vocabulary (so terms repeat). */
const VOCAB = [
  'ledger',
  'refund',
  'billing',
  'invoice',
  'shard',
  'replica',
  'cache',
  'token',
  'quota',
  'route',
  'deploy',
  'schema',
  'index',
  'vector',
  'budget',
  'audit',
];
function corpus(n: number, from = 0): ChunkPoint[] {
  let seed = 12345 + from;
  const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  return Array.from({ length: n }, (_, i) => {
    const words = Array.from({ length: 6 + Math.floor(rand() * 6) }, () => VOCAB[Math.floor(rand() * VOCAB.length)]!);
    const tenant = i % 3 === 0 ? 'ws_b' : 'ws_a';
    return point(from + i, `${words.join(' ')} item${from + i}`, {
      tenant,
      nodeType: i % 2 ? 'decision' : 'rule',
      collectionId: `col_${i % 4}`,
    });
  });
}
const QUERIES = ['ledger refund', 'shard replica cache', 'billing invoice audit', 'vector index schema', 'quota token budget deploy'];
/** A search's hits and warnings, without its timings (which differ from one search to the next). */
async function hits(answer: Promise<StoreAnswer>) {
  const { timings, ...rest } = await answer;
  expect(timings).toEqual({ bm25: expect.any(Number), dense: expect.any(Number) });
  return rest;
}
async function answers(store: EmbeddedStore) {
  return Promise.all(QUERIES.flatMap((q) => ['ws_a', 'ws_b'].map((tenant) => hits(store.search(query(q, { tenant, limit: 15 }))))));
}

/** The pid of a process that has exited (so no process has it, barring reuse). */
async function exitedChildPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'doco-store-'));
});
afterAll(async () => rm(tmp, { recursive: true, force: true }));

describe('search', () => {
  it('ranks dense hits nearest first', async () => {
    const store = await newStore();
    const unit = (...xs: number[]) => {
      const v = new Float32Array(DIMS);
      xs.forEach((x, i) => (v[i] = x));
      const norm = Math.hypot(...xs);
      return v.map((x) => x / norm);
    };
    await store.upsert([
      point(1, 'far', { vector: unit(0, 1) }),
      point(2, 'near', { vector: unit(1, 0.1) }),
      point(3, 'middle', { vector: unit(1, 1) }),
      point(4, 'opposite', { vector: unit(-1, 0) }),
    ]);
    const { dense } = await store.search(query('', { vector: unit(1, 0) }));
    expect(ids(dense)).toEqual([uuid(2), uuid(3), uuid(1), uuid(4)]);
    expect(dense[0]!.score).toBeCloseTo(1 / Math.hypot(1, 0.1), 5);
    expect(dense[0]!.nodeId).toBe('reference_2');
    expect(ids((await store.search(query('', { vector: unit(1, 0), limit: 2 }))).dense)).toEqual([uuid(2), uuid(3)]);
  });

  it('ranks a heading match above the same word in a body (header terms weigh more)', async () => {
    const store = await newStore();
    // Same terms, same length: only where "snapshot" stands differs.
    const inHeading = 'Snapshot restore\n\nthe node fetches chunks from peers and applies them';
    const inBody = 'Chunk restore\n\nthe node fetches snapshot from peers and applies them';
    await store.upsert([point(1, inBody, { header: 'Chunk restore' }), point(2, inHeading, { header: 'Snapshot restore' })]);
    expect(ids((await store.search(query('snapshot'))).sparse)).toEqual([uuid(2), uuid(1)]);
    // Without headers the two tie on the term and both are found.
    const flat = await newStore();
    await flat.upsert([point(1, inBody), point(2, inHeading)]);
    const { sparse } = await flat.search(query('snapshot'));
    expect(sparse.map((h) => h.score)).toEqual([sparse[0]!.score, sparse[0]!.score]);
  });

  it('ranks a rare term above a common one in BM25', async () => {
    const store = await newStore();
    await store.upsert([
      point(1, 'billing page layout for invoices'),
      point(2, 'billing export of the monthly totals'),
      point(3, 'billing flamingo reconciliation'),
      point(4, 'billing settings and billing contacts'),
      point(5, 'unrelated deployment notes'),
    ]);
    const { sparse } = await store.search(query('billing flamingo'));
    expect(sparse[0]!.id).toBe(uuid(3));
    expect(ids(sparse)).not.toContain(uuid(5));
    expect(ids(sparse)).toHaveLength(4);
    expect(ids((await store.search(query('nothing matches xylophone'))).sparse)).toEqual([]);
  });

  it("never returns another tenant's points", async () => {
    const store = await newStore();
    await store.upsert([point(1, 'shared words about refunds'), point(2, 'shared words about refunds', { tenant: 'ws_b' })]);
    const a = await store.search(query('refunds'));
    expect([...ids(a.dense), ...ids(a.sparse)]).toEqual([uuid(1), uuid(1)]);
    const b = await store.search(query('refunds', { tenant: 'ws_b' }));
    expect([...ids(b.dense), ...ids(b.sparse)]).toEqual([uuid(2), uuid(2)]);
    expect(await hits(store.search(query('refunds', { tenant: 'ws_unknown' })))).toEqual({ dense: [], sparse: [] });
  });

  it('filters by node type, shape, collection and source kind; an empty list matches nothing', async () => {
    const store = await newStore();
    await store.upsert([
      point(1, 'refund policy text', { nodeType: 'rule', collectionId: 'col_1' }),
      point(2, 'refund policy text', { nodeType: 'decision', collectionId: 'col_2' }),
      point(3, 'refund policy text', { nodeType: 'reference', shape: 'docSection', sourceKind: 'doc', collectionId: 'col_2' }),
      point(4, 'refund policy text', {
        nodeType: 'reference',
        shape: 'architecturePrinciple',
        sourceKind: 'github',
        collectionId: 'col_3',
      }),
    ]);
    const hits = async (filter: StoreFilter) => {
      const { dense, sparse } = await store.search(query('refund policy', { filter }));
      expect(new Set(ids(sparse))).toEqual(new Set(ids(dense)));
      return ids(dense).sort();
    };
    expect(await hits({})).toEqual([uuid(1), uuid(2), uuid(3), uuid(4)]);
    expect(await hits({ nodeTypes: ['rule', 'decision'] })).toEqual([uuid(1), uuid(2)]);
    expect(await hits({ shapes: ['docSection'] })).toEqual([uuid(3)]);
    expect(await hits({ shapes: [''] })).toEqual([uuid(1), uuid(2)]);
    expect(await hits({ collectionIds: ['col_2'] })).toEqual([uuid(2), uuid(3)]);
    expect(await hits({ sourceKinds: ['github', 'doc'] })).toEqual([uuid(3), uuid(4)]);
    expect(await hits({ nodeTypes: ['reference'], collectionIds: ['col_3'] })).toEqual([uuid(4)]);
    expect(await hits({ nodeTypes: ['unknown_type'] })).toEqual([]);
    for (const key of ['nodeTypes', 'shapes', 'collectionIds', 'sourceKinds'] as const) expect(await hits({ [key]: [] })).toEqual([]);
  });
});

describe('writes', () => {
  it('removes points, and ignores ids it does not hold', async () => {
    const store = await newStore();
    await store.upsert([point(1, 'alpha refund'), point(2, 'beta refund'), point(3, 'gamma refund')]);
    await store.remove([uuid(2), uuid(99)]);
    expect(await store.count()).toBe(2);
    expect(store.ids().sort()).toEqual([uuid(1), uuid(3)]);
    const { dense, sparse } = await store.search(query('beta refund'));
    expect(ids(dense)).not.toContain(uuid(2));
    expect(ids(sparse)).not.toContain(uuid(2));
  });

  it('replaces a point re-upserted under the same id', async () => {
    const store = await newStore();
    await store.upsert([point(1, 'the old text mentions pelicans'), point(2, 'something else entirely')]);
    await store.upsert([point(1, 'the new text mentions walruses', { nodeType: 'decision' })]);
    expect(await store.count()).toBe(2);
    expect(ids((await store.search(query('pelicans'))).sparse)).toEqual([]);
    expect(ids((await store.search(query('walruses'))).sparse)).toEqual([uuid(1)]);
    expect(ids((await store.search(query('walruses', { filter: { nodeTypes: ['reference'] } }))).dense)).toEqual([uuid(2)]);
  });

  it('scores as if removed and replaced points had never been there, before and after compaction', async () => {
    const compact = vi.spyOn(EmbeddedIndex.prototype, 'compactYielding');
    try {
      const points = corpus(3000);
      const store = await newStore();
      await store.upsert(points);
      // Replace a few (stale postings of the old versions stay behind as tombstones).
      const replaced = corpus(50, 5000).map((p, i) => ({ ...p, id: points[i]!.id, tenant: points[i]!.tenant }));
      await store.upsert(replaced);
      // The survivors in slot order (a replaced point takes a new slot at the end), so ties rank alike.
      const live = (removedUpTo: number) => [...points.slice(removedUpTo), ...replaced];
      const fresh = async (from: ChunkPoint[]) => {
        const s = await newStore();
        await s.upsert(from);
        return s;
      };

      await store.remove(points.slice(50, 1000).map((p) => p.id));
      expect(compact).not.toHaveBeenCalled();
      expect(await answers(store)).toEqual(await answers(await fresh(live(1000))));

      await store.remove(points.slice(1000, 2200).map((p) => p.id));
      expect(compact).toHaveBeenCalledTimes(1);
      expect(await store.count()).toBe(850);
      expect(await answers(store)).toEqual(await answers(await fresh(live(2200))));
    } finally {
      compact.mockRestore();
    }
  });
});

describe('a compaction', () => {
  it('hands the event loop back as it goes: searches answer meanwhile, and writes sent meanwhile wait for it and are kept', async () => {
    // upsertSliceMs 0: the compaction yields at every step it may, as a large one does every 8 ms.
    const store = embeddedStore({ upsertSliceMs: 0 });
    await store.init(IDENTITY, DIMS);
    const points = corpus(3000);
    await store.upsert(points);
    let turns = 0;
    let compacting = true;
    const counting = (): void => void setImmediate(() => compacting && (turns++, counting()));
    counting();
    const removal = store.remove(points.slice(0, 2200).map((p) => p.id)).then(() => void (compacting = false));
    // Sent while it runs: a search reads the index as it was; the upsert and the removal wait.
    const during = await hits(store.search(query(VOCAB[0]!, { limit: 5 })));
    const added = corpus(40, 9000);
    const [, , count] = await Promise.all([removal, store.upsert(added), store.remove([points[2999]!.id]).then(() => store.count())]);
    // Turns the event loop took while the removal compacted (a synchronous compaction gives none).
    expect(turns).toBeGreaterThanOrEqual(3);
    expect(during.sparse.length + during.dense.length).toBeGreaterThan(0);
    expect(count).toBe(3000 - 2200 + 40 - 1);
    const fresh = embeddedStore();
    await fresh.init(IDENTITY, DIMS);
    await fresh.upsert([...points.slice(2200, 2999), ...added]);
    expect(await answers(store)).toEqual(await answers(fresh));
  });
});

describe('vectors in a file', () => {
  // 32 dimensions: the exact scan over every row; 256: the sketch scan, then the shortlist's rows.
  it.each([DIMS, 256])('with %i dimensions, answers as a store in memory does, through compaction and a snapshot', async (dims) => {
    const widen = (p: ChunkPoint): ChunkPoint =>
      dims === DIMS ? p : { ...p, vector: Float32Array.from({ length: dims }, (_, i) => p.vector[i % DIMS]! * (((i * 7) % 5) - 2)) };
    const dir = path.join(tmp, `file-${dims}`);
    // 0 bytes in memory: every row from the file (a real index keeps its first 32 MB in memory).
    const inFile = await newStore(dir, IDENTITY, dims, 0);
    const inMemory = await newStore(undefined, IDENTITY, dims);
    const points = corpus(3000).map(widen);
    const replaced = corpus(50, 5000).map((p, i) => widen({ ...p, id: points[i]!.id, tenant: points[i]!.tenant }));
    const wide = (text: string, over: Partial<StoreQuery>) => query(text, { ...over, vector: widen(point(0, text)).vector });
    const answersOf = (store: EmbeddedStore) =>
      Promise.all(QUERIES.flatMap((q) => ['ws_a', 'ws_b'].map((tenant) => hits(store.search(wide(q, { tenant, limit: 15 }))))));
    for (const store of [inFile, inMemory]) {
      await store.upsert(points);
      await store.upsert(replaced);
    }
    expect(await answersOf(inFile)).toEqual(await answersOf(inMemory));
    // Enough removals to compact: the compacted index has a file of its own.
    for (const store of [inFile, inMemory]) await store.remove(points.slice(50, 2200).map((p) => p.id));
    expect(await inFile.count()).toBe(850);
    expect(await answersOf(inFile)).toEqual(await answersOf(inMemory));
    await inFile.save();
    // The rows' files are unlinked as they are made: the folder holds the snapshot alone.
    expect(await readdir(dir)).toEqual(['test-hash_32.snapshot']);
    const loaded = await newStore(dir, IDENTITY, dims, 0);
    expect(await loaded.loadSnapshot()).toBe(true);
    expect(await answersOf(loaded)).toEqual(await answersOf(inMemory));
    for (const store of [inFile, inMemory, loaded]) await store.close();
  });
});

describe('snapshots', () => {
  it('round-trip: a new store loading the snapshot answers identically, with the same watermark', async () => {
    const dir = path.join(tmp, 'round-trip');
    const store = await newStore(dir);
    const points = corpus(400);
    await store.upsert(points);
    await store.remove(points.slice(0, 40).map((p) => p.id));
    await store.upsert(corpus(20, 9000).map((p, i) => ({ ...p, id: points[100 + i]!.id })));
    store.watermark = 4242;
    await store.save();

    const loaded = await newStore(dir);
    expect(await loaded.loadSnapshot()).toBe(true);
    expect(loaded.watermark).toBe(4242);
    expect(await loaded.count()).toBe(await store.count());
    expect(loaded.ids().sort()).toEqual(store.ids().sort());
    expect(await answers(loaded)).toEqual(await answers(store));
    const filtered = query('ledger shard', { filter: { nodeTypes: ['rule'], collectionIds: ['col_0', 'col_2'] } });
    expect(await hits(loaded.search(filtered))).toEqual(await hits(store.search(filtered)));
  });

  it('holds the index as it was when the save began, however the index changes while it is written', async () => {
    const dir = path.join(tmp, 'changing');
    const store = await newStore(dir);
    const points = corpus(300);
    await store.upsert(points);
    await store.remove(points.slice(0, 10).map((p) => p.id));
    const before = { ids: store.ids().sort(), answers: await answers(store) };
    const saving = store.save();
    // While the file is written: new points (enough to grow the index), removals and replacements.
    await store.upsert(corpus(1500, 5000));
    await store.remove(points.slice(10, 60).map((p) => p.id));
    await store.upsert(corpus(20, 9000).map((p, i) => ({ ...p, id: points[200 + i]!.id })));
    await saving;
    expect(store.ids().sort()).not.toEqual(before.ids);

    const loaded = await newStore(dir);
    expect(await loaded.loadSnapshot()).toBe(true);
    expect(loaded.ids().sort()).toEqual(before.ids);
    expect(await answers(loaded)).toEqual(before.answers);
  });

  it('is not loaded for another embedder identity or dimension', async () => {
    const dir = path.join(tmp, 'identity');
    const store = await newStore(dir, 'local-hash-v1/32');
    await store.upsert(corpus(10));
    store.watermark = 7;
    await store.save();

    // "local-hash-v1_32" shares the directory name: the identity recorded inside decides.
    for (const [identity, dims] of [
      ['local-hash-v1_32', DIMS],
      ['voyage/voyage-3.5/32', DIMS],
      ['local-hash-v1/32', 16],
    ] as const) {
      const other = await newStore(dir, identity, dims);
      expect(await other.loadSnapshot()).toBe(false);
      expect(await other.count()).toBe(0);
      expect(other.watermark).toBe(0);
    }
    expect(await (await newStore(dir, 'local-hash-v1/32')).loadSnapshot()).toBe(true);
  });

  it('is read as none when missing or damaged, without throwing', async () => {
    expect(await (await newStore()).loadSnapshot()).toBe(false); // no directory configured
    expect(await (await newStore(path.join(tmp, 'never-saved'))).loadSnapshot()).toBe(false);

    const flipByte = (at: (size: number) => number) => async (f: string) => {
      const bytes = await readFile(f);
      const i = at(bytes.length);
      bytes[i] = bytes[i]! ^ 0x01;
      await writeFile(f, bytes);
    };
    const damage: [string, (file: string) => Promise<void>][] = [
      ['emptied', (f) => truncate(f, 0)],
      ['cut inside the header', (f) => truncate(f, 30)],
      ['cut inside the vectors', (f) => truncate(f, 600)],
      ['cut by one byte at the end', async (f) => truncate(f, (await stat(f)).size - 1)],
      ['a byte longer', async (f) => writeFile(f, Buffer.concat([await readFile(f), Buffer.from([0])]))],
      ['a bit flipped in a vector', flipByte(() => 400)],
      ['a bit flipped in the points', flipByte((size) => size - 5)],
      ['another magic', flipByte(() => 2)],
      ['a header that is not JSON', flipByte(() => 13)],
      ['text in place of the file', (f) => writeFile(f, '{"format": 2, "identi')],
      ['deleted', (f) => unlink(f)],
    ];
    for (const [i, [what, harm]] of damage.entries()) {
      const dir = path.join(tmp, `damaged-${i}`);
      const store = await newStore(dir);
      await store.upsert(corpus(30));
      await store.save();
      const [snapshot] = await readdir(dir);
      await harm(path.join(dir, snapshot!));
      const loaded = await newStore(dir);
      await loaded.upsert([point(1, 'kept across a failed load')]);
      await expect(loaded.loadSnapshot(), what).resolves.toBe(false);
      // A failed load leaves the store as it was: nothing of the damaged file is half-loaded.
      expect(loaded.ids(), what).toEqual([uuid(1)]);
      expect(loaded.watermark).toBe(0);
    }
  });

  it('keeps the previous snapshot whole when a save stops before its rename', async () => {
    const dir = path.join(tmp, 'stopped-save');
    const first = corpus(50);
    const store = await newStore(dir);
    await store.upsert(first);
    store.watermark = 10;
    await store.save();

    // A save that stops where a kill would land: written and synced under its temporary name.
    const stopping = embeddedStore({
      dir,
      crash: (p) => {
        throw new Error(`stopped at ${p}`);
      },
    });
    await stopping.init(IDENTITY, DIMS);
    await stopping.upsert([...first, ...corpus(50, 500)]);
    stopping.watermark = 20;
    await expect(stopping.save()).rejects.toThrow('stopped at index-snapshot-before-rename');

    const loaded = await newStore(dir);
    expect(await loaded.loadSnapshot()).toBe(true);
    expect(loaded.watermark).toBe(10);
    expect(loaded.ids().sort()).toEqual(first.map((p) => p.id).sort());
  });

  it("removes what a killed save left: its temporary file (writer gone) and the first format's directory", async () => {
    const dir = path.join(tmp, 'leftovers');
    const store = await newStore(dir);
    await store.upsert(corpus(5));
    await store.save();
    const [file] = await readdir(dir);
    const deadPid = await exitedChildPid();
    await writeFile(path.join(dir, `${file}.tmp-${deadPid}-abcd1234`), 'half a snapshot');
    await writeFile(path.join(dir, `${file}.tmp-${process.pid}-abcd1234`), 'a save of this process in flight');
    await mkdir(path.join(dir, 'test-hash_32'));
    await writeFile(path.join(dir, 'test-hash_32', 'meta.json'), '{"format":1}');

    await store.save();
    expect((await readdir(dir)).sort()).toEqual([file, `${file}.tmp-${process.pid}-abcd1234`]);
    expect(await (await newStore(dir)).loadSnapshot()).toBe(true);
  });
});

describe('a BM25-only search', () => {
  it('skips the dense scan and answers the same BM25 hits', async () => {
    const store = await newStore();
    await store.upsert([point(1, 'refunds go back to the card'), point(2, 'invoices are numbered yearly')]);
    const both = await store.search(query('refund card'));
    const sparse = await store.search(query('refund card', { sparseOnly: true }));
    expect(both.dense.length).toBeGreaterThan(0);
    expect(sparse.dense).toEqual([]);
    expect(sparse.sparse).toEqual(both.sparse);
  });
});
