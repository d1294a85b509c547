// Where the embedded index keeps its int8 vectors, one row of `dims` bytes per slot, appended and
// never rewritten. In memory (a store without a folder: tests, a memory-only index), or in a file
// of the index's own in the store's folder, so the rows are not the process's memory: the dense
// search needs a row only to rescore the sketch scan's shortlist (a few hundred rows a query,
// memory-index.ts), read with positioned reads. What the file costs instead: the kernel's page
// cache holds the rows it reads (memory the kernel may reclaim, not this process's RSS), and a
// row not in that cache is a disk read (docs/search.md, "The embedded index's memory").
//
// The file is scratch, never a record: the snapshot holds the vectors itself (snapshot.ts), so
// its replace-whole-or-not-at-all guarantee does not depend on this file. It is unlinked as soon
// as it is opened, so no crash, kill or forgotten close leaves it behind; its space is freed when
// its descriptor closes (close(), or when the index holding it is garbage collected, since an
// index replaced by compaction may still be read by a search or a save in flight).
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, read, readSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

/** Slots' int8 rows, appended in slot order; a row once written never changes. */
export interface Int8Rows {
  readonly dims: number;
  /** Rows appended so far. */
  readonly count: number;
  append(row: Int8Array): void;
  /** Slot's row into `out` (dims bytes): a shortlist's rows are read one by one, with no array made for each. */
  readRow(slot: number, out: Int8Array): void;
  /** Rows `from` to `to` (exclusive), in one piece: a view or a copy, to be read, not kept across appends. */
  read(from: number, to: number): Int8Array;
  /** The same, without holding the thread on the disk. */
  readAsync(from: number, to: number): Promise<Int8Array>;
  /** Frees what the rows hold; reading after it is an error. */
  close(): void;
}

/** Rows in one Int8Array that doubles as it fills (a row never moves but to a new array, so a view of old rows stays true). */
export function memoryRows(dims: number, capacity = 1024): Int8Rows {
  let rows = new Int8Array(capacity * dims);
  let count = 0;
  const read = (from: number, to: number) => rows.subarray(from * dims, to * dims);
  return {
    dims,
    get count() {
      return count;
    },
    append(row) {
      if ((count + 1) * dims > rows.length) {
        const grown = new Int8Array(Math.max(dims, rows.length * 2));
        grown.set(rows);
        rows = grown;
      }
      rows.set(row, count++ * dims);
    },
    readRow(slot, out) {
      out.set(read(slot, slot + 1));
    },
    read,
    readAsync: async (from, to) => read(from, to),
    close() {
      rows = new Int8Array(0);
    },
  };
}

/** Rows already in memory in one array (a snapshot read back), read as views. */
export function rowsIn(array: Int8Array, dims: number): Pick<Int8Rows, 'read' | 'readAsync'> {
  const read = (from: number, to: number) => array.subarray(from * dims, to * dims);
  return { read, readAsync: async (from, to) => read(from, to) };
}

/** Rows a file holds back before writing them in one call: fewer system calls than a write per point. */
const PENDING_ROWS = 256;

/** Closes a file whose rows nobody can read any more (see the top of this file). */
const orphans = new FinalizationRegistry<number>((fd) => closeSync(fd));

/** Rows in a new, already unlinked file in `dir` (created if missing). */
export function fileRows(dir: string, dims: number): Int8Rows {
  mkdirSync(dir, { recursive: true });
  const name = path.join(dir, `vectors-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(name, 'wx+');
  unlinkSync(name);
  const pending = new Int8Array(PENDING_ROWS * dims);
  let written = 0;
  let held = 0;
  let open = true;
  const flush = () => {
    for (let done = 0; done < held * dims;) done += writeSync(fd, pending, done, held * dims - done, written * dims + done);
    written += held;
    held = 0;
  };
  const check = (from: number, to: number) => {
    if (!open) throw new Error('vector rows read after close');
    if (from < 0 || to < from || to > written + held) throw new Error(`rows ${from}–${to} out of range (${written + held} rows)`);
  };
  const rows: Int8Rows = {
    dims,
    get count() {
      return written + held;
    },
    append(row) {
      if (!open) throw new Error('vector rows appended after close');
      // Written before the next row is held, so a write that fails (a full disk) appends nothing
      // and the next append tries again.
      if (held === PENDING_ROWS) flush();
      pending.set(row, held++ * dims);
    },
    readRow(slot, out) {
      check(slot, slot + 1);
      if (slot >= written) out.set(pending.subarray((slot - written) * dims, (slot - written + 1) * dims));
      else if (readSync(fd, out, 0, dims, slot * dims) !== dims) throw new Error('vector file shorter than its rows');
    },
    read(from, to) {
      check(from, to);
      // A row still held back is read from there; the rest from the file.
      if (from >= written) return pending.slice((from - written) * dims, (to - written) * dims);
      const out = new Int8Array((to - from) * dims);
      const fromFile = (Math.min(to, written) - from) * dims;
      for (let done = 0; done < fromFile;) {
        const n = readSync(fd, out, done, fromFile - done, from * dims + done);
        if (n === 0) throw new Error('vector file shorter than its rows');
        done += n;
      }
      if (to > written) out.set(pending.subarray(0, (to - written) * dims), fromFile);
      return out;
    },
    async readAsync(from, to) {
      check(from, to);
      // Held-back rows are written first, so the whole range is in the file.
      if (to > written) flush();
      const out = new Int8Array((to - from) * dims);
      for (let done = 0; done < out.length;) {
        const n = await new Promise<number>((resolve, reject) =>
          read(fd, out, done, out.length - done, from * dims + done, (err, bytes) => (err ? reject(err) : resolve(bytes))),
        );
        if (n === 0) throw new Error('vector file shorter than its rows');
        done += n;
      }
      return out;
    },
    close() {
      if (!open) return;
      open = false;
      orphans.unregister(rows);
      closeSync(fd);
    },
  };
  orphans.register(rows, fd, rows);
  return rows;
}

/**
 * The index's vectors at most take this much memory before they move to a file: up to it, rows
 * in memory (a shortlist rescored in ~0.5 ms); past it, the file (3–5 ms, its 400 positioned
 * reads in the main thread; docs/eval.md, "Issue 29: the index in memory"). 32 MB is 65,536
 * rows of the local embedder's 512 dimensions, about 30k records: an index that small costs
 * little memory and answers as fast as it can; a large one stays lean.
 */
export const VECTORS_IN_MEMORY_BYTES = 32 * 1024 * 1024;

/**
 * Rows in memory until they would pass `memoryBytes`, then every row in a file of `dir`
 * (fileRows) from then on. A read's view of the memory rows stays true after the move, as a view
 * across an append does (Int8Rows.read).
 */
export function spillingRows(
  dir: string,
  dims: number,
  memoryBytes = VECTORS_IN_MEMORY_BYTES,
  capacity = 1024,
): Int8Rows & { readonly inFile: boolean } {
  let rows = memoryRows(dims, Math.min(capacity, Math.max(1, Math.floor(memoryBytes / dims))));
  let inFile = false;
  return {
    dims,
    get count() {
      return rows.count;
    },
    get inFile() {
      return inFile;
    },
    append(row) {
      if (!inFile && (rows.count + 1) * dims > memoryBytes) {
        const file = fileRows(dir, dims);
        const held = rows.read(0, rows.count);
        for (let slot = 0; slot < rows.count; slot++) file.append(held.subarray(slot * dims, (slot + 1) * dims));
        rows = file;
        inFile = true;
      }
      rows.append(row);
    },
    readRow: (slot, out) => rows.readRow(slot, out),
    read: (from, to) => rows.read(from, to),
    readAsync: (from, to) => rows.readAsync(from, to),
    close: () => rows.close(),
  };
}
