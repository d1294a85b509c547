// mapYielding (src/lib/yield-often.ts): results in order, and the event loop gets turns while a
// long loop runs — the embedded store's upsert and the local embedder use it so `doco serve`
// answers requests while the drain indexes a batch.
import { describe, expect, it } from 'vitest';
import { mapYielding } from '../../src/lib/yield-often.js';
import { localEmbedder } from '../../src/providers/local-embedder.js';
import { embeddedStore } from '../../src/providers/vector/embedded/store.js';

/** Holds the thread for `ms`, as a slow item would. */
const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

/** Resolves with what had happened by the time a callback queued now got its turn. */
const turnAfter = (events: string[]) => new Promise<string[]>((resolve) => setImmediate(() => resolve([...events])));

describe('mapYielding', () => {
  it('maps in order', async () => {
    expect(await mapYielding([1, 2, 3], (x, i) => x * 10 + i)).toEqual([10, 21, 32]);
    expect(await mapYielding([], () => 1)).toEqual([]);
  });

  it('gives the event loop a turn once a slice has run, and none when the loop fits in one', async () => {
    const events: string[] = [];
    const seen = turnAfter(events);
    const done = mapYielding(
      [1, 2, 3, 4, 5, 6],
      (x) => {
        busy(3);
        events.push(`item ${x}`);
      },
      5,
    ).then(() => events.push('done'));
    const atTurn = await seen;
    await done;
    expect(atTurn).not.toContain('done');
    expect(atTurn.length).toBeLessThan(6);

    const whole: string[] = [];
    const late = turnAfter(whole);
    await mapYielding([1, 2, 3], (x) => void whole.push(`item ${x}`), 60_000);
    whole.push('done');
    expect(await late).toEqual(['item 1', 'item 2', 'item 3', 'done']);
  });
});

describe('the embedded store while it indexes a batch', () => {
  it('answers a search that arrives during a long upsert, before the upsert ends', async () => {
    const embedder = localEmbedder();
    const store = embeddedStore();
    await store.init(embedder.identity, embedder.dimensions);
    const texts = Array.from(
      { length: 3000 },
      (_, i) => `Section ${i} of the consensus WAL notes: replay, timeout_commit, mempool rechecks and block ${i * 7}.`,
    );
    const vectors = await embedder.embed(texts, 'document');
    const points = texts.map((text, i) => ({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      tenant: 'ws',
      collectionId: 'col',
      nodeId: `reference_${i}`,
      nodeType: 'reference',
      shape: '',
      sourceKind: 'record',
      text,
      vector: vectors[i]!,
    }));
    const order: string[] = [];
    const upsert = store.upsert(points).then(() => order.push('upsert'));
    const [query] = await embedder.embed(['consensus WAL replay'], 'query');
    const search = store.search({ tenant: 'ws', vector: query!, text: 'consensus WAL replay', limit: 5, alone: true }).then((hits) => {
      order.push('search');
      return hits;
    });
    const hits = await search;
    await upsert;
    expect(order).toEqual(['search', 'upsert']);
    // It searched what was indexed by then: some of the batch, not none and not all of it.
    expect(hits.sparse.length).toBeGreaterThan(0);
    expect(await store.count()).toBe(3000);
  });
});
