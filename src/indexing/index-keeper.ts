// Keeps the embedded index's snapshot on disk close to its memory: after the drain changes
// it, a save is scheduled (coalescing bursts), and flush() saves at shutdown. Qdrant persists
// by itself, so for it this does nothing. Saves are at least six delays apart (30 s by
// default): a save rewrites the whole index and holds the thread while it copies the vectors,
// so under steady writes saving after every drain was saving all the time, and the start-up
// catch-up from Postgres covers whatever a snapshot has not caught.
import type { Log } from '../lib/log.js';
import type { VectorStore } from '../providers/vector/port.js';
import type { EmbeddedStore } from '../providers/vector/embedded/store.js';

export interface IndexKeeper {
  changed(maxSeq: number): void;
  flush(): Promise<void>;
}

export function indexKeeper(store: VectorStore, log: Log, delayMs = 5_000, minIntervalMs = 6 * delayMs): IndexKeeper {
  if (store.kind !== 'embedded') return { changed() {}, async flush() {} };
  const embedded = store as EmbeddedStore;
  let timer: NodeJS.Timeout | undefined;
  let saving: Promise<void> = Promise.resolve();
  let dirty = false;
  let lastSave = -Infinity;
  const save = () => {
    timer = undefined;
    if (!dirty) return saving;
    dirty = false;
    lastSave = performance.now();
    saving = saving.then(() => embedded.save()).catch((err: Error) => log.warn(`saving the embedded index failed: ${err.message}`));
    return saving;
  };
  return {
    changed(maxSeq) {
      if (maxSeq > embedded.watermark) embedded.watermark = maxSeq;
      dirty = true;
      // Fire and forget: save() chains onto `saving` and logs its own failure, so it never rejects.
      timer ??= setTimeout(() => void save(), Math.max(delayMs, lastSave + minIntervalMs - performance.now())).unref();
    },
    async flush() {
      if (timer) clearTimeout(timer);
      await save();
    },
  };
}
