// The dense scan on worker threads: the same hits as the scan in this thread, whatever the split,
// filters, ties, removals or growth meanwhile; a worker that dies or stalls is a warning and
// the scan happens here instead; idle workers never keep a process alive.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../../src/config/environment.js';
import { embeddedStore, type EmbeddedStore } from '../../../../src/providers/vector/embedded/store.js';
import { scanPool, WORKER_SOURCE, type ScanJob, type ScanPool } from '../../../../src/providers/vector/embedded/scan-pool.js';
import { quantizeQuery, SketchRows } from '../../../../src/providers/vector/embedded/sketch-rows.js';
import { scanSketchRange } from '../../../../src/providers/vector/embedded/sketch-scan.js';
import type { ChunkPoint, StoreQuery } from '../../../../src/providers/vector/port.js';

const DIMS = 512; // wide enough for the index to keep sketches
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

function random(seed: number) {
  let s = seed;
  return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32 - 0.5;
}

function unitVector(rand: () => number): Float32Array {
  const v = Float32Array.from({ length: DIMS }, rand);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

/** `rows` sketch rows, each a copy of one of 300 (equal scores: ties across the workers' ranges), in WebAssembly memory or not. */
function sketchRows(rows: number, wasm: boolean, seed: number): SketchRows {
  const rand = random(seed);
  const distinct = Array.from({ length: 300 }, () => Float32Array.from({ length: 128 }, rand));
  const out = new SketchRows(rows, wasm);
  for (let slot = 0; slot < rows; slot++) out.write(slot, distinct[(slot * 7919) % 300]!);
  return out;
}

/** `n` points, one in ten a copy of an earlier vector (equal scores: ties across the workers' ranges). */
function points(n: number, from = 0, seed = 99): ChunkPoint[] {
  const rand = random(seed);
  const out: ChunkPoint[] = [];
  for (let i = 0; i < n; i++) {
    const vector = i % 10 === 9 ? out[Math.floor((rand() + 0.5) * i)]!.vector : unitVector(rand);
    out.push({
      id: `p${from + i}`,
      tenant: i % 5 === 0 ? 'ws_b' : 'ws_a',
      collectionId: `col_${i % 3}`,
      nodeId: `n${from + i}`,
      nodeType: i % 2 ? 'decision' : 'rule',
      shape: '',
      sourceKind: 'record',
      text: `item ${from + i}`,
      vector,
    });
  }
  return out;
}

const queries = (n: number): StoreQuery[] => {
  const rand = random(7);
  return Array.from({ length: n }, (_, i) => ({
    tenant: i % 4 === 3 ? 'ws_b' : 'ws_a',
    vector: unitVector(rand),
    text: '',
    limit: 30,
    ...(i % 3 === 2 ? { filter: { nodeTypes: ['decision'], collectionIds: ['col_0', 'col_2'] } } : {}),
  }));
};

const opened: (EmbeddedStore | ScanPool)[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL'); // one that hung and failed its test
});

async function store(opts: Parameters<typeof embeddedStore>[0], pts: ChunkPoint[]): Promise<EmbeddedStore> {
  const s = embeddedStore(opts);
  opened.push(s);
  await s.init('test/512', DIMS);
  await s.upsert(pts);
  return s;
}

describe('the threaded sketch scan', () => {
  it('gives the in-thread shortlist exactly, split in two or three, ties and filters included, with either kernel', async () => {
    const rand = random(3);
    const size = 3001;
    const alive = new Uint8Array(new SharedArrayBuffer(size)).map((_, i) => (i % 7 === 0 ? 0 : 1));
    const tenants = new Int32Array(new SharedArrayBuffer(size * 4)).map((_, i) => i % 2);
    const codes = new Int32Array(new SharedArrayBuffer(size * 4)).map((_, i) => i % 5);
    for (const wasm of [true, false]) {
      const rows = sketchRows(size, wasm, 5);
      expect(rows.kind).toBe(wasm ? 'wasm' : 'js');
      for (const threads of [2, 3]) {
        const pool = scanPool({ threads });
        opened.push(pool);
        await pool.ready();
        for (const filters of [[], [{ codes, allowed: Int32Array.from([1, 4]) }]]) {
          const job: ScanJob = {
            ...quantizeQuery(Float32Array.from({ length: 128 }, rand)),
            rows: rows.ref,
            alive,
            tenants,
            tenant: 1,
            filters,
            k: 400,
          };
          const here = scanSketchRange({ ...job, from: 0, to: size, thread: 0 }, rows.kernel);
          const there = await pool.scan(job, size);
          expect(here.slots.length).toBe(400);
          expect(new Set(here.scores).size).toBeLessThan(300); // ties there are
          expect(there).toEqual(here);
        }
      }
    }
  });

  it("answers the store's dense searches with the same ids, order and scores as the scan in this thread", async () => {
    const pts = points(3000);
    const inThread = await store({}, pts);
    const threaded = await store({ scanThreads: 2, minScanRows: 0 }, pts);
    await threaded.warmUp();
    for (const q of queries(12)) {
      const expected = await inThread.search(q);
      const got = await threaded.search(q);
      expect(got.warnings).toBeUndefined();
      expect(got.dense.length).toBeGreaterThan(0);
      expect(got.dense).toEqual(expected.dense);
    }
  });

  it('is unmoved by rows added (the shared buffers growing) while it runs, and leaves out rows removed meanwhile', async () => {
    const pts = points(3000);
    // The upsert below must grow the index before the scan's answer is read: in one go, not in slices.
    const threaded = await store({ scanThreads: 2, minScanRows: 0, upsertSliceMs: Infinity }, pts);
    await threaded.warmUp();
    const [q] = queries(1);
    const before = await threaded.search(q!);
    const removed = before.dense[0]!.id;
    const running = threaded.search(q!);
    // Synchronously, before the workers answer: capacity 4096 → 8192 replaces every shared array.
    await threaded.upsert(points(3000, 3000, 5));
    await threaded.remove([removed]);
    const during = await running;
    expect(during.warnings).toBeUndefined();
    // The next best row of the shortlist takes the removed one's place at the end.
    expect(during.dense.slice(0, -1)).toEqual(before.dense.filter((h) => h.id !== removed));
    expect(during.dense.length).toBe(before.dense.length);
    const reference = await store(
      {},
      [...pts, ...points(3000, 3000, 5)].filter((p) => p.id !== removed),
    );
    expect((await threaded.search(q!)).dense).toEqual((await reference.search(q!)).dense);
  });

  it('scans a loaded snapshot on the workers too', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'doco-scan-'));
    try {
      const saved = await store({ dir }, points(2000));
      await saved.save();
      const load = async (opts: Parameters<typeof embeddedStore>[0]) => {
        const s = embeddedStore({ dir, ...opts });
        opened.push(s);
        await s.init('test/512', DIMS);
        expect(await s.loadSnapshot()).toBe(true);
        return s;
      };
      // A snapshot holds the int8 vectors made float again, so compare with the same snapshot scanned here.
      const threaded = await load({ scanThreads: 2, minScanRows: 0 });
      const inThread = await load({});
      await threaded.warmUp();
      for (const q of queries(4)) {
        const got = await threaded.search(q);
        expect(got.warnings).toBeUndefined();
        expect(got.dense).toEqual((await inThread.search(q)).dense);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/**
 * A pool of the real workers with `misbehave` run first in each (so it can preempt the real
 * listener), started and ready, and a whole-index job over fresh rows with the in-thread answer.
 */
async function poolWith(misbehave: string, seed: number) {
  const pool = scanPool({ threads: 2, source: `${misbehave}\n${WORKER_SOURCE}` });
  opened.push(pool);
  await pool.ready();
  const size = 2048;
  const rows = sketchRows(size, true, seed);
  const job: ScanJob = {
    ...quantizeQuery(Float32Array.from({ length: 128 }, random(seed + 1))),
    rows: rows.ref,
    alive: new Uint8Array(new SharedArrayBuffer(size)).fill(1),
    tenants: new Int32Array(new SharedArrayBuffer(size * 4)),
    tenant: 0,
    filters: [],
    k: 50,
  };
  return { pool, job, size, inThread: scanSketchRange({ ...job, from: 0, to: size, thread: 0 }, rows.kernel) };
}

describe('a failing or slow worker', () => {
  // A worker that starts (says it is ready) and then dies on its first scan, or never answers.
  const worker = (onMessage: string) =>
    `import('node:worker_threads').then(({ parentPort }) => { parentPort.on('message', ${onMessage}); parentPort.postMessage({ ready: true }); });`;
  const dying = worker('() => process.exit(7)');
  const silent = worker('() => {}');

  it('is a warning, and the search answers from a scan in this thread', async () => {
    const pts = points(2000);
    const inThread = await store({}, pts);
    // The dying worker gets all the time it could want, so its exit (not the wait) is always what
    // is seen, however loaded the machine; the silent one never answers, so a short wait decides.
    for (const [source, why, scanWaitMs] of [
      [dying, /exited \(code 7\)/, 60_000],
      [silent, /did not answer within 30 ms/, 30],
    ] as const) {
      const broken = await store({ scanThreads: 2, minScanRows: 0, scanWaitMs, scanWorkerSource: source }, pts);
      await broken.warmUp();
      const [q] = queries(1);
      const got = await broken.search(q!);
      expect(got.warnings).toEqual([expect.stringMatching(why)]);
      expect(got.warnings![0]).toMatch(/scanned in the main thread instead/);
      expect(got.dense).toEqual((await inThread.search(q!)).dense);
      expect(got.sparse).toEqual((await inThread.search(q!)).sparse);
    }
  });

  it('is replaced: once the new one is ready, scans run on the workers again', async () => {
    // The real workers, but the first asked for k = 13 terminates itself mid-scan (its listener
    // comes first, so the real one never answers that scan).
    const killer = `import('node:worker_threads').then(({ parentPort }) => parentPort.on('message', (job) => { if (job.k === 13 && job.from === 0) process.exit(3); }));`;
    const { pool, job, size, inThread } = await poolWith(killer, 11);
    await expect(pool.scan({ ...job, k: 13 }, size)).rejects.toThrow(/scan worker exited \(code 3\)/);
    expect(await pool.scan(job, size)).toBeUndefined(); // the replacement is starting: the caller scans itself
    await pool.ready();
    expect(await pool.scan(job, size)).toEqual(inThread);
  });
});

describe('a worker whose scan throws', () => {
  it('is replaced too, so one broken worker does not fail every later scan', async () => {
    // The real workers, but the first asked for k = 13 replies with an error, as the real one
    // does when its scan throws (the real listener's later reply to that scan is ignored).
    const thrower = `import('node:worker_threads').then(({ parentPort, workerData }) => parentPort.on('message', (job) => { if (job.k === 13 && job.from === 0) workerData.replies.postMessage({ id: job.id, error: 'the kernel broke' }); }));`;
    const { pool, job, size, inThread } = await poolWith(thrower, 5);
    await expect(pool.scan({ ...job, k: 13 }, size)).rejects.toThrow(/the kernel broke/);
    expect(await pool.scan(job, size)).toBeUndefined(); // its replacement is starting
    await pool.ready();
    expect(await pool.scan(job, size)).toEqual(inThread);
  });
});

/** The JSON a child script printed, once it exited cleanly with nothing on stderr. */
async function printedBy(child: ChildProcess): Promise<unknown> {
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect(err).toBe('');
  expect(code).toBe(0);
  return JSON.parse(out);
}

describe('shutdown', () => {
  it('idle workers do not keep a process alive: it exits once its work is done, without closing the store', async () => {
    // dist/, as `doco` runs it (npm test builds first).
    const script = `
      import { embeddedStore } from ${JSON.stringify(path.join(ROOT, 'dist/src/providers/vector/embedded/store.js'))};
      const store = embeddedStore({ scanThreads: 2, minScanRows: 0 });
      await store.init('t', 512);
      const v = () => { const x = Float32Array.from({ length: 512 }, () => Math.random() - 0.5); const n = Math.hypot(...x); return x.map((y) => y / n); };
      await store.upsert(Array.from({ length: 3000 }, (_, i) => ({ id: 'p' + i, tenant: 'w', collectionId: 'c', nodeId: 'n' + i, nodeType: 'rule', shape: '', sourceKind: 'record', text: 'x', vector: v() })));
      await store.warmUp();
      const r = await store.search({ tenant: 'w', vector: v(), text: 'x', limit: 5 });
      console.log(JSON.stringify({ hits: r.dense.length, warnings: r.warnings ?? [] }));`;
    expect(await printedBy(spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] }))).toEqual({
      hits: 5,
      warnings: [],
    });
  });
});

describe('under a virtual-memory limit', () => {
  it('keeps its sketches in a SharedArrayBuffer and scans with the JavaScript kernel when no WebAssembly memory can be reserved', async () => {
    // Node reserves about 10 GiB of address space per WebAssembly memory: under `ulimit -v` 6 GB
    // none can be made, while Node itself, its workers and SharedArrayBuffers run fine.
    const script = `
      import { EmbeddedIndex } from ${JSON.stringify(path.join(ROOT, 'dist/src/providers/vector/embedded/memory-index.js'))};
      import { embeddedStore } from ${JSON.stringify(path.join(ROOT, 'dist/src/providers/vector/embedded/store.js'))};
      let reserved = true;
      try { new WebAssembly.Memory({ initial: 1, maximum: 65536, shared: true }); } catch { reserved = false; }
      const store = embeddedStore({ scanThreads: 2, minScanRows: 0 });
      await store.init('t', 512);
      const v = () => { const x = Float32Array.from({ length: 512 }, () => Math.random() - 0.5); const n = Math.hypot(...x); return x.map((y) => y / n); };
      const points = Array.from({ length: 3000 }, (_, i) => ({ id: 'p' + i, tenant: 'w', collectionId: 'c', nodeId: 'n' + i, nodeType: 'rule', shape: '', sourceKind: 'record', text: 'x', vector: v() }));
      await store.upsert(points);
      await store.warmUp();
      const r = await store.search({ tenant: 'w', vector: points[7].vector, text: 'x', limit: 5 });
      console.log(JSON.stringify({ reserved, kernel: new EmbeddedIndex(512).sketchKernel, top: r.dense[0]?.nodeId, warnings: r.warnings ?? [] }));
      await store.close?.();`;
    const child = spawn('/bin/sh', ['-c', 'ulimit -v 6000000 && exec "$0" --input-type=module -e "$1"', process.execPath, script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(await printedBy(child)).toEqual({ reserved: false, kernel: 'js', top: 'n7', warnings: [] });
  });
});

describe('DOCO_SCAN_THREADS', () => {
  it('sets the worker count (0: the main thread), one per core up to 4 by default, refusing anything but a whole number', () => {
    expect(loadConfig({ DOCO_SCAN_THREADS: '0' }).scanThreads).toBe(0);
    expect(loadConfig({ DOCO_SCAN_THREADS: '3' }).scanThreads).toBe(3);
    expect(loadConfig({}).scanThreads).toBe(Math.max(1, Math.min(4, os.availableParallelism() - 1)));
    for (const bad of ['two', '-1', '1.5']) {
      let problems: string[] = [];
      try {
        loadConfig({ DOCO_SCAN_THREADS: bad });
      } catch (err) {
        if (err instanceof ConfigError) problems = err.problems;
      }
      expect(problems).toEqual([`DOCO_SCAN_THREADS: must be a whole number of threads (0: scan in the main thread) (got "${bad}")`]);
    }
  });
});
