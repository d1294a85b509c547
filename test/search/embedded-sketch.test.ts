// The embedded index's two-stage dense search (count-sketch shortlist, then exact cosine)
// must return what exact search returns, on the embedder's own vectors.
import { describe, expect, it } from 'vitest';
import { localEmbedder } from '../../src/providers/local-embedder.js';
import { EmbeddedIndex } from '../../src/search/embedded-index.js';

const WORDS = ('invoice refund ledger payout webhook retry token session tenant currency receipt subscription audit export index shard ' +
  'lock cache quota schema migration billing auth search notification scheduler storage gateway pricing tax fraud catalog').split(' ');

function text(seed: number): string {
  let s = seed;
  const next = () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  return Array.from({ length: 40 }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ');
}

describe('two-stage dense search', () => {
  it('finds the exact top 10 for nearly every query', async () => {
    const embedder = localEmbedder();
    const docs = Array.from({ length: 3000 }, (_, i) => text(i + 1));
    const vectors = await embedder.embed(docs, 'document');
    const index = new EmbeddedIndex(embedder.dimensions);
    vectors.forEach((vector, i) => index.addPoint({ id: `c${i}`, nodeId: `n${i}`, tenant: 't', collectionId: 'c', nodeType: 'reference', shape: '', sourceKind: 'record' }, vector, { indices: [], values: [] }));
    const queries = await embedder.embed(Array.from({ length: 50 }, (_, i) => text(100_000 + i).split(' ').slice(0, 6).join(' ')), 'query');
    let found = 0;
    for (const q of queries) {
      const fast = index.searchDense({ tenant: 't', vector: q, text: '', limit: 10 }).map((h) => h.id);
      const exact = vectors
        .map((v, i) => ({ id: `c${i}`, s: v.reduce((acc, x, j) => acc + x * q[j]!, 0) }))
        .sort((a, b) => b.s - a.s)
        .slice(0, 10)
        .map((h) => h.id);
      found += fast.filter((id) => exact.includes(id)).length;
    }
    expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.97);
  });
});
