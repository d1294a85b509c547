// The dense search's exact stage reads its shortlist's rows (memory-index.ts): near ones together.
/**
 * Shortlisted rows at most this many slots past the last one are read with it, in one call: once
 * the rows are in a file (vector-rows.ts) each read is a system call in this thread, and a
 * shortlist's rows cluster (a record's chunks, records written together). At 100k synthetic
 * records (197,621 rows in burst order, the bench's 240 asks, 800-row shortlists) a query read
 * its rows in 800 calls one by one, 486 at a gap of 16, 299 at 64; the exact stage's CPU at the
 * median 4.64 ms one by one, 4.03 at a gap of 8, 3.73 at 16, 3.48 at 32, 3.69 at 64, the scores
 * the same to the bit.
 */
export const SHORTLIST_READ_GAP = 32;
/** Rows one read holds at most, so a dense run of the shortlist costs no large copy. */
const SHORTLIST_READ_ROWS = 64;

/** `slots` (ascending) cut into runs [from, to) of indexes, each read in one call (see SHORTLIST_READ_GAP). */
export function shortlistReads(slots: ArrayLike<number>, gap = SHORTLIST_READ_GAP): [number, number][] {
  const runs: [number, number][] = [];
  for (let from = 0, i = 1; from < slots.length; i++)
    if (i === slots.length || slots[i]! - slots[i - 1]! > gap || slots[i]! - slots[from]! >= SHORTLIST_READ_ROWS) {
      runs.push([from, i]);
      from = i;
    }
  return runs;
}
