// The paths git's index tracks, read from the index file itself (versions 2, 3 and 4, as git's
// Documentation/gitformat-index.txt lays them out): what `doco hook` needs to see which tracked
// files the work tree lost without starting `git diff` (worktree-deletions.ts). An index this
// does not read as git would (a split index, a merge in progress, another version, more entries
// than it is worth checking here, a path git would never track) answers undefined, and the hook
// asks git. The file may be a checkout's someone else packed: it is read only when it is a
// regular file, its entry count is read before the rest, and a path is at most 4,096 bytes.
// Node built-ins only: this runs before every prompt and edit.
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';

export interface IndexEntry {
  /** The path's bytes, one character each (latin1): compared byte for byte with a folder's names. */
  raw: string;
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

/**
 * Past this many entries git (which checks files in threads, with its own caches) answers faster
 * than a fresh Node process reading them (docs/eval.md, "Session 38").
 */
export const MAX_INDEX_ENTRIES = 1_500;
/** git's own bound on a path (PATH_MAX on Linux). */
const MAX_PATH_BYTES = 4096;
/** An index of MAX_INDEX_ENTRIES entries with its extensions (the untracked cache among them) is far smaller. */
const MAX_INDEX_BYTES = 16 << 20;

const ASSUME_VALID = 0x8000;
const EXTENDED = 0x4000;
const STAGE = 0x3000;
const SKIP_WORKTREE = 0x4000;
const INTENT_TO_ADD = 0x2000;
/** ctime, mtime, dev, ino, mode, uid, gid, size: ten 32-bit fields before the object name. */
const STAT_BYTES = 40;

/** Two 32-bit FNV-1a digests of different seeds, over a path's bytes (one character each) and the mark after it. */
function digest(state: Uint32Array, text: string, from: number, to: number, mark: number): void {
  let a = state[0]!;
  let b = state[1]!;
  for (let i = from; i <= to; i++) {
    // The path's bytes, then the mark (NUL, or 1 for intent-to-add) that ends it: no path holds a NUL.
    const c = i < to ? text.charCodeAt(i) : mark;
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

/** Whether git could track the path: relative, no empty, `.` or `..` part (verify_path's rules that matter here). */
function trackable(raw: string): boolean {
  if (raw.length === 0 || raw.length > MAX_PATH_BYTES) return false;
  // Native searches rather than a loop over every character: this runs once for each tracked file.
  const wrapped = `/${raw}/`;
  return !wrapped.includes('//') && !wrapped.includes('/./') && !wrapped.includes('/../');
}

/** The index file's bytes when its header says it is one read here; undefined otherwise. */
function readIndexFile(file: string): Buffer | undefined {
  let fd: number;
  try {
    // Looked at before it is opened, as git-dir-files.ts does: opening some devices does something.
    if (!statSync(file).isFile()) return undefined;
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size < 12 || st.size > MAX_INDEX_BYTES) return undefined;
    const header = Buffer.alloc(12);
    if (readSync(fd, header, 0, 12, 0) !== 12 || header.toString('latin1', 0, 4) !== 'DIRC') return undefined;
    if (header.readUInt32BE(8) > MAX_INDEX_ENTRIES) return undefined;
    const buf = Buffer.allocUnsafe(st.size);
    let got = 0;
    while (got < st.size) {
      const n = readSync(fd, buf, got, st.size - got, got);
      if (n === 0) return undefined;
      got += n;
    }
    return buf;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * The index at `file`, whose object names are `oidBytes` long (20 for SHA-1, 32 for SHA-256);
 * undefined when it cannot be read as git would.
 */
export function readIndex(file: string, oidBytes: number): TrackedIndex | undefined {
  const buf = readIndexFile(file);
  if (!buf || buf.length < 12 + oidBytes) return undefined;
  const version = buf.readUInt32BE(4);
  const count = buf.readUInt32BE(8);
  if (version < 2 || version > 4) return undefined;
  const end = buf.length - oidBytes;
  // The whole file as one character a byte: each path is then a slice of it, not a Buffer call.
  const text = buf.toString('latin1');
  const entries: IndexEntry[] = [];
  const state = new Uint32Array([0x811c9dc5, 0x2f8a3b71]);
  let at = 12;
  // Version 4 keeps each path as what it shares with the one before and the rest.
  let previous = '';
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
      let raw: string;
      if (version === 4) {
        const [strip, next] = varint(buf, at);
        const nul = text.indexOf('\0', next);
        if (nul < 0 || nul >= end || strip > previous.length || previous.length - strip + (nul - next) > MAX_PATH_BYTES) return undefined;
        raw = previous.slice(0, previous.length - strip) + text.slice(next, nul);
        at = nul + 1;
      } else {
        const nul = text.indexOf('\0', at);
        if (nul < 0 || nul >= end) return undefined;
        raw = text.slice(at, nul);
        // Each entry is padded with 1-8 NULs to a multiple of eight bytes.
        at = start + ((nul - start + 8) & ~7);
      }
      previous = raw;
      if (at > end || !trackable(raw)) return undefined;
      const intentToAdd = (extended & INTENT_TO_ADD) !== 0;
      entries.push({ raw, unwatched: (flags & ASSUME_VALID) !== 0 || (extended & SKIP_WORKTREE) !== 0 || intentToAdd });
      digest(state, raw, 0, raw.length, intentToAdd ? 1 : 0);
    }
    // Extensions: a split index keeps most entries in another file.
    while (at + 8 <= end) {
      if (text.slice(at, at + 4) === 'link') return undefined;
      at += 8 + buf.readUInt32BE(at + 4);
    }
  } catch {
    return undefined;
  }
  return { entries, key: `${count}:${state[0]!.toString(36)}:${state[1]!.toString(36)}` };
}
