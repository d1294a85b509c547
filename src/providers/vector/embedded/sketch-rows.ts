// Where the embedded index keeps its count sketches: one shared WebAssembly.Memory per index, so
// the SIMD kernel (sketch-kernel.ts) reads the rows in place in this thread and in every scan
// worker, none of them copying a row per query. A row is the sketch as 128 int8 with one f32
// scale (132 bytes, a quarter of float32's 512); the query's sketch is int16, so each score is an
// exact integer dot product scaled twice. On the bench corpus the 400-row shortlist held the same
// rows of each exact top 10 as float32 sketches did (bench/sketch-scan.ts).
//
// The layout is sketch-layout.ts's. Growing is memory.grow: rows never move, so a scan in flight
// is unmoved by it. Without WebAssembly the same layout lives in a SharedArrayBuffer, replaced
// (and copied) when it grows, and the JavaScript kernel scans it.
import { BLOCK_ROWS, PAGE_BYTES as PAGE, ROW_BYTES, ROWS_AT, SCRATCH_BYTES, SKETCH_BYTES } from './sketch-layout.js';
import { sketchKernelFor, type SketchKernel, type SketchRowsRef } from './sketch-scan.js';
import { sketchKernelModule } from './sketch-kernel.js';

/** 4 GiB, the most a 32-bit memory addresses. */
const MAX_PAGES = 65536;

const pagesFor = (capacity: number) => Math.ceil((ROWS_AT + capacity * ROW_BYTES) / PAGE);
const newId = () => Math.floor(Math.random() * 2 ** 52);

/** A query's sketch as int16 with its scale (sketch ≈ qScale × q). */
export function quantizeQuery(sketch: Float32Array): { q: Int16Array; qScale: number } {
  let max = 0;
  for (const x of sketch) max = Math.max(max, Math.abs(x));
  const qScale = Math.fround(max / 32767);
  const q = new Int16Array(sketch.length);
  if (qScale > 0) for (let i = 0; i < sketch.length; i++) q[i] = Math.max(-32767, Math.min(32767, Math.round(sketch[i]! / qScale)));
  return { q, qScale };
}

/**
 * A shared memory for the rows, or undefined where one cannot be had: Node reserves about 10 GiB
 * of address space for each WebAssembly memory, whatever its size, which a process under a
 * virtual-memory limit (`ulimit -v`) may not get. The index then keeps its rows in a
 * SharedArrayBuffer and scans them with the JavaScript kernel.
 */
function sharedMemory(pages: number): WebAssembly.Memory | undefined {
  try {
    return new WebAssembly.Memory({ initial: pages, maximum: MAX_PAGES, shared: true });
  } catch (err) {
    if (err instanceof RangeError) return undefined;
    throw err;
  }
}

export class SketchRows {
  /** What a scan job carries: cloned to the workers, the memory itself shared. */
  ref: SketchRowsRef;
  /** This thread's kernel over `ref`. */
  kernel: SketchKernel;
  private capacity: number;
  private bytes: Int8Array;
  private floats: Float32Array;

  constructor(capacity: number, wasm = sketchKernelModule() !== undefined) {
    this.capacity = capacity;
    const layout = { rowsAt: ROWS_AT, rowBytes: ROW_BYTES, scratchBytes: SCRATCH_BYTES, blockRows: BLOCK_ROWS };
    const memory = wasm ? sharedMemory(pagesFor(capacity)) : undefined;
    this.ref = memory
      ? { id: newId(), memory, buffer: undefined, ...layout }
      : { id: newId(), memory: undefined, buffer: new SharedArrayBuffer(pagesFor(capacity) * PAGE), ...layout };
    this.kernel = sketchKernelFor(this.ref, sketchKernelModule());
    [this.bytes, this.floats] = this.views();
  }

  /** The kernel the scans use: WebAssembly SIMD, or JavaScript where that is unavailable. */
  get kind(): 'wasm' | 'js' {
    return this.ref.memory ? 'wasm' : 'js';
  }

  private views(): [Int8Array, Float32Array] {
    const buffer = this.ref.memory ? this.ref.memory.buffer : this.ref.buffer!;
    return [new Int8Array(buffer), new Float32Array(buffer)];
  }

  /** Room for `capacity` rows; the rows written so far stay where they are (or, in JavaScript, are copied along). */
  ensure(capacity: number): void {
    if (capacity <= this.capacity) return;
    let pages = pagesFor(capacity);
    if (pages > MAX_PAGES) throw new Error(`the sketch memory cannot hold ${capacity} rows (4 GiB at most)`);
    if (this.ref.memory) {
      this.ref.memory.grow(pages - this.ref.memory.buffer.byteLength / PAGE);
    } else {
      // A SharedArrayBuffer cannot grow in place: each growth copies every row, so it at least
      // doubles, or an index filled a row at a time would copy itself once per row.
      pages = Math.min(MAX_PAGES, Math.max(pages, (2 * this.ref.buffer!.byteLength) / PAGE));
      const buffer = new SharedArrayBuffer(pages * PAGE);
      new Int8Array(buffer).set(this.bytes);
      // A new buffer is a new identity: workers bind their kernel to it afresh.
      this.ref = { ...this.ref, id: newId(), buffer };
      this.kernel = sketchKernelFor(this.ref, undefined);
    }
    // Every row the pages hold, so the next rows need no growth until they are full.
    this.capacity = Math.floor((pages * PAGE - ROWS_AT) / ROW_BYTES);
    [this.bytes, this.floats] = this.views();
  }

  /** Stores a float sketch as slot's row: int8 with one scale, the largest value at ±127. */
  write(slot: number, sketch: Float32Array): void {
    let max = 0;
    for (const x of sketch) max = Math.max(max, Math.abs(x));
    const scale = Math.fround(max / 127);
    const base = ROWS_AT + slot * ROW_BYTES;
    for (let i = 0; i < SKETCH_BYTES; i++)
      this.bytes[base + i] = scale > 0 ? Math.max(-127, Math.min(127, Math.round(sketch[i]! / scale))) : 0;
    this.floats[(base + SKETCH_BYTES) >> 2] = scale;
  }
}
