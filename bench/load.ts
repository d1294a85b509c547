// The load benchmark: `doco serve` (a child process, on the bench's embedded cluster) holding a
// 10k-record workspace, under mixed closed-loop traffic — 70% briefs, 20% writes, 10% Claude Code
// prompt hooks — for a fixed time. Throughput, latency per kind, every non-2xx by status, and the
// server's memory before, during and after. Any 5xx (or a request with no answer) fails the run.
import { mkdir, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createToken } from '../src/auth/tokens.js';
import { userCacheDir } from '../src/providers/from-config.js';
import { makeLog } from '../src/lib/log.js';
import { drainOutbox } from '../src/indexing/drain.js';
import type { EmbeddedStore } from '../src/providers/vector/embedded/store.js';
import { benchProviders, startBenchCluster, type BenchCluster } from './harness.js';
import { clusterFigures, cpuSeconds, startServerChild, type ServerChild } from './load-server.js';
import type { ProbeReply } from './load-probe.js';
import { emptyTally, KINDS, runTraffic, type Tally } from './load-traffic.js';
import { allocatorTuned, percentile, round } from './stats.js';
import { generateCorpus, loadCorpus, type SyntheticCorpus } from './synthetic.js';

const MB = 1024 * 1024;
/** Growth past which memory "grew": more than run-to-run noise of a post-GC figure. */
const RSS_NOISE_MB = 24;
const HEAP_NOISE_MB = 8;
const NOISE_SHARE = 0.1;
const TREND_EVERY_MS = 5_000;
/** The index keeper saves 5 s after a drain; a little more, to be past it. */
const SAVE_DELAY_MS = 6_500;

function numberArg(args: string[], flag: string, fallback: number): number {
  const i = args.indexOf(flag);
  if (i < 0) return fallback;
  const n = Number(args[i + 1]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} takes a whole number above 0, got ${JSON.stringify(args[i + 1])}`);
  return n;
}

const mb = (bytes: number | undefined) => (bytes === undefined ? NaN : round(bytes / MB, 1));

/** Loads the corpus and indexes it into the server's DOCO_HOME, so `doco serve` starts on a full snapshot. */
async function prepareWorkspace(cluster: BenchCluster, serverHome: string, log: (l: string) => void): Promise<SyntheticCorpus> {
  const corpus = generateCorpus(10_000);
  log(`loading ${corpus.records.length} records, ${corpus.edges.length} edges…`);
  await loadCorpus(cluster.sql, cluster.workspaceId, corpus);
  const providers = await benchProviders(serverHome);
  await providers.store.init(providers.embedder.identity, providers.embedder.dimensions);
  const report = await drainOutbox({ sql: cluster.sql, log: makeLog('warn'), ...providers }, { batchSize: 500 });
  if (report.failedRecords) throw new Error(`${report.failedRecords} records failed to index`);
  const store = providers.store as EmbeddedStore;
  store.watermark = report.maxSeq;
  await store.save();
  await store.close();
  await cluster.sql`analyze`;
  log(`  ${report.chunksEmbedded} chunks indexed (${providers.embedder.identity})`);
  return corpus;
}

interface MemoryPoint {
  server: ProbeReply;
  pgPss: number | undefined;
}

async function memoryPoint(server: ServerChild, cluster: BenchCluster, opts: { gc: boolean; reset: boolean }): Promise<MemoryPoint> {
  return { server: await server.memory(opts), pgPss: clusterFigures(cluster.postmasterPid).pssBytes };
}

const chunkCount = async (cluster: BenchCluster) => (await cluster.sql<{ n: number }[]>`select count(*)::int as n from doco.chunks`)[0]!.n;

function latencyFigures(tally: Tally, seconds: number): Record<string, number> {
  const out: Record<string, number> = {};
  const total = KINDS.reduce((n, k) => n + tally.latencies[k].length, 0);
  out.requests = total;
  out.load_rps = round(total / seconds, 1);
  for (const k of KINDS) out[`${k}_rps`] = round(tally.latencies[k].length / seconds, 1);
  for (const k of KINDS) {
    const xs = tally.latencies[k];
    out[`${k}_p50_ms`] = round(percentile(xs, 50));
    out[`${k}_p95_ms`] = round(percentile(xs, 95));
    out[`${k}_p99_ms`] = round(percentile(xs, 99));
  }
  return out;
}

/** The tally with another phase's answers (statuses, errors) added; latencies stay its own. */
function withAnswersOf(tally: Tally, other: Tally): Tally {
  const statuses = Object.fromEntries(
    KINDS.map((k) => {
      const m = new Map(tally.statuses[k]);
      for (const [s, n] of other.statuses[k]) m.set(s, (m.get(s) ?? 0) + n);
      return [k, m];
    }),
  ) as Tally['statuses'];
  return {
    latencies: tally.latencies,
    statuses,
    serverErrors: [...other.serverErrors, ...tally.serverErrors].slice(0, 5),
    otherErrors: [...other.otherErrors, ...tally.otherErrors].slice(0, 5),
    transportErrors: tally.transportErrors + other.transportErrors,
    transportMessages: [...other.transportMessages, ...tally.transportMessages].slice(0, 5),
  };
}

function statusFigures(tally: Tally, log: (l: string) => void): Record<string, number> {
  const byStatus = new Map<number, number>();
  for (const k of KINDS) {
    const line = [...tally.statuses[k]]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}×${n}`)
      .join(', ');
    log(`  ${k.padEnd(5)} ${line || 'no answers'}`);
    for (const [s, n] of tally.statuses[k]) if (s < 200 || s >= 300) byStatus.set(s, (byStatus.get(s) ?? 0) + n);
  }
  const out: Record<string, number> = {
    errors_5xx: [...byStatus].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0),
    errors_transport: tally.transportErrors,
    non_2xx: [...byStatus.values()].reduce((n, c) => n + c, 0),
  };
  for (const [s, n] of [...byStatus].sort(([a], [b]) => a - b)) out[`status_${s}`] = n;
  if (tally.otherErrors.length) log(`first non-2xx answers other than 5xx:\n${tally.otherErrors.map((e) => `  ${e}`).join('\n')}`);
  return out;
}

/**
 * Growth is judged between two settled points (after the warm-up, after the load): the half-way
 * point is taken under load, where a snapshot save in flight can hold a copy of the vectors.
 */
function memoryFigures(points: Record<'start' | 'warm' | 'mid' | 'end', MemoryPoint>, log: (l: string) => void): Record<string, number> {
  const [s, w, m, e] = [points.start.server, points.warm.server, points.mid.server, points.end.server];
  const rssGrowth = (e.rss - w.rss) / MB;
  const heapGrowth = (e.heapUsed - w.heapUsed) / MB;
  const rssGrew = rssGrowth > Math.max(RSS_NOISE_MB, NOISE_SHARE * (w.rss / MB));
  const heapGrew = heapGrowth > Math.max(HEAP_NOISE_MB, NOISE_SHARE * (w.heapUsed / MB));
  const path = (f: (p: ProbeReply) => number) => [s, w, m, e].map((p) => mb(f(p))).join(' → ');
  log(
    `server memory after GC, at start → after warm-up → half-way (under load) → after load (MB): rss ${path((p) => p.rss)}; heap used ${path((p) => p.heapUsed)} of ${path((p) => p.heapTotal)} reserved; external (the index's typed arrays) ${path((p) => p.external)}`,
  );
  log(
    `  after load vs after warm-up: rss ${round(rssGrowth, 1)} MB, heap used ${round(heapGrowth, 1)} MB, external ${round((e.external - w.external) / MB, 1)} MB — ${rssGrew || heapGrew ? 'GREW beyond noise' : 'within noise'} (noise: rss max(${RSS_NOISE_MB} MB, 10%), heap used max(${HEAP_NOISE_MB} MB, 10%))`,
  );
  const kinds = (p: ProbeReply) =>
    p.rssByKind
      ? `V8's pages ${mb(p.rssByKind.v8Pages)}, malloc's heap ${mb(p.rssByKind.mallocHeap)}, other anonymous ${mb(p.rssByKind.otherAnonymous)}, files ${mb(p.rssByKind.files)}`
      : 'not read';
  log(`  rss by kind of mapping (MB), after warm-up: ${kinds(w)}; half-way: ${kinds(m)}; after load: ${kinds(e)}`);
  log(
    `embedded Postgres, summed PSS of its processes: ${[points.start, points.warm, points.mid, points.end].map((p) => mb(p.pgPss)).join(' → ')} MB (grows as backends touch shared buffers: cache, not a leak)`,
  );
  return {
    rss_mb_start: mb(s.rss),
    rss_mb_warm: mb(w.rss),
    rss_mb_mid: mb(m.rss),
    rss_mb_end: mb(e.rss),
    heap_mb_start: mb(s.heapUsed),
    heap_mb_warm: mb(w.heapUsed),
    heap_mb_mid: mb(m.heapUsed),
    heap_mb_end: mb(e.heapUsed),
    external_mb_warm: mb(w.external),
    external_mb_end: mb(e.external),
    rss_growth_mb: round(rssGrowth, 1),
    heap_growth_mb: round(heapGrowth, 1),
    memory_grew: rssGrew || heapGrew ? 1 : 0,
    allocator_tuned: allocatorTuned(),
    pg_pss_mb_start: mb(points.start.pgPss),
    pg_pss_mb_end: mb(points.end.pgPss),
  };
}

/** One reading of the server's memory under load, without a GC. */
interface TrendSample {
  /** Seconds since the load began. */
  t: number;
  rss: number;
  heapUsed: number;
}

/** Logs the server's memory (no GC) every few seconds while the load runs, and keeps the readings. */
function logTrend(server: ServerChild, log: (l: string) => void): { stop(): void; samples: TrendSample[] } {
  const began = performance.now();
  const samples: TrendSample[] = [];
  const timer = setInterval(() => {
    server.memory({ gc: false, reset: false }).then(
      (m) => {
        const t = (performance.now() - began) / 1000;
        samples.push({ t, rss: m.rss, heapUsed: m.heapUsed });
        log(`  t=${Math.round(t)}s server rss ${mb(m.rss)} MB, heap used ${mb(m.heapUsed)} MB, external ${mb(m.external)} MB`);
      },
      (err: Error) => log(`  memory sample failed: ${err.message}`),
    );
  }, TREND_EVERY_MS);
  return { stop: () => clearInterval(timer), samples };
}

/** Readings this soon after the half-way point's forced GC show that GC, not the course. */
const AFTER_FORCED_GC_S = 15;

/**
 * The course of RSS under load, from the readings taken without a GC: the median of the last
 * third of the run against the first third's. A leak shows as a rise between them; the post-GC
 * points above also move with where V8's collection cycle and its background page release
 * stand when they are read (docs/eval.md, "Session 21"). `heap_load_peak_mb` is how far the
 * heap grows between V8's own full collections, which is most of what RSS holds under load.
 */
function trendFigures(samples: TrendSample[], seconds: number, log: (l: string) => void): Record<string, number> {
  const half = seconds / 2;
  const kept = samples.filter((s) => s.t < half || s.t > half + AFTER_FORCED_GC_S);
  const third = (from: number, to: number) => kept.filter((s) => s.t >= from * seconds && s.t < to * seconds).map((s) => s.rss / MB);
  const first = third(0, 1 / 3);
  const last = third(2 / 3, 1.01);
  const firstMb = first.length ? percentile(first, 50) : NaN;
  const lastMb = last.length ? percentile(last, 50) : NaN;
  const peak = samples.length ? Math.max(...samples.map((s) => s.heapUsed)) / MB : NaN;
  log(
    `server rss under load (no GC), median of the first third → the last third: ${round(firstMb, 1)} → ${round(lastMb, 1)} MB (${first.length} and ${last.length} readings); heap used peaked at ${round(peak, 1)} MB between collections`,
  );
  return {
    rss_load_first_mb: round(firstMb, 1),
    rss_load_last_mb: round(lastMb, 1),
    rss_load_trend_mb: round(lastMb - firstMb, 1),
    heap_load_peak_mb: round(peak, 1),
  };
}

/**
 * Waits until the server is idle: the worker has drained the outbox and the embedded index's
 * snapshot save that a drain schedules (5 s later) has finished. A memory figure taken while a
 * save holds its copy of the vectors would count that copy as growth.
 */
async function settle(cluster: BenchCluster, serverHome: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const backlog = async () => (await cluster.sql<{ n: number }[]>`select count(*)::int as n from doco.outbox`)[0]!.n;
  while ((await backlog()) > 0) {
    if (Date.now() > deadline) throw new Error('the outbox did not drain within 120 s of the load');
    await sleep(250);
  }
  await sleep(SAVE_DELAY_MS);
  const indexDir = path.join(serverHome, 'index');
  while ((await readdir(indexDir).catch(() => [])).some((f) => f.includes('.tmp-'))) {
    if (Date.now() > deadline) throw new Error('the index snapshot save did not finish');
    await sleep(100);
  }
}

export async function loadSuite(log: (line: string) => void, args: string[]): Promise<Record<string, number>> {
  const seconds = numberArg(args, '--seconds', 60);
  const clients = numberArg(args, '--clients', 16);
  const warmup = numberArg(args, '--warmup', 10);
  log(
    `machine: ${os.cpus().length} cores, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} before the run (other work on the machine shows here)`,
  );
  const cluster = await startBenchCluster();
  const serverHome = path.join(cluster.home, 'server');
  const checkout = path.join(cluster.home, 'checkout');
  let server: ServerChild | undefined;
  try {
    await mkdir(serverHome, { recursive: true });
    await mkdir(checkout, { recursive: true });
    const corpus = await prepareWorkspace(cluster, serverHome, log);
    const readToken = await createToken(cluster.db, { workspaceId: cluster.workspaceId, principalId: cluster.principalId, scope: 'read' });
    server = await startServerChild({
      home: serverHome,
      databaseUrl: cluster.url,
      env: { DOCO_CACHE_DIR: process.env.DOCO_CACHE_DIR ?? userCacheDir() },
    });
    log(`doco serve (pid ${server.pid}) ready at ${server.baseUrl}`);

    const target = { baseUrl: server.baseUrl, readToken, writeToken: cluster.token, checkout, corpus };
    const start = await memoryPoint(server, cluster, { gc: true, reset: false });
    // The warm-up fills pools, JIT and the index's first growth; memory is compared from its end.
    log(`warm-up: ${clients} clients for ${warmup} s (not counted in the figures but for its errors)…`);
    const warmTally = emptyTally();
    await runTraffic(target, { clients, seconds: warmup }, warmTally);
    await settle(cluster, serverHome);
    const warm = await memoryPoint(server, cluster, { gc: true, reset: true });
    const chunksBefore = await chunkCount(cluster);

    log(`load: ${clients} clients for ${seconds} s…`);
    const cpu0 = { server: cpuSeconds(server.pid), pg: clusterFigures(cluster.postmasterPid).cpuSeconds, gen: process.cpuUsage() };
    const trend = logTrend(server, log);
    // One post-GC point half-way, to show the course between the settled points.
    let mid: Promise<MemoryPoint | undefined> | undefined;
    const midTimer = setTimeout(
      () => {
        mid = memoryPoint(server!, cluster, { gc: true, reset: false }).catch((err: Error) => {
          log(`  the half-way memory point failed: ${err.message}`);
          return undefined;
        });
      },
      (seconds * 1000) / 2,
    );
    const tally = emptyTally();
    const elapsed = await runTraffic(target, { clients, seconds }, tally);
    trend.stop();
    clearTimeout(midTimer);
    const died = server.exited();
    if (died) {
      const answers = withAnswersOf(tally, warmTally);
      throw new Error(
        `doco serve died under load (${died}); ${answers.transportErrors} requests got no answer, first: ${answers.transportMessages.join(' | ')}\nits last log lines:\n${server.logLines().slice(-10).join('\n')}`,
      );
    }
    const half = (await mid) ?? warm;
    const loop = await server.memory({ gc: false, reset: false });
    const cpu1 = { server: cpuSeconds(server.pid), pg: clusterFigures(cluster.postmasterPid).cpuSeconds, gen: process.cpuUsage(cpu0.gen) };
    const [backlog] = await cluster.sql<{ n: number }[]>`select count(*)::int as n from doco.outbox`;
    await settle(cluster, serverHome);
    const end = await memoryPoint(server, cluster, { gc: true, reset: false });
    const chunksAfter = await chunkCount(cluster);

    log(`answers by status (warm-up and load):`);
    const answers = withAnswersOf(tally, warmTally);
    const statuses = statusFigures(answers, log);
    const figures: Record<string, number> = {
      seconds: round(elapsed, 1),
      clients,
      ...latencyFigures(tally, elapsed),
      ...statuses,
      ...memoryFigures({ start, warm, mid: half, end }, log),
      ...trendFigures(trend.samples, seconds, log),
      chunks_added: chunksAfter - chunksBefore,
      server_loop_p99_ms: round(loop.loopP99Ms),
      server_loop_max_ms: round(loop.loopMaxMs),
      // The half-way point's forced GC, left out of the loop figures above (load-probe.ts).
      server_probe_gc_ms: round(half === warm ? NaN : half.server.gcMs),
      server_main_on_cpu_pct: round(100 * loop.mainOnCpu, 1),
      server_main_waiting_pct: round(100 * loop.mainWaiting, 1),
      server_cpu_s: round((cpu1.server ?? NaN) - (cpu0.server ?? NaN), 1),
      pg_cpu_s: round((cpu1.pg ?? NaN) - (cpu0.pg ?? NaN), 1),
      loadgen_cpu_s: round((cpu1.gen.user + cpu1.gen.system) / 1e6, 1),
      outbox_backlog_at_stop: backlog!.n,
    };
    const exit = await server.stop();
    const serverLog = server.logLines();
    server = undefined;
    if (serverLog.length)
      log(
        `server log (${serverLog.length} lines at warn or above), last few:\n${serverLog
          .slice(-8)
          .map((l) => `  ${l}`)
          .join('\n')}`,
      );
    figures.server_exit_code = exit ?? -1;

    const failures = [...answers.serverErrors, ...answers.transportMessages];
    if (statuses.errors_5xx! > 0 || statuses.errors_transport! > 0 || exit !== 0) {
      log(`FAIL: ${statuses.errors_5xx} 5xx, ${statuses.errors_transport} requests without an answer, server exit ${exit}; first ones:`);
      for (const f of failures) log(`  ${f}`);
      process.exitCode = 1;
    }
    return figures;
  } finally {
    if (server) await server.stop();
    await cluster.stop();
  }
}
