// The local hashing embedder: deterministic, unit length, symmetric, and closer for texts that
// share words or word stems than for unrelated ones.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LOCAL_DIMENSIONS, localEmbedder } from '../../src/providers/local-embedder.js';
import { tokenize } from '../../src/text/tokenize.js';

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const norm = (v: Float32Array) => Math.sqrt(cosine(v, v));
const embedOne = async (text: string, dimensions?: number) =>
  (await localEmbedder(dimensions === undefined ? {} : { dimensions }).embed([text], 'document'))[0]!;

const PROSE = `Refunds for annual plans are prorated by the billing service. A customer who cancels
within fourteen days gets a full refund; after that, the unused months are credited.`;

describe('localEmbedder', () => {
  it('names its scheme and dimensions in its identity', () => {
    expect(localEmbedder().identity).toBe(`local-hash-v1/${DEFAULT_LOCAL_DIMENSIONS}`);
    const small = localEmbedder({ dimensions: 128 });
    expect(small.identity).toBe('local-hash-v1/128');
    expect(small.dimensions).toBe(128);
  });

  it('gives one vector of the right length per text, in order', async () => {
    const e = localEmbedder({ dimensions: 64 });
    const texts = ['billing refunds', 'kubernetes scheduling', 'refund policy'];
    const together = await e.embed(texts, 'document');
    expect(together.map((v) => v.length)).toEqual([64, 64, 64]);
    for (const [i, text] of texts.entries()) expect(together[i]).toEqual((await e.embed([text], 'document'))[0]);
  });

  it('is deterministic across calls, instances and whatever was embedded before', async () => {
    const first = await embedOne(PROSE);
    const e = localEmbedder();
    // Enough distinct terms to fill and drop the embedder's term memo in between.
    const vocabulary = Array.from({ length: 60_000 }, (_, i) => `term${i.toString(36)}x`).join(' ');
    const [again, , afterFlood] = await e.embed([PROSE, vocabulary, PROSE], 'document');
    expect(again).toEqual(first);
    expect(afterFlood).toEqual(first);
  });

  it('returns unit vectors with signed components', async () => {
    for (const text of [PROSE, 'refund', 'x1', 'Ünïcödé façade naïve', '日本語のテキスト']) {
      const v = await embedOne(text);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    const v = await embedOne(PROSE);
    expect(v.some((x) => x < 0)).toBe(true);
    expect(v.some((x) => x > 0)).toBe(true);
  });

  it('gives a zero vector, never NaN, for a text without terms', async () => {
    for (const text of ['', '   \n', 'the of and', '!!! --- ...']) {
      const v = await embedOne(text);
      expect(v).toHaveLength(DEFAULT_LOCAL_DIMENSIONS);
      expect(v.every((x) => x === 0)).toBe(true);
    }
  });

  it('embeds queries and documents alike', async () => {
    const e = localEmbedder();
    const [doc] = await e.embed(['refund policy for annual plans'], 'document');
    const [query] = await e.embed(['refund policy for annual plans'], 'query');
    expect(query).toEqual(doc);
  });

  it('scores texts sharing words higher than unrelated texts', async () => {
    const query = await embedOne('refund policy for annual plans');
    const related = await embedOne(PROSE);
    const unrelated = await embedOne('Kubernetes schedules pods onto nodes using affinity rules and taints.');
    expect(cosine(query, related)).toBeGreaterThan(cosine(query, unrelated) + 0.1);
  });

  it('scores texts sharing only word stems higher than unrelated texts', async () => {
    const [q, r, u] = ['authenticating configured servers', 'authentication configuration serving', 'quarterly revenue spreadsheet'];
    // No term in common after tokenising: only character n-grams connect them.
    expect(tokenize(q).filter((t) => tokenize(r).includes(t))).toEqual([]);
    const [query, related, unrelated] = [await embedOne(q), await embedOne(r), await embedOne(u)];
    expect(cosine(query, related)).toBeGreaterThan(cosine(query, unrelated) + 0.1);
  });

  it("gives the vectors local-hash-v1 has always given, to the bit, with or without the texts' terms", async () => {
    // The identity promises these vectors (a change must bump "v1"): bytes pinned when this
    // embedder took its caller's terms (the drain's), from the code before that change.
    const texts = [
      PROSE.replace(/\n/g, ' ').replace('cancels ', 'cancels\n'),
      'Mempool — Config\nCore > Mempool\n\nThe mempool size limit caps pending txs; the mempool evicts the oldest tx when the mempool is full. parseHTTPRequest state_sync café Über naïve',
      'the the the ledger ledger ledger shard shard 42 42 v2 B2B',
    ];
    const bytes = (vectors: Float32Array[]) => {
      const hash = createHash('sha256');
      for (const v of vectors) hash.update(Buffer.from(v.buffer, v.byteOffset, v.byteLength));
      return hash.digest('hex');
    };
    const e = localEmbedder();
    const pinned = '76b2c4323e44d127e933506a5bcf42486c4399bfdbbcdca9c465f676a844310a';
    expect(bytes(await e.embed(texts, 'document'))).toBe(pinned);
    expect(bytes(await e.embed(texts, 'document', undefined, texts.map(tokenize)))).toBe(pinned);
  });

  it('embeds the terms it is given: they stand for the text', async () => {
    const e = localEmbedder({ dimensions: 64 });
    const [given] = await e.embed(['anything at all'], 'document', undefined, [tokenize('refund policy')]);
    expect(given).toEqual((await e.embed(['refund policy'], 'document'))[0]);
  });

  it('refuses a dimension that is not a positive integer', () => {
    expect(() => localEmbedder({ dimensions: 0 })).toThrow(RangeError);
    expect(() => localEmbedder({ dimensions: 12.5 })).toThrow(RangeError);
  });
});
