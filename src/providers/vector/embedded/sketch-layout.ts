// How the index's sketch memory is laid out (sketch-rows.ts writes it, sketch-kernel.ts and the
// JavaScript kernel read it): SCRATCH_THREADS scratch areas, one per scanning thread (the query,
// then the candidates of one block of rows), then the rows from ROWS_AT on, ROW_BYTES apart.
import { SKETCH_DIMS } from './sketch.js';

/** A row's int8 sketch values; its f32 scale follows them. */
export const SKETCH_BYTES = SKETCH_DIMS;
export const ROW_BYTES = SKETCH_BYTES + 4;
/** Rows one kernel call scans: their candidates fit a scratch area, and the k-th score they are filtered by is at most this many rows stale. */
export const BLOCK_ROWS = 1024;
/** The query (int16), then a block's candidates (i32 slot, f32 score). */
export const SCRATCH_BYTES = SKETCH_DIMS * 2 + BLOCK_ROWS * 8;
/** This thread (0) and up to 99 workers (DOCO_SCAN_THREADS has at most two digits). */
export const SCRATCH_THREADS = 100;
export const PAGE_BYTES = 65536;
export const ROWS_AT = Math.ceil((SCRATCH_THREADS * SCRATCH_BYTES) / PAGE_BYTES) * PAGE_BYTES;
