// Reads a process's embedded index as it saved it under $DOCO_HOME/index, read-only, through
// the same reader the server loads it with: what the tests compare with doco.chunks.
import path from 'node:path';
import { readSnapshot } from '../../src/providers/vector/embedded/snapshot.js';

export interface SavedIndex {
  watermark: number;
  /** Point id → the record it belongs to. */
  points: Map<string, string>;
}

export const LOCAL_IDENTITY = 'local-hash-v1/512';

export async function readSavedIndex(home: string, identity = LOCAL_IDENTITY, dims = 512): Promise<SavedIndex | undefined> {
  const file = path.join(home, 'index', `${identity.replace(/[^A-Za-z0-9._-]+/g, '_')}.snapshot`);
  const loaded = await readSnapshot(file, identity, dims);
  if (!loaded) return undefined;
  return { watermark: loaded.watermark, points: new Map([...loaded.index.livePoints()].map((p) => [p.meta.id, p.meta.nodeId])) };
}
