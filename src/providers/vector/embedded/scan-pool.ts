// Worker threads for the embedded index's sketch scan: the rows are split into one range per
// worker, each worker scans its range of the index's shared sketch memory (no row is copied)
// with the same kernel as this thread, and the range shortlists merge into exactly the one
// shortlist an in-thread scan gives. Meanwhile this thread is free for BM25 and for the brief's
// SQL retrievers.
//
// The worker's code is built here as text from sketch-scan.ts's own functions and started with
// `eval: true`, rather than loaded from a file: under vitest this module is TypeScript that a
// worker cannot load (vitest transforms it in its own process only), while from dist/ it is
// JavaScript; a function's source text is plain JavaScript in both, and it is the very code the
// in-thread fallback runs. The compiled WebAssembly kernel comes along in workerData; each worker
// instantiates it over an index's memory once (the job's rows tell which).
//
// Idle workers are unref'd, so they never keep a process alive (a CLI exiting, vitest, doco
// serve's shutdown); a worker starting or with a scan in flight is ref'd until it is ready or
// answers.
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { sketchKernelModule } from './sketch-kernel.js';
import { SCRATCH_THREADS } from './sketch-layout.js';
import { SketchRows } from './sketch-rows.js';
import {
  jsSketchKernel,
  mergeShortlists,
  scanSketchRange,
  sketchKernelFor,
  type Shortlist,
  type SketchRowsRef,
  type SketchScan,
} from './sketch-scan.js';

// An eval'd worker runs as CommonJS, or as an ES module when the process was started with
// --input-type=module (workers inherit its flags): import() works in both.
export const WORKER_SOURCE = `
const scanSketchRange = ${scanSketchRange.toString()};
const jsSketchKernel = ${jsSketchKernel.toString()};
const sketchKernelFor = ${sketchKernelFor.toString()};
import('node:worker_threads').then(({ parentPort, workerData }) => {
  const { replies, module, warm, thread } = workerData;
  // The kernel bound to the last index's rows scanned (a compaction brings new ones).
  let bound = { id: undefined, kernel: undefined };
  const kernelFor = (rows) => {
    if (bound.id !== rows.id) bound = { id: rows.id, kernel: sketchKernelFor(rows, module) };
    return bound.kernel;
  };
  parentPort.on('message', (job) => {
    let reply;
    try {
      const { slots, scores } = scanSketchRange(job, kernelFor(job.rows));
      reply = { id: job.id, slots, scores };
    } catch (err) {
      reply = { id: job.id, error: String((err && err.message) || err) };
    }
    replies.postMessage(reply);
  });
  // Ready once the scan is compiled: a first scan in the interpreter (or WebAssembly's baseline
  // tier) takes many times longer.
  const job = { ...warm, alive: new Uint8Array(warm.size).fill(1), tenants: new Int32Array(warm.size), tenant: 0, filters: [], from: 0, to: warm.size, k: 400, thread };
  for (let i = 0; i < 20; i++) scanSketchRange(job, kernelFor(warm.rows));
  replies.postMessage({ ready: true });
});
`;

export interface ScanPool {
  readonly threads: number;
  /**
   * The best `job.k` rows of [0, size); undefined while the workers are still starting (the
   * caller scans in its own thread: a start-up is not a failure); rejects when a worker fails or
   * does not answer in time.
   */
  scan(job: ScanJob, size: number): Promise<Shortlist | undefined>;
  /** Starts the workers; resolves once all of them are ready. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export interface ScanPoolOptions {
  threads: number;
  /** How long a scan may take before it is given up (and its workers replaced): the caller then scans in its own thread. */
  waitMs?: number;
  /** The workers' code (tests swap in one that misbehaves). */
  source?: string;
}

/** A scan of the whole index: the pool gives each worker its range and scratch area. */
export type ScanJob = Omit<SketchScan, 'from' | 'to' | 'thread'>;

/** What a worker warms its scan on: a few thousand rows of its own. */
interface WarmUp {
  rows: SketchRowsRef;
  size: number;
  q: Int16Array;
  qScale: number;
}

function warmUpRows(): WarmUp {
  const size = 4096;
  const rows = new SketchRows(size);
  const sketch = new Float32Array(128);
  for (let slot = 0; slot < size; slot++)
    rows.write(
      slot,
      sketch.map((_, i) => (((slot * 128 + i) * 7919) % 13) - 6),
    );
  return { rows: rows.ref, size, q: new Int16Array(128).fill(1000), qScale: 1 };
}

interface Pending {
  resolve: (s: Shortlist) => void;
  reject: (e: Error) => void;
}

type Reply = { id: number; ready?: true; slots?: Int32Array; scores?: Float64Array; error?: string };

class ScanWorker {
  private readonly worker: Worker;
  /** Replies come on a port of their own, so a late check can read one that arrived unread (drain). */
  private readonly replies: MessagePort;
  private readonly pending = new Map<number, Pending>();
  private gone: (e: Error) => void = () => {};
  dead = false;
  isReady = false;
  readonly started: Promise<void>;
  constructor(
    source: string,
    private readonly thread: number,
    warm: WarmUp,
    private readonly onDead: (w: ScanWorker) => void,
  ) {
    const { port1, port2 } = new MessageChannel();
    this.replies = port1;
    const workerData = { replies: port2, module: sketchKernelModule(), warm, thread };
    this.worker = new Worker(source, { eval: true, workerData, transferList: [port2] });
    let started!: () => void;
    this.started = new Promise((resolve, reject) => ([started, this.gone] = [resolve, reject]));
    this.started.catch(() => {}); // a worker that never starts is reported by the scan that needs it
    const onReply = (m: Reply) => {
      if (m.ready) {
        this.isReady = true;
        if (this.pending.size === 0) this.idle();
        started();
      } else this.settle(m);
    };
    this.worker.on('message', onReply);
    this.replies.on('message', onReply);
    this.worker.on('error', (err) => this.fail(`failed: ${err.message}`));
    this.worker.on('exit', (code) => this.fail(`exited (code ${code})`));
    // Held (ref'd) while it starts, a few tens of milliseconds, so whoever awaits `started` is
    // not left behind by an event loop that empties meanwhile.
  }
  private idle(): void {
    this.worker.unref();
    this.replies.unref();
  }
  private settle(m: Reply): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (this.pending.size === 0) this.idle();
    if (m.error === undefined) return p.resolve({ slots: m.slots!, scores: m.scores! });
    p.reject(new Error(m.error));
    // A scan that threw may have left the worker's kernel or memory binding broken, and every
    // later scan would fail the same way: replace it, as a worker that exits is.
    void this.stop();
  }
  run(job: Omit<SketchScan, 'thread'> & { id: number }): Promise<Shortlist> {
    if (this.dead) return Promise.reject(new Error('scan worker is gone'));
    return new Promise((resolve, reject) => {
      this.pending.set(job.id, { resolve, reject });
      this.worker.ref();
      this.replies.ref();
      this.worker.postMessage({ ...job, thread: this.thread });
    });
  }
  /**
   * Reads replies that arrived but were not handled yet: timers run before messages in the
   * event loop, so after this thread was busy a while a reply may be waiting behind the timeout.
   */
  drain(): void {
    for (let m = receiveMessageOnPort(this.replies); m; m = receiveMessageOnPort(this.replies)) this.settle(m.message as Reply);
  }
  answered(id: number): boolean {
    return !this.pending.has(id);
  }
  fail(why: string): void {
    this.gone(new Error(`scan worker ${why}`));
    if (!this.dead) {
      this.dead = true;
      this.onDead(this);
    }
    for (const p of this.pending.values()) p.reject(new Error(`scan worker ${why}`));
    this.pending.clear();
    this.replies.close();
  }
  stop(): Promise<number> {
    this.fail('was stopped');
    return this.worker.terminate();
  }
}

export function scanPool(opts: ScanPoolOptions): ScanPool {
  // Long enough that only a stuck worker meets it on a loaded machine (a scan of 200k rows takes
  // tens of milliseconds), short beside the brief's default deadline of 15 s.
  const { waitMs = 1000, source = WORKER_SOURCE } = opts;
  // Each worker has a scratch area of its own in the index's memory (sketch-layout.ts).
  const threads = Math.min(opts.threads, SCRATCH_THREADS - 1);
  // Started on the first scan; a worker that failed is replaced on the next one.
  const workers: (ScanWorker | undefined)[] = Array.from({ length: threads }, () => undefined);
  let nextId = 0;
  let closed = false;
  const forget = (w: ScanWorker) => {
    const i = workers.indexOf(w);
    if (i >= 0) workers[i] = undefined;
  };
  let warm: WarmUp | undefined;
  // Thread 0 is this one: worker i scans with scratch area i + 1. A replacement takes the area of
  // the worker it replaces, which was terminated first (termination stops a WebAssembly loop too).
  const worker = (i: number) => (workers[i] ??= new ScanWorker(source, i + 1, (warm ??= warmUpRows()), forget));

  return {
    threads,
    async scan(job, size) {
      if (closed) throw new Error('scan pool is closed');
      const used = workers.map((_, i) => worker(i));
      if (!used.every((w) => w.isReady)) return undefined;
      const step = Math.ceil(size / threads);
      const ids = used.map(() => nextId++);
      const parts = used.map((w, i) => w.run({ ...job, from: Math.min(size, i * step), to: Math.min(size, (i + 1) * step), id: ids[i]! }));
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          for (const w of used) w.drain();
          if (used.every((w, i) => w.answered(ids[i]!))) return; // they had answered: `parts` settles now
          // A worker this late may be stuck: replace it rather than queue the next scan behind it.
          for (const w of used) void w.stop();
          reject(new Error(`scan workers did not answer within ${waitMs} ms`));
        }, waitMs);
      });
      try {
        return mergeShortlists(await Promise.race([Promise.all(parts), late]), job.k);
      } finally {
        clearTimeout(timer);
      }
    },
    async ready() {
      if (closed) throw new Error('scan pool is closed');
      await Promise.all(workers.map((_, i) => worker(i).started));
    },
    async close() {
      closed = true;
      await Promise.all(workers.flatMap((w) => (w ? [w.stop()] : [])));
    },
  };
}
