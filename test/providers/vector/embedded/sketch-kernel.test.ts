// The sketch scan's kernels against plain JavaScript oracles: the WebAssembly SIMD kernel and the
// JavaScript one score every row as a plain dot product of the stored int8 row and the int16
// query does (and close to the float sketches' own dot product), agree to the bit, keep only the
// rows above the floor; the scan built on them keeps the best k of exactly the rows that match,
// however the rows are split, and the rows stay put as the memory grows.
import { afterEach, describe, expect, it } from 'vitest';
import { EmbeddedIndex } from '../../../../src/providers/vector/embedded/memory-index.js';
import { embeddedStore, type EmbeddedStore } from '../../../../src/providers/vector/embedded/store.js';
import { WORKER_SOURCE } from '../../../../src/providers/vector/embedded/scan-pool.js';
import { sketchKernelBytes, sketchKernelModule } from '../../../../src/providers/vector/embedded/sketch-kernel.js';
import { ROW_BYTES, ROWS_AT, SCRATCH_BYTES, SKETCH_BYTES } from '../../../../src/providers/vector/embedded/sketch-layout.js';
import { quantizeQuery, SketchRows } from '../../../../src/providers/vector/embedded/sketch-rows.js';
import {
  jsSketchKernel,
  mergeShortlists,
  scanSketchRange,
  type SketchKernel,
  type SketchScan,
} from '../../../../src/providers/vector/embedded/sketch-scan.js';
import type { ChunkPoint } from '../../../../src/providers/vector/port.js';

function random(seed: number) {
  let s = seed;
  return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32 - 0.5;
}

const floats = (n: number, rand: () => number) => Float32Array.from({ length: n }, rand);

/** `n` rows of random sketches (some scaled small, some zero), with the float sketches kept. */
function rowsOf(n: number, wasm: boolean, seed = 1, capacity = n) {
  const rand = random(seed);
  const rows = new SketchRows(capacity, wasm);
  const sketches: Float32Array[] = [];
  for (let slot = 0; slot < n; slot++) {
    const scale = slot % 11 === 0 ? 0 : slot % 3 === 0 ? 0.01 : 1;
    const s = floats(128, rand).map((x) => x * scale);
    rows.ensure(slot + 1);
    rows.write(slot, s);
    sketches.push(s);
  }
  return { rows, sketches };
}

/** The stored row and query as the numbers they stand for, multiplied out in float64. */
function plainScore(rows: SketchRows, slot: number, q: Int16Array, qScale: number): number {
  const buffer = rows.ref.memory ? rows.ref.memory.buffer : rows.ref.buffer!;
  const base = ROWS_AT + slot * ROW_BYTES;
  const bytes = new Int8Array(buffer, base, SKETCH_BYTES);
  const scale = new Float32Array(buffer, base + SKETCH_BYTES, 1)[0]!;
  let dot = 0;
  for (let i = 0; i < SKETCH_BYTES; i++) dot += bytes[i]! * scale * (q[i]! * qScale);
  return dot;
}

/** Every row the kernel keeps above `floor`, as [slot, score] pairs (thread 5's scratch area). */
function kernelOutput(
  rows: SketchRows,
  kernel: SketchKernel,
  q: Int16Array,
  qScale: number,
  from: number,
  to: number,
  floor: number,
): [number, number][] {
  const buffer = rows.ref.memory ? rows.ref.memory.buffer : rows.ref.buffer!;
  const qAt = 5 * SCRATCH_BYTES;
  new Int16Array(buffer, qAt, 128).set(q);
  const n = kernel(qAt, ROWS_AT, from, to, floor, qScale, qAt + 256);
  const ints = new Int32Array(buffer, qAt + 256, n * 2);
  const fl = new Float32Array(buffer, qAt + 256, n * 2);
  return Array.from({ length: n }, (_, i) => [ints[2 * i]!, fl[2 * i + 1]!]);
}

describe('the sketch kernels', () => {
  it('is WebAssembly here (Node 20 has SIMD), a module of our own bytes', () => {
    expect(WebAssembly.validate(sketchKernelBytes())).toBe(true);
    expect(sketchKernelModule()).toBeInstanceOf(WebAssembly.Module);
    expect(new SketchRows(16).kind).toBe('wasm');
    expect(new SketchRows(16, false).kind).toBe('js');
  });

  it('score every row as the plain dot product does, close to the float sketches, the two kernels to the bit', () => {
    const n = 1500;
    const { rows, sketches } = rowsOf(n, true);
    const rand = random(9);
    for (let trial = 0; trial < 5; trial++) {
      const query = floats(128, rand).map((x) => (trial === 4 ? x * 1e-4 : x));
      const { q, qScale } = quantizeQuery(query);
      const wasm = kernelOutput(rows, rows.kernel, q, qScale, 0, n, -Infinity);
      const js = kernelOutput(rows, jsSketchKernel(rows.ref), q, qScale, 0, n, -Infinity);
      expect(wasm.map((e) => e[0])).toEqual(Array.from({ length: n }, (_, i) => i));
      expect(js).toEqual(wasm);
      const norm = Math.hypot(...query);
      for (const [slot, score] of wasm) {
        // One float32 rounding of an exact sum, two of products: relative 2^-22 at most.
        const plain = plainScore(rows, slot, q, qScale);
        expect(Math.abs(score - plain)).toBeLessThanOrEqual(Math.abs(plain) * 2 ** -21 + 1e-30);
        // int8 rows, int16 query: within 1% of the float sketches' norms of their own dot product.
        const exact = sketches[slot]!.reduce((acc, x, i) => acc + x * query[i]!, 0);
        expect(Math.abs(score - exact)).toBeLessThanOrEqual(0.01 * Math.hypot(...sketches[slot]!) * norm + 1e-12);
      }
    }
  });

  it('keep only the rows scoring above the floor, in slot order, over any row range', () => {
    const { rows } = rowsOf(3000, true, 2);
    const { q, qScale } = quantizeQuery(floats(128, random(4)));
    const all = kernelOutput(rows, rows.kernel, q, qScale, 0, 3000, -Infinity);
    const floor = [...all.map((e) => e[1])].sort((a, b) => b - a)[99]!;
    for (const kernel of [rows.kernel, jsSketchKernel(rows.ref)]) {
      expect(kernelOutput(rows, kernel, q, qScale, 0, 3000, floor)).toEqual(all.filter((e) => e[1] > floor));
      expect(kernelOutput(rows, kernel, q, qScale, 1017, 2049, floor)).toEqual(
        all.filter((e) => e[0] >= 1017 && e[0] < 2049 && e[1] > floor),
      );
      expect(kernelOutput(rows, kernel, q, qScale, 7, 7, -Infinity)).toEqual([]);
    }
  });
});

describe('the scan over the kernels', () => {
  const size = 5000;
  const rand = random(21);
  const alive = new Uint8Array(size).map((_, i) => (i % 13 === 0 ? 0 : 1));
  const tenants = new Int32Array(size).map((_, i) => (i % 4 === 0 ? 1 : 0));
  const types = new Int32Array(size).map((_, i) => i % 3);
  const collections = new Int32Array(size).map((_, i) => i % 5);

  /** The oracle: every matching row by plain score, best first, lower slot first on ties. */
  function expected(
    rows: SketchRows,
    job: Omit<SketchScan, 'rows' | 'from' | 'to' | 'thread'>,
    kernel: SketchKernel,
  ): { slots: number[]; scores: number[] } {
    const scored = kernelOutput(rows, kernel, job.q, job.qScale, 0, size, -Infinity)
      .filter(
        ([slot]) =>
          job.alive[slot] === 1 && job.tenants[slot] === job.tenant && job.filters.every((f) => f.allowed.includes(f.codes[slot]!)),
      )
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, job.k);
    return { slots: scored.map((e) => e[0]), scores: scored.map((e) => e[1]) };
  }

  for (const wasm of [true, false]) {
    it(`${wasm ? 'WebAssembly' : 'JavaScript'}: keeps the best k of exactly the live rows of the tenant that pass the filters, ties to the lower slot, however split`, () => {
      // A few hundred distinct rows repeated: many equal scores.
      const { rows } = rowsOf(size, wasm, 3, 1024);
      const distinct = rowsOf(400, wasm, 5).sketches;
      for (let slot = 0; slot < size; slot++) rows.write(slot, distinct[(slot * 7919) % 400]!);
      for (const [tenant, filters, k] of [
        [0, [], 400],
        [
          1,
          [
            { codes: types, allowed: Int32Array.from([0, 2]) },
            { codes: collections, allowed: Int32Array.from([1, 2, 3]) },
          ],
          50,
        ],
        [0, [{ codes: types, allowed: new Int32Array(0) }], 10],
        [1, [], 3000], // more than match: every matching row
      ] as const) {
        const job = { ...quantizeQuery(floats(128, rand)), rows: rows.ref, alive, tenants, tenant, filters: [...filters], k };
        const single = scanSketchRange({ ...job, from: 0, to: size, thread: 0 }, rows.kernel);
        const oracle = expected(rows, job, rows.kernel);
        expect(Array.from(single.slots)).toEqual(oracle.slots);
        expect(Array.from(single.scores)).toEqual(oracle.scores);
        if (k === 400) expect(new Set(oracle.scores).size).toBeLessThan(400); // ties there are
        for (const cuts of [[2500], [1, 1024, 1025, 4999], [333, 2000, 2001]]) {
          const bounds = [0, ...cuts, size];
          const parts = bounds.slice(1).map((to, i) => scanSketchRange({ ...job, from: bounds[i]!, to, thread: i + 1 }, rows.kernel));
          expect(mergeShortlists(parts, k)).toEqual(single);
        }
      }
    });
  }

  it('grows past its first capacity with the rows in place: a kernel bound before still reads them all', () => {
    for (const wasm of [true, false]) {
      const { rows } = rowsOf(10, wasm, 8, 10);
      const { q, qScale } = quantizeQuery(floats(128, random(6)));
      const kernel = rows.kernel;
      const memory = rows.ref.memory;
      const before = kernelOutput(rows, kernel, q, qScale, 0, 10, -Infinity);
      const more = rowsOf(9000, wasm, 8).sketches;
      rows.ensure(9000);
      for (let slot = 10; slot < 9000; slot++) rows.write(slot, more[slot]!);
      // WebAssembly: the same memory, grown; JavaScript: a new buffer and kernel, rows copied.
      expect(rows.ref.memory).toBe(memory);
      const now = wasm ? kernel : rows.kernel;
      const after = kernelOutput(rows, now, q, qScale, 0, 9000, -Infinity);
      expect(after.slice(0, 10)).toEqual(before);
      expect(after).toEqual(kernelOutput(rows, jsSketchKernel(rows.ref), q, qScale, 0, 9000, -Infinity));
    }
  });
});

describe('the index and store on either kernel', () => {
  const DIMS = 512;
  const rand = random(77);
  const unit = () => {
    const v = floats(DIMS, rand);
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  };
  const points: ChunkPoint[] = Array.from({ length: 3000 }, (_, i) => ({
    id: `p${i}`,
    nodeId: `n${i}`,
    tenant: i % 5 === 0 ? 'b' : 'a',
    collectionId: `c${i % 3}`,
    nodeType: i % 2 ? 'decision' : 'rule',
    shape: '',
    sourceKind: 'record',
    text: `item ${i}`,
    vector: unit(),
  }));
  const queries = Array.from({ length: 8 }, (_, i) => ({
    tenant: i % 4 === 3 ? 'b' : 'a',
    vector: unit(),
    text: '',
    limit: 20,
    ...(i % 3 === 2 ? { filter: { nodeTypes: ['decision'] } } : {}),
  }));
  const opened: EmbeddedStore[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });

  it('finds the same hits with WebAssembly and with JavaScript, grown from 16 rows, removals included', () => {
    const [wasm, js] = [true, false].map((w) => {
      const index = new EmbeddedIndex(DIMS, 16, { wasm: w });
      for (const p of points) index.upsert(p);
      for (let i = 0; i < 3000; i += 17) index.remove(`p${i}`);
      return index;
    });
    expect([wasm!.sketchKernel, js!.sketchKernel]).toEqual(['wasm', 'js']);
    for (const q of queries) {
      const hits = wasm!.searchDense(q);
      expect(hits.length).toBe(20);
      expect(hits.some((h) => Number(h.id.slice(1)) % 17 === 0)).toBe(false);
      expect(js!.searchDense(q)).toEqual(hits);
    }
    expect(wasm!.compact().sketchKernel).toBe('wasm');
    expect(js!.compact().sketchKernel).toBe('js');
  });

  it('scans on workers with the kernel the rows were made for, and a worker that cannot run it is a warning and a scan here', async () => {
    const make = async (opts: Parameters<typeof embeddedStore>[0]) => {
      const s = embeddedStore(opts);
      opened.push(s);
      await s.init('test/512', DIMS);
      await s.upsert(points);
      await s.warmUp();
      return s;
    };
    const inThread = await make({});
    const jsThreaded = await make({ scanThreads: 2, minScanRows: 0, wasm: false });
    // Ready (warmed on its own rows), then without WebAssembly when a scan comes: it must fail, not fall back to another kernel.
    const noWasm = `import('node:worker_threads').then(({ parentPort }) => parentPort.on('message', () => { globalThis.WebAssembly = undefined; }));\n${WORKER_SOURCE}`;
    const broken = await make({ scanThreads: 2, minScanRows: 0, scanWorkerSource: noWasm });
    for (const q of queries) {
      const expected = await inThread.search(q);
      const got = await jsThreaded.search(q);
      expect(got.warnings).toBeUndefined();
      expect(got.dense).toEqual(expected.dense);
    }
    const got = await broken.search(queries[0]!);
    expect(got.warnings).toEqual([
      expect.stringMatching(
        /^dense scan workers: the sketch rows are in WebAssembly memory but this thread cannot run the kernel; scanned in the main thread instead$/,
      ),
    ]);
    expect(got.dense).toEqual((await inThread.search(queries[0]!)).dense);
  });
});
