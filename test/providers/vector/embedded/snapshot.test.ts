// The embedded index's snapshot file and its formats: format 4 holds the postings' weights as
// codes into a table of distinct weights, or as floats once an index has more distinct weights
// than codes; both read back to an index answering as the one saved did. A format-3 snapshot (the
// weights as floats, written by the code before format 4) still loads. The store's own snapshot
// tests (store.test.ts) cover damage, identities and the atomic replace.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedIndex, type EmbeddedIndexOptions } from '../../../../src/providers/vector/embedded/memory-index.js';
import { readSnapshot, writeSnapshot } from '../../../../src/providers/vector/embedded/snapshot.js';
import { noCrash } from '../../../../src/lib/crash-point.js';
import { termIndex, tokenize } from '../../../../src/text/tokenize.js';
import type { ChunkPoint } from '../../../../src/providers/vector/port.js';

const DIMS = 32;
const IDENTITY = 'test-hash/32';
const WORDS = [
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
  'audit',
  'budget',
];
/** Written by the code of commit 32cddf6 (format 3) from legacyPoints() and legacyIndex()'s steps, watermark 77. */
const FORMAT_3 = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures/index-snapshot/format-3.snapshot');

function embed(text: string): Float32Array {
  const v = new Float32Array(DIMS);
  for (const term of tokenize(text)) {
    const h = termIndex(term);
    v[h % DIMS]! += h & 0x80000000 ? -1 : 1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** 60 points on 50 ids (50–59 replace 0–9), two tenants, three collections, two types. */
function legacyPoints(): ChunkPoint[] {
  let seed = 2024;
  const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  return Array.from({ length: 60 }, (_, i) => {
    const text = Array.from({ length: 3 + Math.floor(rand() * 12) }, () => WORDS[Math.floor(rand() * WORDS.length)]!).join(' ');
    return {
      id: uuid(i % 50),
      tenant: i % 7 === 0 ? 'ws_b' : 'ws_a',
      collectionId: `col_${i % 3}`,
      nodeId: `rule_${Math.floor(i / 2)}`,
      nodeType: i % 2 ? 'rule' : 'reference',
      shape: '',
      sourceKind: 'record',
      text,
      header: text.split(' ')[0]!,
      vector: embed(text),
    };
  });
}

/** The index the fixture was written from: the points added, then 20–24 removed (tombstones kept). */
function legacyIndex(options: EmbeddedIndexOptions = {}): EmbeddedIndex {
  const index = new EmbeddedIndex(DIMS, 16, options);
  for (const p of legacyPoints()) index.upsert(p);
  for (let i = 20; i < 25; i++) index.remove(uuid(i));
  return index;
}

/** What an index answers: BM25 and dense hits for asks over the vocabulary, both tenants, and every live point. */
function answers(index: EmbeddedIndex) {
  const asks = ['ledger refund', 'shard replica cache', 'quota', 'deploy schema audit budget', 'token route billing invoice'];
  const hits = asks.flatMap((text) =>
    ['ws_a', 'ws_b'].map((tenant) => {
      const q = { tenant, text, vector: embed(text), limit: 8 };
      return { sparse: index.searchSparse(q), dense: index.searchDense(q) };
    }),
  );
  return { hits, points: [...index.livePoints()] };
}

let tmp = '';
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'doco-snapshot-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** Saves `index`, reads it back with `options`, and returns the index read and the header written. */
async function roundTrip(index: EmbeddedIndex, name: string, options: EmbeddedIndexOptions = {}) {
  const file = path.join(tmp, `${name}.snapshot`);
  await writeSnapshot(file, index, IDENTITY, { watermark: 5, database: undefined }, noCrash);
  const bytes = await readFile(file);
  const header = JSON.parse(bytes.subarray(12, 12 + bytes.readUInt32LE(8)).toString('utf8')) as {
    format: number;
    weightCodes: number;
    idBytes: number;
  };
  const loaded = await readSnapshot(file, IDENTITY, DIMS, options);
  return { loaded: loaded!.index, header, magic: bytes.subarray(0, 8).toString('latin1') };
}

describe('index snapshots', () => {
  it('round-trip the weights as codes into their table', async () => {
    const index = legacyIndex();
    const { loaded, header, magic } = await roundTrip(index, 'coded');
    expect([magic, header.format]).toEqual(['DOCOSNP4', 4]);
    expect(header.weightCodes).toBeGreaterThan(5);
    const saved = answers(index);
    expect(saved.hits.every((h) => h.sparse.length > 0 && h.dense.length > 0)).toBe(true);
    expect(answers(loaded)).toEqual(saved);
    expect(header.idBytes).toBeGreaterThan(50 * 36);
    // Any id reads back as it was given, through a second save.
    const odd = { ...legacyPoints()[0]!, id: 'chunk-é-数据', nodeId: 'ノード' };
    [index, loaded].forEach((x) => x.upsert(odd));
    const { loaded: again } = await roundTrip(loaded, 'coded-again');
    expect(again.has('chunk-é-数据')).toBe(true);
    expect(answers(again)).toEqual(answers(index));
    // The loaded index carries on as the saved one does.
    const more = legacyPoints().map((p, i) => ({ ...p, id: uuid(100 + i), text: `${p.text} ledger` }));
    for (const p of more) [index, loaded].forEach((x) => x.upsert(p));
    expect(answers(loaded)).toEqual(answers(index));
  });

  it('round-trip an index whose weights widened to floats, read back as floats or as codes', async () => {
    const widened = legacyIndex({ weightCodes: 4 });
    const { loaded, header } = await roundTrip(widened, 'widened', { weightCodes: 4 });
    expect(header.weightCodes).toBe(0);
    const expected = answers(legacyIndex());
    expect(answers(widened)).toEqual(expected);
    expect(answers(loaded)).toEqual(expected);
    // Read by an index with room for every code, the floats become codes again.
    const { loaded: coded } = await roundTrip(widened, 'widened-read-coded');
    expect(answers(coded)).toEqual(expected);
  });

  it('compacts an index through its codes, or its floats, to the same answers', () => {
    for (const options of [{}, { weightCodes: 4 }]) {
      const index = legacyIndex(options);
      expect(index.tombstones).toBe(15);
      const compacted = index.compact();
      expect(compacted.tombstones).toBe(0);
      expect(answers(compacted)).toEqual(answers(index));
    }
  });

  it('loads a format-3 snapshot (weights as floats), answering as the index it was written from', async () => {
    const loaded = await readSnapshot(FORMAT_3, IDENTITY, DIMS);
    expect(loaded?.watermark).toBe(77);
    expect(loaded!.index.size).toBe(60);
    expect(loaded!.index.count).toBe(45);
    expect(answers(loaded!.index)).toEqual(answers(legacyIndex()));
    // And saved again, it is format 4, and reads back the same.
    const { loaded: again, magic } = await roundTrip(loaded!.index, 'from-format-3');
    expect(magic).toBe('DOCOSNP4');
    expect(answers(again)).toEqual(answers(legacyIndex()));
  });
});
