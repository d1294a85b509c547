// The reap (docs/ingest.md, "The reap"): which manifest keys a run retracts, and
// when it must refuse. Pure: the caller retires the records and drops the manifest rows.
import type { FileRead, ReapOutcome } from './types.js';

export interface ManifestKey {
  section_key: string;
  path: string;
  node_id: string;
}

export interface ReapPlan {
  outcome: ReapOutcome;
  reason: string | null;
  /** The keys to retract (outcome 'reaped'), or those that would have been (outcome 'refused'). */
  keys: ManifestKey[];
}

/** A reap of more than this share of the pre-existing manifest is refused wholesale. */
export const REAP_MAX_SHARE = 0.25;

/** Whether `path` belongs to an entry that could not be read: the file itself, or a directory above it. */
function unreadableBy(failed: string[]): (path: string) => boolean {
  const files = new Set(failed.filter((p) => !p.endsWith('/')));
  const dirs = failed.filter((p) => p.endsWith('/'));
  return (path) => files.has(path) || dirs.some((d) => path.startsWith(d));
}

/**
 * Keys of the pre-existing manifest not seen this run, minus those the guards protect:
 * (1) a run forced to `only` files reaps only within them; (2) a file (or directory) that could
 * not be read keeps all its sections. Then (3) an empty document list refuses any reap, and a
 * reap of more than a quarter of the pre-existing manifest is refused wholesale.
 */
export function planReap(input: { manifest: ManifestKey[]; seen: ReadonlySet<string>; files: FileRead[]; only?: string[] }): ReapPlan {
  const only = input.only?.length ? new Set(input.only) : undefined;
  const kept = unreadableBy(input.files.filter((f) => 'error' in f).map((f) => f.path));
  const keys = input.manifest.filter((m) => !input.seen.has(m.section_key) && (!only || only.has(m.path)) && !kept(m.path));
  if (!keys.length) return { outcome: 'nothing_to_reap', reason: null, keys };
  const total = input.manifest.length;
  if (input.files.length === 0) {
    return { outcome: 'refused', reason: `the run saw no documents, and a reap on an empty document list is refused outright: ${keys.length} section(s) kept`, keys };
  }
  if (keys.length > total * REAP_MAX_SHARE) {
    return {
      outcome: 'refused',
      reason: `${keys.length} of ${total} sections would be reaped, more than a quarter of the manifest: a truncated walk or an emptied docs/ looks like this, so nothing was reaped`,
      keys,
    };
  }
  return { outcome: 'reaped', reason: null, keys };
}
