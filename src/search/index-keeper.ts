// Keeps the embedded index's snapshot on disk close to its memory: after the drain changes
// it, a save is scheduled (coalescing bursts), and flush() saves at shutdown. Qdrant persists
// by itself, so for it this does nothing.
import type { Log } from '../runtime/log.js';
import type { VectorStore } from './vector-store.js';
import type { EmbeddedStore } from './embedded-store.js';

export interface IndexKeeper {
  changed(maxSeq: number): void;
  flush(): Promise<void>;
}

export function indexKeeper(store: VectorStore, log: Log, delayMs = 5_000): IndexKeeper {
  if (store.kind !== 'embedded') return { changed() {}, async flush() {} };
  const embedded = store as EmbeddedStore;
  let timer: NodeJS.Timeout | undefined;
  let saving: Promise<void> = Promise.resolve();
  let dirty = false;
  const save = () => {
    timer = undefined;
    if (!dirty) return saving;
    dirty = false;
    saving = saving.then(() => embedded.save()).catch((err: Error) => log.warn(`saving the embedded index failed: ${err.message}`));
    return saving;
  };
  return {
    changed(maxSeq) {
      if (maxSeq > embedded.watermark) embedded.watermark = maxSeq;
      dirty = true;
      // Fire and forget: save() chains onto `saving` and logs its own failure, so it never rejects.
      timer ??= setTimeout(() => void save(), delayMs).unref();
    },
    async flush() {
      if (timer) clearTimeout(timer);
      await save();
    },
  };
}
