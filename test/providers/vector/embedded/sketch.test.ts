// The embedded index's two-stage dense search (count-sketch shortlist, then exact cosine over
// the int8 vectors it holds) must return what an exact scan of those vectors returns, and its
// scores must stay within a whisker of the float cosine, on the embedder's own vectors.
import { describe, expect, it } from 'vitest';
import { localEmbedder } from '../../../../src/providers/local-embedder.js';
import { EmbeddedIndex } from '../../../../src/providers/vector/embedded/memory-index.js';

const WORDS = (
  'invoice refund ledger payout webhook retry token session tenant currency receipt subscription audit export index shard ' +
  'lock cache quota schema migration billing auth search notification scheduler storage gateway pricing tax fraud catalog'
).split(' ');

function text(seed: number): string {
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  return Array.from({ length: 40 }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ');
}

/** int8 with one scale per vector, as the index is documented to hold them. */
function quantized(v: Float32Array): Float32Array {
  const max = v.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
  return v.map((x) => Math.round((x / max) * 127) * (max / 127));
}

describe('two-stage dense search', () => {
  it('finds the exact top 10 for nearly every query', async () => {
    const embedder = localEmbedder();
    const docs = Array.from({ length: 3000 }, (_, i) => text(i + 1));
    const vectors = await embedder.embed(docs, 'document');
    const index = new EmbeddedIndex(embedder.dimensions);
    vectors.forEach((vector, i) =>
      index.addPoint(
        { id: `c${i}`, nodeId: `n${i}`, tenant: 't', collectionId: 'c', nodeType: 'reference', shape: '', sourceKind: 'record' },
        vector,
        { indices: [], values: [] },
      ),
    );
    const queries = await embedder.embed(
      Array.from({ length: 50 }, (_, i) =>
        text(100_000 + i)
          .split(' ')
          .slice(0, 6)
          .join(' '),
      ),
      'query',
    );
    let found = 0;
    for (const q of queries) {
      const fast = index.searchDense({ tenant: 't', vector: q, text: '', limit: 10 }).map((h) => h.id);
      const exact = vectors
        .map((v, i) => ({ id: `c${i}`, s: quantized(v).reduce((acc, x, j) => acc + x * q[j]!, 0) }))
        .sort((a, b) => b.s - a.s)
        .slice(0, 10)
        .map((h) => h.id);
      found += fast.filter((id) => exact.includes(id)).length;
    }
    expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.97);
  });

  it('scores within 0.006 of the float cosine', async () => {
    const embedder = localEmbedder();
    const docs = Array.from({ length: 300 }, (_, i) => text(i + 1));
    const vectors = await embedder.embed(docs, 'document');
    const index = new EmbeddedIndex(embedder.dimensions);
    vectors.forEach((vector, i) =>
      index.addPoint(
        { id: `c${i}`, nodeId: `n${i}`, tenant: 't', collectionId: 'c', nodeType: 'reference', shape: '', sourceKind: 'record' },
        vector,
        { indices: [], values: [] },
      ),
    );
    const queries = await embedder.embed(
      Array.from({ length: 20 }, (_, i) =>
        text(200_000 + i)
          .split(' ')
          .slice(0, 6)
          .join(' '),
      ),
      'query',
    );
    for (const q of queries) {
      for (const hit of index.searchDense({ tenant: 't', vector: q, text: '', limit: 20 })) {
        const v = vectors[Number(hit.id.slice(1))]!;
        expect(Math.abs(hit.score - v.reduce((acc, x, j) => acc + x * q[j]!, 0))).toBeLessThan(0.006);
      }
    }
  });
});
