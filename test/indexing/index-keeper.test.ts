// The index keeper (indexing/index-keeper.ts) coalesces saves of the embedded snapshot, and keeps
// them at least its minimum interval apart however often the drain changes the index.
import { describe, expect, it } from 'vitest';
import { makeLog } from '../../src/lib/log.js';
import type { EmbeddedStore } from '../../src/providers/vector/embedded/store.js';
import { indexKeeper } from '../../src/indexing/index-keeper.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function countingStore() {
  const saves: number[] = [];
  const store = { kind: 'embedded', watermark: 0, save: async () => void saves.push(performance.now()) } as unknown as EmbeddedStore;
  return { store, saves };
}

describe('indexKeeper', () => {
  it('coalesces a burst into one save, and keeps the next one the minimum interval away', async () => {
    const { store, saves } = countingStore();
    const keeper = indexKeeper(store, makeLog('silent'), 10, 400);
    for (let i = 1; i <= 5; i++) keeper.changed(i);
    await sleep(100);
    expect(saves).toHaveLength(1);
    expect(store.watermark).toBe(5);
    keeper.changed(6);
    await sleep(100);
    // Only later than the interval can a save come; a slow machine makes it later, never sooner.
    expect(saves).toHaveLength(1);
    for (let waited = 0; saves.length < 2 && waited < 5000; waited += 50) await sleep(50);
    expect(saves).toHaveLength(2);
    expect(saves[1]! - saves[0]!).toBeGreaterThanOrEqual(390);
  });

  it('saves what is pending at once on flush', async () => {
    const { store, saves } = countingStore();
    const keeper = indexKeeper(store, makeLog('silent'), 10_000);
    keeper.changed(1);
    await keeper.flush();
    expect(saves).toHaveLength(1);
    await keeper.flush();
    expect(saves).toHaveLength(1); // nothing changed since
  });
});
