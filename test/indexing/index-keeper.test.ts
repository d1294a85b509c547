// The index keeper (indexing/index-keeper.ts) coalesces saves of the embedded snapshot, and keeps
// them at least its minimum interval apart however often the drain changes the index. Time is a
// hand-driven clock: nothing here sleeps.
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/lib/clock.js';
import { makeLog } from '../../src/lib/log.js';
import type { EmbeddedStore } from '../../src/providers/vector/embedded/store.js';
import { indexKeeper } from '../../src/indexing/index-keeper.js';

/** A clock that moves only when told: advance() runs the timers that fall due, in order. */
function manualClock() {
  let now = 0;
  let timers: { at: number; fn: () => void }[] = [];
  const clock: Clock = {
    now: () => now,
    after(ms, fn) {
      const timer = { at: now + ms, fn };
      timers.push(timer);
      return { cancel: () => void (timers = timers.filter((t) => t !== timer)) };
    },
  };
  const advance = async (ms: number) => {
    const until = now + ms;
    for (;;) {
      const due = timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      timers = timers.filter((t) => t !== due);
      now = due.at;
      due.fn();
      await new Promise((r) => setImmediate(r)); // let the save it started settle
    }
    now = until;
  };
  return { clock, advance, pending: () => timers.length };
}

function countingStore(clock: Clock) {
  const saves: number[] = [];
  const store = { kind: 'embedded', watermark: 0, save: async () => void saves.push(clock.now()) } as unknown as EmbeddedStore;
  return { store, saves };
}

describe('indexKeeper', () => {
  it('coalesces a burst into one save after its delay, and keeps the next one the minimum interval away', async () => {
    const { clock, advance } = manualClock();
    const { store, saves } = countingStore(clock);
    const keeper = indexKeeper(store, makeLog('silent'), { delayMs: 10, minIntervalMs: 400, clock });
    for (let i = 1; i <= 5; i++) keeper.changed(i);
    expect(store.watermark).toBe(5);
    await advance(9);
    expect(saves).toEqual([]);
    await advance(1);
    expect(saves).toEqual([10]);
    keeper.changed(6);
    await advance(399); // 409: 399 ms after the first save, still inside the interval
    expect(saves).toEqual([10]);
    await advance(1);
    expect(saves).toEqual([10, 410]);
    // Quiet for longer than the interval: the next change waits only the delay.
    await advance(1000);
    keeper.changed(7);
    await advance(10);
    expect(saves).toEqual([10, 410, 1420]);
  });

  it('saves what is pending at once on flush, and cancels the timer it replaces', async () => {
    const { clock, advance, pending } = manualClock();
    const { store, saves } = countingStore(clock);
    const keeper = indexKeeper(store, makeLog('silent'), { delayMs: 10_000, clock });
    keeper.changed(1);
    expect(pending()).toBe(1);
    await keeper.flush();
    expect(saves).toEqual([0]);
    expect(pending()).toBe(0);
    await keeper.flush();
    await advance(60_000);
    expect(saves).toEqual([0]); // nothing changed since
  });
});
