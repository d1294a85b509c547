// The embedded index's pruned BM25 (sparse-top.ts) must return exactly what scoring every live
// document of the asking tenant, with that tenant's own statistics, does: the same ids in the same order (equal scores: the earlier-added point first)
// and the same scores, on random corpora with common and rare words, tombstones, re-added
// points, other tenants, type filters, exact ties and compaction. The oracle below scores each
// document from its own BM25 vector, without postings.
import { describe, expect, it } from 'vitest';
import { EmbeddedIndex, type PointMeta } from '../../../../src/providers/vector/embedded/memory-index.js';
import { sparseTopK, type QueryTerm } from '../../../../src/providers/vector/embedded/sparse-top.js';
import { bm25Idf, sparseDocumentVector, sparseQueryVector } from '../../../../src/text/tokenize.js';
import type { StoreQuery } from '../../../../src/providers/vector/port.js';

function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Word i is drawn with weight 1 / (i + 1): a few words in most documents, many in a handful.
const VOCABULARY = Array.from({ length: 400 }, (_, i) => `w${i.toString(36)}x`);
const zipf = (() => {
  const cumulative: number[] = [];
  let total = 0;
  for (let i = 0; i < VOCABULARY.length; i++) cumulative.push((total += 1 / (i + 1)));
  return (r: number) => {
    const x = r * total;
    let lo = 0;
    while (cumulative[lo]! < x) lo++;
    return VOCABULARY[lo]!;
  };
})();

interface OracleDoc {
  meta: PointMeta;
  /** When it was added: equal scores rank the earlier first, as the index's slots do. */
  order: number;
  vector: Map<number, number>;
  alive: boolean;
}

/** Adds the same points to an index and to the oracle's list. */
class Corpus {
  readonly index = new EmbeddedIndex(4, 16);
  readonly docs: OracleDoc[] = [];
  private added = 0;
  /** `pruneFrom` 0: every search prunes; Infinity: every search scores every posting. */
  constructor(
    private readonly random: () => number,
    pruneFrom: number,
  ) {
    this.index.pruneFromPostings = pruneFrom;
  }

  text(words: number): string {
    return Array.from({ length: words }, () => zipf(this.random())).join(' ');
  }

  add(meta: PointMeta, text: string): void {
    for (const d of this.docs) if (d.meta.id === meta.id) d.alive = false;
    this.index.upsert({ ...meta, text, header: '', vector: new Float32Array([1, 0, 0, 0]) });
    const sparse = sparseDocumentVector(text);
    // The index holds weights as float32.
    const vector = new Map(sparse.indices.map((t, i) => [t, Math.fround(sparse.values[i]!)]));
    this.docs.push({ meta, order: this.added++, vector, alive: true });
  }

  remove(id: string): void {
    this.index.remove(id);
    for (const d of this.docs) if (d.meta.id === id) d.alive = false;
  }

  /** Every live document of the tenant scored (BM25 over the tenant's own), terms added in the query's order; then the best first. */
  oracle(query: StoreQuery): { id: string; score: number }[] {
    const live = this.docs.filter((d) => d.alive && d.meta.tenant === query.tenant);
    const terms = sparseQueryVector(query.text).indices;
    const idf = new Map(terms.map((t) => [t, bm25Idf(Math.max(1, live.length), live.filter((d) => d.vector.has(t)).length)]));
    const f = query.filter;
    return live
      .filter(
        (d) =>
          d.meta.tenant === query.tenant &&
          (!f?.nodeTypes || f.nodeTypes.includes(d.meta.nodeType)) &&
          (!f?.collectionIds || f.collectionIds.includes(d.meta.collectionId)),
      )
      .map((d) => {
        let score = 0;
        for (const t of terms) if (d.vector.has(t)) score += idf.get(t)! * d.vector.get(t)!;
        return { d, score };
      })
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score || a.d.order - b.d.order)
      .slice(0, query.limit)
      .map(({ d, score }) => ({ id: d.meta.id, score }));
  }
}

const meta = (id: string, tenant: string, nodeType: string, collectionId = 'c1'): PointMeta => ({
  id,
  nodeId: `n-${id}`,
  tenant,
  collectionId,
  nodeType,
  shape: '',
  sourceKind: 'record',
});

function expectSame(corpus: Corpus, query: StoreQuery): void {
  const got = corpus.index.searchSparse(query);
  const want = corpus.oracle(query);
  expect(got.map((h) => h.id)).toEqual(want.map((h) => h.id));
  got.forEach((h, i) => expect(Math.abs(h.score - want[i]!.score)).toBeLessThan(1e-9));
}

/** A corpus of `n` points: two tenants, three types, some exact copies (ties), removals and re-adds. */
function randomCorpus(seed: number, n: number, pruneFrom: number): Corpus {
  const random = prng(seed);
  const corpus = new Corpus(random, pruneFrom);
  const copies: string[] = [];
  for (let i = 0; i < n; i++) {
    const tenant = random() < 0.8 ? 't1' : 't2';
    const type = ['reference', 'decision', 'rule'][Math.floor(random() * 3)]!;
    const text =
      copies.length && random() < 0.15 ? copies[Math.floor(random() * copies.length)]! : corpus.text(3 + Math.floor(random() * 60));
    if (copies.length < 20 && random() < 0.05) copies.push(text);
    corpus.add(meta(`p${i}`, tenant, type, random() < 0.5 ? 'c1' : 'c2'), text);
    // Tombstones: removed points and new versions of old ones.
    if (i > 10 && random() < 0.08) corpus.remove(`p${Math.floor(random() * i)}`);
    if (i > 10 && random() < 0.08)
      corpus.add(meta(`p${Math.floor(random() * i)}`, tenant, type), corpus.text(3 + Math.floor(random() * 40)));
  }
  return corpus;
}

function randomQueries(corpus: Corpus, seed: number, count: number): StoreQuery[] {
  const random = prng(seed);
  const filters = [
    undefined,
    { nodeTypes: ['decision'] },
    { nodeTypes: ['rule', 'reference'] },
    { collectionIds: ['c2'] },
    { nodeTypes: [] },
  ];
  return Array.from({ length: count }, () => {
    const filter = filters[Math.floor(random() * filters.length)];
    return {
      tenant: random() < 0.85 ? 't1' : 't2',
      vector: new Float32Array(4),
      text: corpus.text(1 + Math.floor(random() * 12)),
      limit: [1, 3, 10, 30, 300][Math.floor(random() * 5)]!,
      ...(filter ? { filter } : {}),
    };
  });
}

// Both ways of answering, each against the oracle: pruned (what long postings get) and every
// posting scored (what short ones get, below PRUNE_FROM_POSTINGS).
describe.each([
  ['pruned', 0],
  ['every posting scored', Infinity],
])('BM25 top k, %s', (_, pruneFrom) => {
  it('returns what scoring every document returns, on random corpora', () => {
    for (let seed = 1; seed <= 6; seed++) {
      const corpus = randomCorpus(seed, 1500, pruneFrom);
      for (const q of randomQueries(corpus, 1000 + seed, 60)) expectSame(corpus, q);
    }
  });

  it('keeps exact ties in the order the points were added, at the k-th place too', () => {
    const corpus = new Corpus(prng(9), pruneFrom);
    // 40 copies of one text among others: whichever ten of them make the top 10 must be the first ten added.
    for (let i = 0; i < 400; i++) corpus.add(meta(`p${i}`, 't1', 'reference'), i % 10 === 3 ? 'w1x w2x w3x wax' : corpus.text(20));
    for (const limit of [1, 5, 10, 39, 40, 41])
      expectSame(corpus, { tenant: 't1', vector: new Float32Array(4), text: 'w1x w2x w3x wax w0x', limit });
  });

  it('stays exact after compaction and for a tenant with no points', () => {
    const corpus = randomCorpus(21, 800, pruneFrom);
    const index = corpus.index.compact();
    index.pruneFromPostings = pruneFrom;
    const compacted = Object.assign(Object.create(Corpus.prototype) as Corpus, corpus, { index });
    for (const q of randomQueries(corpus, 77, 30)) expectSame(compacted, q);
    expect(corpus.index.searchSparse({ tenant: 'nobody', vector: new Float32Array(4), text: 'w0x w1x', limit: 10 })).toEqual([]);
    expect(corpus.index.searchSparse({ tenant: 't1', vector: new Float32Array(4), text: 'w0x w1x', limit: 0 })).toEqual([]);
  });

  it("scores a tenant's records alike whatever another tenant holds: no word's weight says what the other wrote", () => {
    const corpus = new Corpus(prng(8), pruneFrom);
    corpus.add(meta('a-guess', 'a', 'reference'), 'zanzibarproject launch notes filler words');
    corpus.add(meta('a-control', 'a', 'reference'), 'qwxvplmkjh launch notes filler words');
    for (let i = 0; i < 5; i++) corpus.add(meta(`a-${i}`, 'a', 'reference'), corpus.text(20));
    const ask: StoreQuery = { tenant: 'a', vector: new Float32Array(4), text: 'zanzibarproject qwxvplmkjh', limit: 10 };
    const before = corpus.index.searchSparse(ask);
    expect(before.map((h) => h.id).sort()).toEqual(['a-control', 'a-guess']);
    for (let i = 0; i < 3; i++) corpus.add(meta(`b-${i}`, 'b', 'reference'), `zanzibarproject secret ${corpus.text(10)}`);
    corpus.remove('b-1');
    corpus.add(meta('b-9', 'b', 'reference'), 'qwxvplmkjh elsewhere');
    expect(corpus.index.searchSparse(ask)).toEqual(before);
    expectSame(corpus, ask);
    expectSame(corpus, { ...ask, tenant: 'b' });
    const restored = Object.assign(Object.create(Corpus.prototype) as Corpus, corpus, { index: corpus.index.compact() });
    restored.index.pruneFromPostings = pruneFrom;
    expect(restored.index.searchSparse(ask)).toEqual(before);
  });
});

describe('pruned BM25 top k', () => {
  it("answers the duplicate guard's lookup (a record's own words, never pruned) as the pruned search does", () => {
    const corpus = randomCorpus(5, 1200, 0);
    const random = prng(55);
    for (let i = 0; i < 40; i++) {
      const doc = corpus.docs[Math.floor(random() * corpus.docs.length)]!;
      // Sixteen words, most of them common: as many as the guard looks up.
      const query: StoreQuery = {
        tenant: doc.meta.tenant,
        vector: new Float32Array(4),
        text: corpus.text(16),
        limit: 10,
        filter: { nodeTypes: [doc.meta.nodeType] },
      };
      const pruned = corpus.index.searchSparse(query);
      expect(corpus.index.searchSparse({ ...query, recordWords: true })).toEqual(pruned);
      expectSame(corpus, { ...query, recordWords: true });
    }
  });

  it("adds each document's terms in the query's order, so a near-tie breaks as the full scan breaks it", () => {
    // Slot 0 holds three terms whose IDFs sum to 0.6000000000000001 in the query's order
    // ((0.1 + 0.2) + 0.3) but to 0.6 rarest-first; slot 1 holds one term worth exactly the former.
    const term = (idf: number, slot: number): QueryTerm => ({
      slots: Int32Array.of(slot),
      weights: Float32Array.of(1),
      table: undefined,
      len: 1,
      idf,
      bound: idf,
    });
    const tie = 0.1 + 0.2 + 0.3;
    const terms = [term(0.1, 0), term(0.2, 0), term(0.3, 0), term(tie, 1)];
    const alive = Uint8Array.of(1, 1);
    const buffers = { scores: new Float64Array(2), touched: new Int32Array(2) };
    expect(sparseTopK(terms, 1, () => true, alive, buffers, 0)).toEqual([{ slot: 0, score: tie }]);
    expect(sparseTopK(terms, 2, () => true, alive, buffers, 0)).toEqual([
      { slot: 0, score: tie },
      { slot: 1, score: tie },
    ]);
    expect([...buffers.scores]).toEqual([0, 0]);
  });
});
