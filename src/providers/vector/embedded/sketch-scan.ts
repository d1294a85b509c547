// The dense search's first pass: the best `k` slots of a row range by sketch score. A kernel
// (WebAssembly SIMD, or the JavaScript one below where WebAssembly is unavailable) scores a
// block of rows at a time and hands back only those above the current k-th score; this code
// checks their liveness, tenant and filters and keeps the best k. The functions here run in
// this thread and, as source text, in the scan workers (scan-pool.ts), so they must stay
// self-contained: no imports, no outside names but each other, plain JavaScript once types are
// stripped. Ties rank the lower slot first, so the best k of the whole index is exactly the best
// k of the union of each range's best k, however the rows are split between workers.

/** Where a scan finds the rows (sketch-rows.ts owns them; sketch-layout.ts has the layout). */
export interface SketchRowsRef {
  /** Tells one memory or buffer from another, so a worker binds its kernel once per index. */
  id: number;
  /** The shared memory the WebAssembly kernel reads; undefined: the rows are in `buffer`, for the JavaScript kernel. */
  memory: WebAssembly.Memory | undefined;
  buffer: SharedArrayBuffer | undefined;
  rowsAt: number;
  rowBytes: number;
  scratchBytes: number;
  blockRows: number;
}

/**
 * Scores rows [from, to) against the int16 query at qAt, writing each that scores above `floor`
 * to outAt as (i32 slot, f32 score), in slot order; returns how many it wrote.
 */
export type SketchKernel = (qAt: number, rowsAt: number, from: number, to: number, floor: number, qScale: number, outAt: number) => number;

export interface SketchScan {
  /** The query's sketch as int16 (SKETCH_DIMS of them), and its scale. */
  q: Int16Array;
  qScale: number;
  rows: SketchRowsRef;
  alive: Uint8Array;
  tenants: Int32Array;
  tenant: number;
  /** Constraints beyond the tenant: a row matches when its code for each attribute is allowed. */
  filters: { codes: Int32Array; allowed: Int32Array }[];
  from: number;
  to: number;
  k: number;
  /** Which scratch area this thread uses: 0 here, 1… the workers (never two scans at once on one). */
  thread: number;
}

/** Slots and their sketch scores, best first (ties: lower slot first). */
export interface Shortlist {
  slots: Int32Array;
  scores: Float64Array;
}

/**
 * The kernel the WebAssembly module exports over the rows' memory, or the JavaScript one when
 * the rows are in a plain buffer: which one depends on the rows alone, so every thread runs the
 * same and the scores agree to the bit.
 */
export function sketchKernelFor(rows: SketchRowsRef, module: WebAssembly.Module | undefined): SketchKernel {
  if (!rows.memory) return jsSketchKernel(rows);
  // Never the other kernel instead: its scores would be the same, but a thread that cannot run
  // this one is broken, and says so.
  if (!module || typeof WebAssembly !== 'object' || !WebAssembly)
    throw new Error('the sketch rows are in WebAssembly memory but this thread cannot run the kernel');
  return new WebAssembly.Instance(module, { env: { memory: rows.memory } }).exports.scan as SketchKernel;
}

/** The kernel in JavaScript, for where WebAssembly is unavailable: the WebAssembly kernel's scores exactly (an exact integer sum, then two float32 roundings). */
export function jsSketchKernel(rows: SketchRowsRef): SketchKernel {
  let buffer: ArrayBufferLike | undefined;
  let bytes: Int8Array<ArrayBufferLike> = new Int8Array(0);
  let shorts: Int16Array<ArrayBufferLike> = new Int16Array(0);
  let ints: Int32Array<ArrayBufferLike> = new Int32Array(0);
  let floats: Float32Array<ArrayBufferLike> = new Float32Array(0);
  const stride = rows.rowBytes;
  const dims = stride - 4;
  // The query as int32 in a local array: twice as fast as reading the int16 in place.
  const qv = new Int32Array(dims);
  return (qAt, rowsAt, from, to, floor, qScale, outAt) => {
    const current = rows.memory ? rows.memory.buffer : rows.buffer!;
    if (current !== buffer) {
      buffer = current;
      bytes = new Int8Array(current);
      shorts = new Int16Array(current);
      ints = new Int32Array(current);
      floats = new Float32Array(current);
    }
    for (let i = 0; i < dims; i++) qv[i] = shorts[(qAt >> 1) + i]!;
    let out = outAt >> 2;
    for (let slot = from, base = rowsAt + from * stride; slot < to; slot++, base += stride) {
      // Two sums of products, each exact (integers far below 2^53).
      let a = 0;
      let b = 0;
      for (let i = 0; i < dims; i += 8) {
        a +=
          bytes[base + i]! * qv[i]! +
          bytes[base + i + 1]! * qv[i + 1]! +
          bytes[base + i + 2]! * qv[i + 2]! +
          bytes[base + i + 3]! * qv[i + 3]!;
        b +=
          bytes[base + i + 4]! * qv[i + 4]! +
          bytes[base + i + 5]! * qv[i + 5]! +
          bytes[base + i + 6]! * qv[i + 6]! +
          bytes[base + i + 7]! * qv[i + 7]!;
      }
      const score = Math.fround(Math.fround(Math.fround(a + b) * floats[(base + dims) >> 2]!) * qScale);
      if (score > floor) {
        ints[out] = slot;
        floats[out + 1] = score;
        out += 2;
      }
    }
    return (out - (outAt >> 2)) >> 1;
  };
}

export function scanSketchRange(job: SketchScan, kernel: SketchKernel): Shortlist {
  const { q, qScale, rows, alive, tenants, tenant, filters, from, to, k, thread } = job;
  // A min-heap on (score, then higher slot): its root is the worst row kept.
  const hs = new Int32Array(k);
  const hv = new Float64Array(k);
  let n = 0;
  const worse = (a: number, b: number) => hv[a]! < hv[b]! || (hv[a] === hv[b] && hs[a]! > hs[b]!);
  const swap = (a: number, b: number) => {
    const s = hs[a]!;
    hs[a] = hs[b]!;
    hs[b] = s;
    const v = hv[a]!;
    hv[a] = hv[b]!;
    hv[b] = v;
  };
  const keep = (slot: number, score: number) => {
    if (n < k) {
      hs[n] = slot;
      hv[n] = score;
      for (let i = n++; i > 0;) {
        const p = (i - 1) >> 1;
        if (!worse(i, p)) break;
        swap(i, p);
        i = p;
      }
      return;
    }
    // Rows come in slot order, so an equal score never displaces the root (it has the lower slot).
    if (!(score > hv[0]!)) return;
    hs[0] = slot;
    hv[0] = score;
    for (let i = 0; ;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && worse(l, m)) m = l;
      if (r < n && worse(r, m)) m = r;
      if (m === i) break;
      swap(i, m);
      i = m;
    }
  };
  const matches = (slot: number) => {
    for (const f of filters) if (!f.allowed.includes(f.codes[slot]!)) return false;
    return true;
  };
  const plain = filters.length === 0;
  if (k > 0 && from < to) {
    // This thread's scratch area: the query, then the block's candidates. Below the rows, so
    // the views hold however the memory grows meanwhile.
    const buffer = rows.memory ? rows.memory.buffer : rows.buffer!;
    const qAt = thread * rows.scratchBytes;
    const outAt = qAt + q.length * 2;
    new Int16Array(buffer, qAt, q.length).set(q);
    const outSlots = new Int32Array(buffer, outAt, rows.blockRows * 2);
    const outScores = new Float32Array(buffer, outAt, rows.blockRows * 2);
    for (let start = from; start < to; start += rows.blockRows) {
      // The k-th score so far: a row at or below it cannot enter, so the kernel drops it.
      const floor = n < k ? -Infinity : hv[0]!;
      const found = kernel(qAt, rows.rowsAt, start, Math.min(to, start + rows.blockRows), floor, qScale, outAt);
      for (let c = 0; c < found; c++) {
        const slot = outSlots[2 * c]!;
        if (alive[slot] !== 1 || tenants[slot] !== tenant || (!plain && !matches(slot))) continue;
        const score = outScores[2 * c + 1]!;
        if (n < k || score > hv[0]!) keep(slot, score);
      }
    }
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => hv[b]! - hv[a]! || hs[a]! - hs[b]!);
  const slots = new Int32Array(n);
  const scores = new Float64Array(n);
  order.forEach((h, i) => {
    slots[i] = hs[h]!;
    scores[i] = hv[h]!;
  });
  return { slots, scores };
}

/** The best `k` of several ranges' shortlists: the shortlist a single scan of all of them would give. */
export function mergeShortlists(parts: Shortlist[], k: number): Shortlist {
  if (parts.length === 1) return parts[0]!;
  const all: [number, number][] = [];
  for (const p of parts) for (let i = 0; i < p.slots.length; i++) all.push([p.slots[i]!, p.scores[i]!]);
  all.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const best = all.slice(0, k);
  return { slots: Int32Array.from(best, (e) => e[0]), scores: Float64Array.from(best, (e) => e[1]) };
}
