// Preloaded (`node --expose-gc --import`) into the `doco serve` child of the load benchmark: on
// the parent's IPC request it reports the process's memory, after a full GC when asked, and the
// event loop's delay since the parent last reset it. Nothing of Doco itself is touched.
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface ProbeRequest {
  probe: 'memory';
  id: number;
  gc: boolean;
  /** Start the event-loop delay histogram afresh after this report. */
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
  /** Event-loop delay since the last reset, in ms. */
  loopP99Ms: number;
  loopMaxMs: number;
}

const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();

if (process.send) {
  process.on('message', (msg: ProbeRequest) => {
    if (msg?.probe !== 'memory') return;
    const gc = (globalThis as { gc?: () => void }).gc;
    // Twice: the first pass can leave garbage that finalizers of the first made collectable.
    if (msg.gc && gc) {
      gc();
      gc();
    }
    const m = process.memoryUsage();
    const reply: ProbeReply = {
      probe: 'memory',
      id: msg.id,
      rss: m.rss,
      heapUsed: m.heapUsed,
      heapTotal: m.heapTotal,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
      loopP99Ms: loop.percentile(99) / 1e6,
      loopMaxMs: loop.max / 1e6,
    };
    if (msg.reset) loop.reset();
    process.send!(reply);
  });
  // A bench that dies leaves no server behind: losing the parent is a SIGTERM (ordered shutdown).
  process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  // The channel must not keep `doco serve` alive once it has shut down on SIGTERM.
  process.channel?.unref();
}
