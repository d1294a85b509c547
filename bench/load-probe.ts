// Preloaded (`node --expose-gc --import`) into the `doco serve` child of the load benchmark: on
// the parent's IPC request it reports the process's memory, after a full GC when asked, and the
// event loop's delay and the main thread's scheduling since the parent last reset them. Nothing
// of Doco itself is touched.
import { readFileSync } from 'node:fs';
import { createHistogram } from 'node:perf_hooks';
import { rssByKind, type RssByKind } from './rss-by-kind.js';

export interface ProbeRequest {
  probe: 'memory';
  id: number;
  gc: boolean;
  /** Start the event-loop delay histogram and the scheduling figures afresh after this report. */
  reset: boolean;
}

export interface ProbeReply {
  probe: 'memory';
  id: number;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  /** Event-loop delay since the last reset, in ms, but for the turns that ran this probe's own GC. */
  loopP99Ms: number;
  loopMaxMs: number;
  /** How long this request's forced GC held the main thread (0 without one), in ms. */
  gcMs: number;
  /** The main thread's share of the wall time since the last reset spent running, and runnable but waiting for a core (Linux; NaN elsewhere). */
  mainOnCpu: number;
  mainWaiting: number;
  /** With a GC: the resident memory by kind of mapping (Linux; undefined elsewhere or without one). */
  rssByKind?: RssByKind;
}

function readRssByKind(): RssByKind | undefined {
  try {
    return rssByKind(readFileSync('/proc/self/smaps', 'utf8'));
  } catch {
    return undefined;
  }
}

/** As monitorEventLoopDelay measures it: the time between two runs of a 10 ms timer. */
const RESOLUTION_MS = 10;

/**
 * The event loop's delay, as monitorEventLoopDelay({ resolution: 10 }) records it, but skipping
 * a turn this probe stalled itself: the half-way memory point's forced GC (two full collections,
 * 70–210 ms under load) was often the run's longest stall, and the server never does that itself.
 */
function loopDelay() {
  const histogram = createHistogram();
  let last = 0n;
  let skipNext = false;
  setInterval(() => {
    const now = process.hrtime.bigint();
    if (last && !skipNext) histogram.record(now - last);
    skipNext = false;
    last = now;
  }, RESOLUTION_MS).unref();
  return {
    histogram,
    /** The turn running now is not recorded. */
    skipThisTurn: () => void (skipNext = true),
    reset() {
      histogram.reset();
      last = 0n;
    },
  };
}

/** The main thread's nanoseconds on a core and runnable-waiting for one (/proc schedstat), with the time read. */
function mainThreadSchedule(): { at: bigint; run: number; wait: number } | undefined {
  try {
    const [run, wait] = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ').map(Number);
    return { at: process.hrtime.bigint(), run: run!, wait: wait! };
  } catch {
    return undefined;
  }
}

const loop = loopDelay();
let scheduleFrom = mainThreadSchedule();

function forcedGcMs(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return 0;
  const began = performance.now();
  // Twice: the first pass can leave garbage that finalizers of the first made collectable.
  gc();
  gc();
  loop.skipThisTurn();
  return performance.now() - began;
}

if (process.send) {
  process.on('message', (msg: ProbeRequest) => {
    if (msg?.probe !== 'memory') return;
    const gcMs = msg.gc ? forcedGcMs() : 0;
    const m = process.memoryUsage();
    const now = mainThreadSchedule();
    const wall = now && scheduleFrom ? Number(now.at - scheduleFrom.at) : NaN;
    const reply: ProbeReply = {
      probe: 'memory',
      id: msg.id,
      rss: m.rss,
      heapUsed: m.heapUsed,
      heapTotal: m.heapTotal,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
      loopP99Ms: loop.histogram.percentile(99) / 1e6,
      loopMaxMs: loop.histogram.max / 1e6,
      gcMs,
      mainOnCpu: now && scheduleFrom ? (now.run - scheduleFrom.run) / wall : NaN,
      mainWaiting: now && scheduleFrom ? (now.wait - scheduleFrom.wait) / wall : NaN,
      ...(msg.gc ? { rssByKind: readRssByKind() } : {}),
    };
    if (msg.reset) {
      loop.reset();
      scheduleFrom = mainThreadSchedule();
    }
    process.send!(reply);
  });
  // A bench that dies leaves no server behind: losing the parent is a SIGTERM (ordered shutdown).
  process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  // The channel must not keep `doco serve` alive once it has shut down on SIGTERM.
  process.channel?.unref();
}
