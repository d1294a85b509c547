// The one-time conversion of a wink-embeddings package into the cached word table: values
// survive within the quantisation error, the cache is read (not the JSON) once it exists, a
// new package version or a damaged file converts again, concurrent first loads agree, and a
// malformed package is refused without writing anything.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadWordTable, sharedWordTable, tableFile } from '../../../src/providers/glove/table-cache.js';
import { readVectorPackage } from '../../../src/providers/glove/vector-package.js';
import type { WordTable } from '../../../src/providers/glove/word-table.js';
import { makeLog } from '../../../src/lib/log.js';
import { fixtureVectors, writeWinkPackage } from '../../helpers/wink-fixture.js';

let dir: string;
let cacheDir: string;
let lines: string[];
const log = () => makeLog('info', (l) => lines.push(l));

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'doco-glove-'));
  cacheDir = path.join(dir, 'cache');
  lines = [];
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const vectorOf = (table: WordTable, word: string) => {
  const row = table.rowOf.get(word)!;
  return Array.from(table.vectors.subarray(row * table.dims, (row + 1) * table.dims), (q) => q * table.scales[row]!);
};

describe('loadWordTable', () => {
  it('converts the JSON into rows in rank order, each value within half a quantisation step', async () => {
    const pkg = await writeWinkPackage(path.join(dir, 'pkg'));
    const { table, origin, file } = await loadWordTable({ pkg, cacheDir, log: log() });
    expect(origin).toBe('converted');
    expect(file).toBe(tableFile(cacheDir, pkg));
    expect(table.source).toBe('wink-fixture@1.0.0');
    expect([table.count, table.dims]).toEqual([pkg.vectors.size, 6]);
    [...pkg.vectors.keys()].forEach((word, rank) => expect(table.rowOf.get(word)).toBe(rank));
    for (const [word, original] of pkg.vectors) {
      const step = table.scales[table.rowOf.get(word)!]!;
      expect(step).toBeCloseTo(Math.max(...original.map(Math.abs)) / 127, 6);
      vectorOf(table, word).forEach((v, d) => expect(Math.abs(v - original[d]!)).toBeLessThanOrEqual(step / 2 + 1e-7));
    }
    expect(table.rowOf.get('"quoted"')).toBe(10); // an escaped JSON key
    expect(table.rowOf.get('naïve')).toBe(11); // UTF-8
    expect(table.rowOf.get('missing')).toBeUndefined();
    expect(lines.some((l) => l.includes('converting the wink-fixture@1.0.0 word vectors'))).toBe(true);
  });

  it('reads the cached table on later loads without touching the JSON', async () => {
    const pkg = await writeWinkPackage(path.join(dir, 'pkg'));
    const first = await loadWordTable({ pkg, cacheDir, log: log() });
    await rm(pkg.jsonPath); // a reparse would now fail
    const second = await loadWordTable({ pkg, cacheDir, log: log() });
    expect(second.origin).toBe('cache');
    expect(second.table.vectors).toEqual(first.table.vectors);
    expect(second.table.scales).toEqual(first.table.scales);
    expect(second.table.rowOf.words).toEqual(first.table.rowOf.words);
  });

  it('converts again when the package version changes, keyed by name@version', async () => {
    const old = await writeWinkPackage(path.join(dir, 'pkg'));
    const before = await loadWordTable({ pkg: old, cacheDir, log: log() });
    const upgraded = await writeWinkPackage(path.join(dir, 'pkg'), { version: '1.1.0', vectors: fixtureVectors(6, 99) });
    expect(readVectorPackage(path.join(dir, 'pkg')).label).toBe('wink-fixture@1.1.0');
    const after = await loadWordTable({ pkg: upgraded, cacheDir, log: log() });
    expect(after.origin).toBe('converted');
    expect(after.file).not.toBe(before.file);
    expect(after.table.source).toBe('wink-fixture@1.1.0');
    const original = upgraded.vectors.get('cat')!;
    vectorOf(after.table, 'cat').forEach((v, d) => expect(v).toBeCloseTo(original[d]!, 2));
    expect(vectorOf(after.table, 'cat')).not.toEqual(vectorOf(before.table, 'cat'));
  });

  it('rebuilds a damaged, truncated or foreign cache file with a warning', async () => {
    const pkg = await writeWinkPackage(path.join(dir, 'pkg'));
    const { file, table } = await loadWordTable({ pkg, cacheDir, log: log() });
    const good = await readFile(file);
    const flipped = Buffer.from(good);
    flipped[flipped.length - 40]! ^= 0xff;
    for (const [bytes, why] of [
      [flipped, 'checksum mismatch'],
      [good.subarray(0, good.length - 7), 'body is'],
      [Buffer.from('not a table'), 'not a word-table file'],
    ] as const) {
      await writeFile(file, bytes);
      lines = [];
      const again = await loadWordTable({ pkg, cacheDir, log: log() });
      expect(again.origin).toBe('converted');
      expect(again.table.vectors).toEqual(table.vectors);
      expect(lines.find((l) => l.includes('warn'))).toContain(why);
      expect(await readFile(file)).toEqual(good);
    }
  });

  it('refuses a cache file built from another source under the same name', async () => {
    const pkg = await writeWinkPackage(path.join(dir, 'pkg'));
    const { file } = await loadWordTable({ pkg, cacheDir, log: log() });
    const other = await writeWinkPackage(path.join(dir, 'other'), { name: 'wink-other' });
    await writeFile(tableFile(cacheDir, other), await readFile(file));
    const loaded = await loadWordTable({ pkg: other, cacheDir, log: log() });
    expect(loaded.origin).toBe('converted');
    expect(lines.join('\n')).toContain('built from wink-fixture@1.0.0, expected wink-other@1.0.0');
  });

  it('lets concurrent first loads each convert and leaves one whole file and no temporaries', async () => {
    const pkg = await writeWinkPackage(path.join(dir, 'pkg'));
    const loads = await Promise.all(Array.from({ length: 4 }, () => loadWordTable({ pkg, cacheDir, log: log() })));
    for (const l of loads) expect(l.table.vectors).toEqual(loads[0]!.table.vectors);
    expect(await readdir(path.join(cacheDir, 'glove'))).toEqual([path.basename(tableFile(cacheDir, pkg))]);
    expect((await loadWordTable({ pkg, cacheDir, log: log() })).origin).toBe('cache');
  });

  it('refuses a malformed package JSON with the reason, caching nothing', async () => {
    const cases: [string, string][] = [
      ['{"dimensions":2,"l2NormIndex":2,"wordIndex":3,"size":2,"vectors":{"a":[1,2,3,0]', 'the document ends before its closing brace'],
      ['{"dimensions":2,"vectors":{"a', 'vectors.json: unexpected end of input at byte 27'],
      [
        '{"dimensions":2,"l2NormIndex":2,"wordIndex":3,"size":2,"vectors":{"a":[1,2,3,0],"b":[1,2,3,4,1]}}',
        'the vector of "b" has 5 values, expected 4',
      ],
      ['{"dimensions":3,"l2NormIndex":3,"wordIndex":4,"size":1,"vectors":{"a":[1,2,3,0]}}', 'the header says 3 dimensions'],
      ['{"dimensions":2,"l2NormIndex":2,"wordIndex":3,"size":2,"vectors":{"a":[1,2,3,0],"b":[1,2,3,0]}}', 'rank 0 repeated'],
      ['{"dimensions":2,"l2NormIndex":2,"wordIndex":3,"size":1,"vectors":{"a":[1,2,3,0.5]}}', 'not a rank'],
      ['{"dimensions":2,"vectors":{"a":[1,2,3,0]}}', 'missing or bad "size"'],
      ['{"vectors":{"a":[0]}}', 'the vector of "a" has 1 values: too few'],
      ['{"dimensions":2,"l2NormIndex":2,"wordIndex":3,"size":1,"vectors":{}}', 'no word vectors'],
      ['{"vectors":{"a":[1,x]}}', 'unexpected byte 0x78'],
    ];
    for (const [json, reason] of cases) {
      const pkg = await writeWinkPackage(path.join(dir, 'bad'), { json });
      await expect(loadWordTable({ pkg, cacheDir, log: log() }), json).rejects.toThrow(reason);
    }
    await expect(readdir(path.join(cacheDir, 'glove'))).rejects.toThrow(/ENOENT/);
  });
});

describe('sharedWordTable', () => {
  it('loads a table once per process and hands every caller the same one', async () => {
    const pkg = await writeWinkPackage(path.join(dir, 'pkg'));
    const [a, b] = await Promise.all([sharedWordTable({ pkg, cacheDir, log: log() }), sharedWordTable({ pkg, cacheDir, log: log() })]);
    expect(a).toBe(b);
    expect(lines.filter((l) => l.includes('converting')).length).toBe(1);
  });
});
