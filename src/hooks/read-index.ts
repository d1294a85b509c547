// The paths git's index tracks, read from the index file itself (versions 2, 3 and 4, as git's
// Documentation/gitformat-index.txt lays them out): what `doco hook` needs to see which tracked
// files the work tree lost without starting `git diff` (worktree-deletions.ts). An index this
// does not read as git would (a split index, a merge in progress, another version, more entries
// than it is worth checking one by one) answers undefined, and the hook asks git.
// Node built-ins only: this runs before every prompt and edit.
import { readFileSync } from 'node:fs';

export interface IndexEntry {
  path: string;
  /** git does not look at this file in the work tree (assume-unchanged, skip-worktree) or it is only intended to be added. */
  unwatched: boolean;
}

export interface TrackedIndex {
  entries: IndexEntry[];
  /**
   * A digest of the paths and which are only intended to be added: what `git diff --cached`
   * depends on besides HEAD. An index rewritten with fresh file times keeps it.
   */
  key: string;
}

/** Past this many entries, looking at each file costs more than git does (it looks in threads). */
export const MAX_INDEX_ENTRIES = 20_000;

const ASSUME_VALID = 0x8000;
const EXTENDED = 0x4000;
const STAGE = 0x3000;
const SKIP_WORKTREE = 0x4000;
const INTENT_TO_ADD = 0x2000;
/** ctime, mtime, dev, ino, mode, uid, gid, size: ten 32-bit fields before the object name. */
const STAT_BYTES = 40;

/** Two 32-bit FNV-1a digests of different seeds, over the text's UTF-16 units. */
function digest(state: [number, number], text: string): void {
  let [a, b] = state;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
  }
  state[0] = a;
  state[1] = b;
}

/** git's varint in a version 4 index (offset encoding: each continuation adds one before shifting). */
function varint(buf: Buffer, at: number): [value: number, next: number] {
  let c = buf[at++]!;
  let value = c & 0x7f;
  while (c & 0x80) {
    c = buf[at++]!;
    value = ((value + 1) << 7) | (c & 0x7f);
  }
  return [value, at];
}

/**
 * The index at `file`, whose object names are `oidBytes` long (20 for SHA-1, 32 for SHA-256);
 * undefined when it cannot be read as git would.
 */
export function readIndex(file: string, oidBytes: number): TrackedIndex | undefined {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch {
    return undefined;
  }
  if (buf.length < 12 + oidBytes || buf.toString('latin1', 0, 4) !== 'DIRC') return undefined;
  const version = buf.readUInt32BE(4);
  const count = buf.readUInt32BE(8);
  if (version < 2 || version > 4 || count > MAX_INDEX_ENTRIES) return undefined;
  const end = buf.length - oidBytes;
  const entries: IndexEntry[] = [];
  const state: [number, number] = [0x811c9dc5, 0x2f8a3b71];
  let at = 12;
  let previous = Buffer.alloc(0);
  try {
    for (let n = 0; n < count; n++) {
      const start = at;
      const flags = buf.readUInt16BE(at + STAT_BYTES + oidBytes);
      at += STAT_BYTES + oidBytes + 2;
      let extended = 0;
      if (flags & EXTENDED) {
        if (version < 3) return undefined;
        extended = buf.readUInt16BE(at);
        at += 2;
      }
      // A conflicted path (a merge in progress) is git's to describe.
      if (flags & STAGE) return undefined;
      let path: string;
      if (version === 4) {
        const [strip, next] = varint(buf, at);
        const nul = buf.indexOf(0, next);
        // The prefix is counted in bytes of the previous path, not in characters.
        if (nul < 0 || nul >= end || strip > previous.length) return undefined;
        previous = Buffer.concat([previous.subarray(0, previous.length - strip), buf.subarray(next, nul)]);
        path = previous.toString('utf8');
        at = nul + 1;
      } else {
        const nul = buf.indexOf(0, at);
        if (nul < 0 || nul >= end) return undefined;
        path = buf.toString('utf8', at, nul);
        // Each entry is padded with 1-8 NULs to a multiple of eight bytes.
        at = start + ((nul - start + 8) & ~7);
      }
      if (at > end) return undefined;
      // git never tracks such a path; an index that holds one is not read here.
      if (!path || path.startsWith('/') || path.split('/').some((part) => part === '' || part === '.' || part === '..')) return undefined;
      const intentToAdd = (extended & INTENT_TO_ADD) !== 0;
      entries.push({ path, unwatched: (flags & ASSUME_VALID) !== 0 || (extended & SKIP_WORKTREE) !== 0 || intentToAdd });
      digest(state, intentToAdd ? `+${path}\n` : `${path}\n`);
    }
    // Extensions: a split index keeps most entries in another file.
    while (at + 8 <= end) {
      if (buf.toString('latin1', at, at + 4) === 'link') return undefined;
      at += 8 + buf.readUInt32BE(at + 4);
    }
  } catch {
    return undefined;
  }
  return { entries, key: `${count}:${(state[0] >>> 0).toString(36)}:${(state[1] >>> 0).toString(36)}` };
}
