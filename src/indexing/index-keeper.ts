// Keeps the embedded index's snapshot on disk close to its memory: after the drain changes
// it, a save is scheduled (coalescing bursts), and flush() saves at shutdown. Qdrant persists
// by itself, so for it this does nothing. Saves are at least six delays apart (30 s by
// default): a save rewrites the whole index and holds the thread while it copies the vectors,
// so under steady writes saving after every drain was saving all the time, and the start-up
// catch-up from Postgres covers whatever a snapshot has not caught.
import { systemClock, type Clock } from '../lib/clock.js';
import type { Log } from '../lib/log.js';
import type { VectorStore } from '../providers/vector/port.js';
import type { EmbeddedStore } from '../providers/vector/embedded/store.js';

export interface IndexKeeper {
  changed(maxSeq: number): void;
  flush(): Promise<void>;
}

export interface IndexKeeperTiming {
  /** How long after a change the save comes, so a burst of drains is saved once. */
  delayMs?: number;
  /** The least time between two saves. */
  minIntervalMs?: number;
  clock?: Clock;
}

export function indexKeeper(store: VectorStore, log: Log, timing: IndexKeeperTiming = {}): IndexKeeper {
  if (store.kind !== 'embedded') return { changed() {}, async flush() {} };
  const embedded = store as EmbeddedStore;
  const { delayMs = 5_000, minIntervalMs = 6 * delayMs, clock = systemClock } = timing;
  let timer: { cancel(): void } | undefined;
  let saving: Promise<void> = Promise.resolve();
  let dirty = false;
  let lastSave = -Infinity;
  const save = () => {
    timer = undefined;
    if (!dirty) return saving;
    dirty = false;
    lastSave = clock.now();
    saving = saving.then(() => embedded.save()).catch((err: Error) => log.warn(`saving the embedded index failed: ${err.message}`));
    return saving;
  };
  return {
    changed(maxSeq) {
      if (maxSeq > embedded.watermark) embedded.watermark = maxSeq;
      dirty = true;
      // Fire and forget: save() chains onto `saving` and logs its own failure, so it never rejects.
      timer ??= clock.after(Math.max(delayMs, lastSave + minIntervalMs - clock.now()), () => void save());
    },
    async flush() {
      timer?.cancel();
      await save();
    },
  };
}
