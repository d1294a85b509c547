// The server under load: `doco serve` as a child process of its own (so the load generator's
// work does not share its event loop or its memory figures) on the bench's cluster, with the
// memory probe preloaded; plus what /proc says about it and about the embedded Postgres.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProbeReply, ProbeRequest } from './load-probe.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.resolve(here, '../../bin/doco.js');
const PROBE = path.join(here, 'load-probe.js');
/** Never hand a hosted provider's key to the bench server: it runs on the embedded defaults. */
const HOSTED = [
  'ANTHROPIC_API_KEY',
  'VOYAGE_API_KEY',
  'QDRANT_URL',
  'QDRANT_API_KEY',
  'DOCO_URL',
  'DOCO_TOKEN',
  'DOCO_PORT',
  'DOCO_DOCS_ROOT',
];

export interface ServerChild {
  baseUrl: string;
  pid: number;
  /** The exit code or signal once the child has exited, else undefined. */
  exited(): string | undefined;
  /** Memory after a full GC (or as it is, without one), and the event loop's delay since the last reset. */
  memory(opts: { gc: boolean; reset: boolean }): Promise<ProbeReply>;
  /** The child's stderr lines (its log at warn and above). */
  logLines(): string[];
  /** SIGTERM, then wait for the ordered shutdown; SIGKILL after 30 s. Returns the exit code. */
  stop(): Promise<number | null>;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

async function waitReady(baseUrl: string, child: ChildProcess, log: () => string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`doco serve exited with ${child.exitCode} during start-up:\n${log()}`);
    const ok = await fetch(`${baseUrl}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`doco serve was not ready within ${timeoutMs} ms:\n${log()}`);
}

export async function startServerChild(opts: { home: string; databaseUrl: string; env?: NodeJS.ProcessEnv }): Promise<ServerChild> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DOCO_HOME: opts.home,
    DATABASE_URL: opts.databaseUrl,
    DOCO_LOG_LEVEL: 'warn',
    ...opts.env,
  };
  for (const k of HOSTED) delete env[k];
  // To profile the server under the load: DOCO_BENCH_SERVER_NODE_FLAGS='--cpu-prof --cpu-prof-dir=DIR'
  // (written at its clean exit), '--trace-gc' with DOCO_BENCH_SERVER_STDOUT=FILE (V8 prints there).
  const flags = (process.env.DOCO_BENCH_SERVER_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  const stdout = process.env.DOCO_BENCH_SERVER_STDOUT ? openSync(process.env.DOCO_BENCH_SERVER_STDOUT, 'w') : 'ignore';
  const child = spawn(process.execPath, [...flags, '--expose-gc', '--import', PROBE, BIN, 'serve', '--port', String(port)], {
    env,
    stdio: ['ignore', stdout, 'pipe', 'ipc'],
  });
  if (typeof stdout === 'number') closeSync(stdout);
  const lines: string[] = [];
  let partial = '';
  child.stderr!.on('data', (d: Buffer) => {
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop()!;
    lines.push(...parts.filter((l) => l.trim()));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitReady(baseUrl, child, () => lines.slice(-20).join('\n'));
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  let nextId = 0;
  return {
    baseUrl,
    pid: child.pid!,
    exited: () => (child.exitCode !== null ? `exit ${child.exitCode}` : child.signalCode ? `signal ${child.signalCode}` : undefined),
    memory({ gc, reset }) {
      const id = ++nextId;
      return new Promise<ProbeReply>((resolve, reject) => {
        if (!child.connected) return reject(new Error('the server has gone: no memory probe'));
        const done = (err?: Error | null, reply?: ProbeReply) => {
          clearTimeout(timer);
          child.off('message', onMessage);
          if (err) reject(err);
          else resolve(reply!);
        };
        const timer = setTimeout(() => done(new Error('the server did not answer the memory probe within 30 s')), 30_000);
        const onMessage = (msg: ProbeReply) => {
          if (msg?.probe === 'memory' && msg.id === id) done(null, msg);
        };
        child.on('message', onMessage);
        // With a callback, a closed channel is reported here rather than thrown as an 'error' event.
        child.send({ probe: 'memory', id, gc, reset } satisfies ProbeRequest, (err) => err && done(err));
      });
    },
    logLines: () => [...lines, ...(partial.trim() ? [partial] : [])],
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

const TICKS = 100; // USER_HZ on Linux

/** /proc/PID/stat's fields after the command name (field 3 onwards), or undefined once it is gone. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds (user + system) a process has used; with `reaped`, also its exited children's it
 * waited for (a postmaster reaps its backends).
 */
export function cpuSeconds(pid: number, reaped = false): number | undefined {
  const f = statFields(pid);
  if (!f) return undefined;
  return (Number(f[11]) + Number(f[12]) + (reaped ? Number(f[13]) + Number(f[14]) : 0)) / TICKS;
}

const parentOf = (pid: number) => Number(statFields(pid)?.[1]);

/** The postmaster and its children (the backends, checkpointer, walwriter…). */
function clusterPids(postmasterPid: number): number[] {
  const pids = [postmasterPid];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (pid && parentOf(pid) === postmasterPid) pids.push(pid);
  }
  return pids;
}

/** Proportional set size in bytes: shared pages (shared_buffers) split among the processes mapping them. */
function pss(pid: number): number | undefined {
  try {
    const m = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8').match(/^Pss:\s+(\d+) kB/m);
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

export interface ClusterFigures {
  processes: number;
  /** Summed PSS of the cluster's processes (undefined when /proc does not let us read them). */
  pssBytes: number | undefined;
  /** CPU of the live processes plus the exited backends the postmaster reaped. */
  cpuSeconds: number | undefined;
}

/** The embedded Postgres's memory and CPU, summed over its processes. */
export function clusterFigures(postmasterPid: number): ClusterFigures {
  const pids = clusterPids(postmasterPid);
  let pssBytes = 0;
  let read = 0;
  let cpu = 0;
  for (const pid of pids) {
    const p = pss(pid);
    if (p !== undefined) {
      pssBytes += p;
      read++;
    }
    cpu += cpuSeconds(pid, pid === postmasterPid) ?? 0; // a backend that exited meanwhile is in the postmaster's reaped time
  }
  return {
    processes: pids.length,
    pssBytes: read ? pssBytes : undefined,
    cpuSeconds: cpuSeconds(postmasterPid) === undefined ? undefined : cpu,
  };
}
