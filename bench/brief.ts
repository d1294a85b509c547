// The brief benchmark: synthetic corpora of 10k and 100k records on the embedded defaults,
// measuring the drain (chunks/s), the index's memory, and brief latency over real HTTP.
import { drainOutbox } from '../src/indexing/drain.js';
import { makeLog } from '../src/lib/log.js';
import { startBenchDoco, type BenchDoco } from './harness.js';
import { generateCorpus, loadCorpus, type ArrivalOrder } from './synthetic.js';
import { percentile, round, timeIt } from './stats.js';

const BRIEFS = 100;
/** The seed of the asks a served server has not seen (the corpus's own are drawn with seed 7). */
const UNSEEN_ASKS_SEED = 99;

const rssMb = () => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss / 1024 / 1024;
};
/** RSS a second after a full GC, once V8's background threads have handed back the pages it freed (as `bench index-memory` reads it). */
const settledRssMb = async () => {
  rssMb();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return process.memoryUsage().rss / 1024 / 1024;
};

async function measureSize(records: number, log: (l: string) => void, order: ArrivalOrder, drainOnly = false) {
  const doco: BenchDoco = await startBenchDoco();
  try {
    const corpus = generateCorpus(records);
    log(
      `${records} records: loading ${corpus.records.length} records, ${corpus.edges.length} edges, ${corpus.glossary.length} glossary terms (${order})…`,
    );
    const [loadMs] = await timeIt(() => loadCorpus(doco.sql, doco.workspaceId, corpus, order));
    log(`  loaded in ${(loadMs / 1000).toFixed(1)} s; draining the outbox…`);
    const settledBefore = await settledRssMb();
    const before = rssMb();
    const [drainMs, report] = await timeIt(() =>
      drainOutbox({ sql: doco.sql, log: makeLog('warn'), ...doco.providers }, { batchSize: 500 }),
    );
    const indexMb = rssMb() - before;
    const indexSettledMb = (await settledRssMb()) - settledBefore;
    // Autovacuum analyzes a table this size within a minute of the load; do it now rather than
    // wait, since full text uses the planner's statistics to skip words too common to matter.
    await doco.sql`analyze`;
    log(`  ${report.chunksEmbedded} chunks embedded in ${(drainMs / 1000).toFixed(1)} s (${report.failedRecords} failed)`);
    const samples: number[] = [];
    const warm: number[] = [];
    const served: number[] = [];
    if (drainOnly)
      return {
        samples,
        warm,
        served,
        stepMedians: {},
        chunksPerS: report.chunksEmbedded / (drainMs / 1000),
        indexMb,
        indexSettledMb,
        chunks: report.chunksEmbedded,
      };
    const steps = new Map<string, number[]>();
    const brief = async (ask: { about: string; touching: string[] }) => {
      const [ms, res] = await timeIt(() => doco.post('/api/v1/brief', { about: ask.about, touching: ask.touching }));
      if (res.status !== 200) throw new Error(`brief failed: ${JSON.stringify(res.body)}`);
      if (res.body.warnings.length) log(`  warning: ${res.body.warnings.join('; ')}`);
      return { ms, timings: (res.body.timings ?? {}) as Record<string, number> };
    };
    // The first 10 warm up; the next BRIEFS are the figures of record: a server's first briefs
    // after the load, each ask new to it. The same asks again after them are `warm`: by then every
    // pooled connection has its statements' plans cached (Postgres plans a prepared statement anew
    // for its first five runs on a connection) and the JIT has compiled the brief's code. Last,
    // `served`: BRIEFS asks the server has not seen (another draw of the corpus's asks, the same
    // words), after the 2 × BRIEFS + 10 before them: new asks to a server that has been answering
    // for a while, with the records they share with earlier asks already read.
    for (let i = 0; i < BRIEFS + 10; i++) {
      const { ms, timings } = await brief(corpus.asks[i % corpus.asks.length]!);
      if (i < 10) continue;
      samples.push(ms);
      for (const [step, stepMs] of Object.entries(timings)) steps.set(step, [...(steps.get(step) ?? []), stepMs]);
    }
    for (let i = 10; i < BRIEFS + 10; i++) warm.push((await brief(corpus.asks[i % corpus.asks.length]!)).ms);
    const unseen = generateCorpus(records, UNSEEN_ASKS_SEED).asks;
    for (let i = 0; i < BRIEFS; i++) served.push((await brief(unseen[i % unseen.length]!)).ms);
    // Where the time goes: the median of each of the brief's own step timings.
    const stepMedians = Object.fromEntries([...steps].map(([step, xs]) => [step, round(percentile(xs, 50))]));
    log(
      `  brief steps, median ms: ${Object.entries(stepMedians)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
    return {
      samples,
      warm,
      served,
      stepMedians,
      chunksPerS: report.chunksEmbedded / (drainMs / 1000),
      indexMb,
      indexSettledMb,
      chunks: report.chunksEmbedded,
    };
  } finally {
    await doco.stop();
  }
}

/**
 * `--quick` measures the 10k corpus only (for iterating); the figures of record need both.
 * `--round-robin` loads the records in generation order instead of in bursts (synthetic.ts).
 * `--drain-only` loads and drains one corpus (100k, or 10k with `--quick`) and asks no brief:
 * the drain's figure alone, without the ten minutes of the whole suite.
 */
export async function briefSuite(log: (line: string) => void, args: string[]): Promise<Record<string, number>> {
  const order: ArrivalOrder = args.includes('--round-robin') ? 'round-robin' : 'bursts';
  if (args.includes('--drain-only')) {
    const records = args.includes('--quick') ? 10_000 : 100_000;
    const only = await measureSize(records, log, order, true);
    const suffix = records === 10_000 ? '_10k' : '';
    return { [`drain_chunks_per_s${suffix}`]: Math.round(only.chunksPerS), [`chunks_${records / 1000}k`]: only.chunks };
  }
  const small = await measureSize(10_000, log, order);
  if (args.includes('--quick')) {
    return {
      brief_p50_ms_10k: round(percentile(small.samples, 50)),
      brief_p95_ms_10k: round(percentile(small.samples, 95)),
      brief_p50_ms_10k_warm: round(percentile(small.warm, 50)),
      brief_p95_ms_10k_warm: round(percentile(small.warm, 95)),
      brief_p50_ms_10k_served: round(percentile(small.served, 50)),
      brief_p95_ms_10k_served: round(percentile(small.served, 95)),
      drain_chunks_per_s_10k: Math.round(small.chunksPerS),
      chunks_10k: small.chunks,
    };
  }
  const large = await measureSize(100_000, log, order);
  return {
    brief_p50_ms_10k: round(percentile(small.samples, 50)),
    brief_p95_ms_10k: round(percentile(small.samples, 95)),
    brief_p50_ms_100k: round(percentile(large.samples, 50)),
    brief_p95_ms_100k: round(percentile(large.samples, 95)),
    brief_p50_ms_10k_warm: round(percentile(small.warm, 50)),
    brief_p95_ms_10k_warm: round(percentile(small.warm, 95)),
    brief_p50_ms_100k_warm: round(percentile(large.warm, 50)),
    brief_p95_ms_100k_warm: round(percentile(large.warm, 95)),
    brief_p95_ratio_100k_10k_warm: round(percentile(large.warm, 95) / percentile(small.warm, 95)),
    brief_p50_ms_10k_served: round(percentile(small.served, 50)),
    brief_p95_ms_10k_served: round(percentile(small.served, 95)),
    brief_p50_ms_100k_served: round(percentile(large.served, 50)),
    brief_p95_ms_100k_served: round(percentile(large.served, 95)),
    brief_p95_ratio_100k_10k_served: round(percentile(large.served, 95) / percentile(small.served, 95)),
    drain_chunks_per_s: Math.round(large.chunksPerS),
    chunks_100k: large.chunks,
    brief_p95_ratio_100k_10k: round(percentile(large.samples, 95) / percentile(small.samples, 95)),
    index_rss_mb_100k: Math.round(large.indexMb),
    index_rss_settled_mb_100k: Math.round(large.indexSettledMb),
  };
}
