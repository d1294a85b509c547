// `npm run eval -- [--corpus DIR] [--queries FILE] [--records FILE] [--json] [--verbose]`:
// the retrieval eval. Boots a throwaway Doco, ingests a docs tree (and a records.json), runs
// labelled queries through the brief's retrieval and through BM25-only, vector-only and
// full-text-only baselines on the same index, and prints recall@10 and MRR for each.
// With no flags it runs the built-in fixture (eval/fixtures/ledger).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { findProjectRoot } from '../src/db/migrate.js';
import { startEvalDoco } from './harness.js';
import { ingestCorpus, readRecordsFile, type FixtureRecord } from './ingest.js';
import { readCorpus } from '../src/ingest/docs/sections.js';
import { RECALL_AT, scoreRanking, summarise, type QueryScore, type Summary } from './metrics.js';
import { checkTargets, LabelError, readQueries, resolveTargets } from './queries.js';
import { rankQuery, SYSTEMS, type EvalQuery, type SystemName } from './systems.js';

interface Args {
  corpus: string | undefined;
  queries: string | undefined;
  records: string | undefined;
  json: boolean;
  verbose: boolean;
}

const USAGE = 'usage: npm run eval -- [--corpus DIR] [--queries FILE] [--records FILE] [--json] [--verbose]';

function parseArgs(argv: string[]): Args {
  const args: Args = { corpus: undefined, queries: undefined, records: undefined, json: false, verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (!v || v.startsWith('--')) throw new UsageError(`${a} needs a value`);
      return v;
    };
    if (a === '--corpus') args.corpus = value();
    else if (a === '--queries') args.queries = value();
    else if (a === '--records') args.records = value();
    else if (a === '--json') args.json = true;
    else if (a === '--verbose' || a === '-v') args.verbose = true;
    else if (a === '--help' || a === '-h') throw new UsageError('');
    else throw new UsageError(`unknown argument ${a}`);
  }
  return args;
}

class UsageError extends Error {}

const firstExisting = (...files: string[]) => files.find((f) => existsSync(f));

function locate(args: Args): { corpus: string; label: string; queries: string; records: string | undefined } {
  const fixture = path.join(findProjectRoot(), 'eval', 'fixtures', 'ledger');
  const corpus = path.resolve(args.corpus ?? fixture);
  if (!existsSync(corpus)) throw new UsageError(`no corpus at ${corpus}`);
  const queries = args.queries ? path.resolve(args.queries) : firstExisting(path.join(corpus, 'doco-queries.json'), path.join(corpus, 'queries.json'));
  if (!queries) throw new UsageError(`--corpus ${args.corpus} needs --queries FILE (or ${path.join(corpus, 'doco-queries.json')})`);
  if (!existsSync(queries)) throw new UsageError(`no queries file at ${queries}`);
  const records = args.records ? path.resolve(args.records) : firstExisting(path.join(corpus, 'doco-records.json'), path.join(corpus, 'records.json'));
  if (records && !existsSync(records)) throw new UsageError(`no records file at ${records}`);
  const label = args.corpus ? path.relative(process.cwd(), corpus) || '.' : 'built-in fixture (eval/fixtures/ledger)';
  return { corpus, label, queries, records };
}

const log = (line: string) => process.stderr.write(`${line}\n`);
const secs = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const where = locate(args);
  const t0 = performance.now();
  const corpus = await readCorpus(where.corpus);
  const records: FixtureRecord[] = where.records ? await readRecordsFile(where.records) : [];
  const queries = await readQueries(where.queries);
  if (corpus.sections.length + records.length === 0) throw new UsageError(`${where.corpus} holds no sections (README.md, CLAUDE.md or docs/**/*.md) and no records`);
  const known = new Set([...corpus.sections.map((s) => s.section_key), ...records.map((r) => r.key)]);
  checkTargets(queries, known, new Set(records.flatMap((r) => (r.supersedes ? [r.supersedes] : []))));

  log(`booting a throwaway Doco…`);
  const doco = await startEvalDoco();
  // The cluster is this run's alone: stop it on Ctrl-C too, and never die of a closed stdout
  // (`npm run eval -- --json | head`) before it is stopped.
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= doco.stop());
  // Queries may be in flight: closing the pool would wait on them, so stop the cluster outright.
  const onSignal = () => void (stopping ??= doco.abort()).finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
  try {
    const tBoot = performance.now();
    log(`ingesting ${corpus.sections.length} sections from ${corpus.files} files and ${records.length} records…`);
    const ingest = await ingestCorpus(doco, corpus.sections, records);
    const tIngest = performance.now();
    if (ingest.drain.failedRecords || ingest.outboxLeft) throw new Error(`the index drain left ${ingest.outboxLeft} outbox rows (${ingest.drain.failedRecords} records failed)`);
    const resolved = resolveTargets(queries, ingest.ids, ingest.retired);

    log(`running ${queries.length} queries…`);
    const scores = Object.fromEntries(SYSTEMS.map((s) => [s, [] as QueryScore[]])) as Record<SystemName, QueryScore[]>;
    const ms = Object.fromEntries(SYSTEMS.map((s) => [s, 0])) as Record<SystemName, number>;
    const perQuery: { query: EvalQuery; relevantIds: string[]; ranked: Record<SystemName, string[]> }[] = [];
    const warnings = new Set<string>();
    for (const { query, relevantIds } of resolved) {
      const r = await rankQuery(doco, query);
      for (const s of SYSTEMS) {
        scores[s].push(scoreRanking(r.ranked[s], relevantIds));
        ms[s] += r.ms[s];
      }
      r.warnings.forEach((w) => warnings.add(`${query.id}: ${w}`));
      perQuery.push({ query, relevantIds, ranked: r.ranked });
    }
    const tQueries = performance.now();

    const systems = Object.fromEntries(SYSTEMS.map((s) => [s, { ...summarise(scores[s]), ms_per_query: Math.round((ms[s] / Math.max(1, queries.length)) * 10) / 10 }])) as Record<SystemName, Summary & { ms_per_query: number }>;
    const withTouching = resolved.map((r, i) => (r.query.touching.length ? i : -1)).filter((i) => i >= 0);
    const subset = (idx: number[]) => Object.fromEntries(SYSTEMS.map((s) => [s, summarise(idx.map((i) => scores[s][i]!))])) as Record<SystemName, Summary>;
    const without = resolved.map((_, i) => i).filter((i) => !withTouching.includes(i));
    const timings = { boot_s: (tBoot - t0) / 1000, ingest_s: (tIngest - tBoot) / 1000, queries_s: (tQueries - tIngest) / 1000 };
    const providers = { embedder: doco.providers.embedder.identity, store: doco.providers.store.kind, reranker: doco.providers.reranker.name };

    if (args.json) {
      const round = (x: number) => Math.round(x * 100) / 100;
      process.stdout.write(`${JSON.stringify({
        corpus: where.label, queries: queries.length, systems,
        subsets: { with_touching: subset(withTouching), without_touching: subset(without) },
        index: { files: corpus.files, sections: ingest.sections, records: ingest.records, edges: ingest.edges, chunks: ingest.drain.chunksEmbedded },
        providers, timings: Object.fromEntries(Object.entries(timings).map(([k, v]) => [k, round(v)])), warnings: [...warnings],
      })}\n`);
    } else {
      const out = (line = '') => process.stdout.write(`${line}\n`);
      out(`Doco retrieval eval — ${where.label}`);
      out(`providers: embedder ${providers.embedder}, store ${providers.store}, reranker ${providers.reranker}`);
      out(`index: ${corpus.files} files → ${ingest.sections} sections (${corpus.belowFloor} under the 200-character floor, ${corpus.truncated} truncated${corpus.duplicateKeys.length ? `, ${corpus.duplicateKeys.length} repeated section_keys` : ''}), ${ingest.records} records (${ingest.retired.size} superseded), ${ingest.edges} edges; ${ingest.drain.chunksEmbedded} chunks`);
      out(`time: boot ${secs(tBoot - t0)}, ingest + drain ${secs(tIngest - tBoot)}, queries ${secs(tQueries - tIngest)}`);
      out();
      out(`${queries.length} queries (${withTouching.length} with touching)`);
      out(table(systems, queries.length));
      out('brief: the brief\'s fused candidates with the top 50 reranked globally; fused: the same without the rerank;');
      out('bm25 / vector: the vector store\'s sparse / dense hits alone; fulltext: the Postgres full-text seed alone.');
      out('Only the brief and fused see `touching`; the baselines get the ask\'s text. (bm25 and vector share one store call: same ms.)');
      if (withTouching.length && without.length) {
        out();
        out(`with touching (${withTouching.length}) / without (${without.length}):`);
        const w = subset(withTouching);
        const wo = subset(without);
        for (const s of SYSTEMS) out(`  ${s.padEnd(9)} recall@10 ${w[s].recall_at_10.toFixed(3)} / ${wo[s].recall_at_10.toFixed(3)}   MRR ${w[s].mrr.toFixed(3)} / ${wo[s].mrr.toFixed(3)}`);
      }
      out();
      out('brief vs each baseline, per query by reciprocal rank (better / worse / tie):');
      for (const s of SYSTEMS.filter((x) => x !== 'brief')) {
        const cmp = scores.brief.map((b, i) => Math.sign(b.rr - scores[s][i]!.rr));
        out(`  vs ${s.padEnd(9)} ${cmp.filter((c) => c > 0).length} / ${cmp.filter((c) => c < 0).length} / ${cmp.filter((c) => c === 0).length}`);
      }
      if (warnings.size) {
        out();
        out(`warnings: ${[...warnings].join('; ')}`);
      }
      if (args.verbose) {
        out();
        out(misses(perQuery, scores, ingest.ids));
      }
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await stop();
  }
}

function table(systems: Record<SystemName, Summary & { ms_per_query: number }>, n: number): string {
  const head = `${'system'.padEnd(10)}${'recall@10'.padStart(10)}${'MRR'.padStart(8)}${`hit@${RECALL_AT}`.padStart(9)}${`all@${RECALL_AT}`.padStart(9)}${'ms/query'.padStart(10)}`;
  const rows = SYSTEMS.map((s) => {
    const x = systems[s];
    return `${s.padEnd(10)}${x.recall_at_10.toFixed(3).padStart(10)}${x.mrr.toFixed(3).padStart(8)}${`${x.hit_at_10}/${n}`.padStart(9)}${`${x.all_at_10}/${n}`.padStart(9)}${x.ms_per_query.toFixed(1).padStart(10)}`;
  });
  return [head, ...rows].join('\n');
}

/** The brief's misses, query by query: each missed target's rank in every system, and what the brief put first. */
function misses(
  perQuery: { query: EvalQuery; relevantIds: string[]; ranked: Record<SystemName, string[]> }[],
  scores: Record<SystemName, QueryScore[]>,
  ids: Map<string, string>,
): string {
  const keyOf = new Map([...ids].map(([k, id]) => [id, k]));
  const lines: string[] = ['brief misses (targets outside its top 10):'];
  perQuery.forEach(({ query, relevantIds, ranked }, qi) => {
    if (scores.brief[qi]!.recall === 1) return;
    lines.push(`${query.id} "${query.about}"${query.touching.length ? ` touching ${query.touching.join(', ')}` : ''}`);
    relevantIds.forEach((id, ti) => {
      const r = scores.brief[qi]!.ranks[ti];
      if (r !== undefined && r <= RECALL_AT) return;
      const at = (s: SystemName) => {
        const rank = scores[s][qi]!.ranks[ti];
        return `${s} ${rank === undefined ? '—' : `#${rank}`}`;
      };
      lines.push(`  missed ${query.relevant[ti]}: ${SYSTEMS.map(at).join(', ')}`);
    });
    lines.push(`  brief's top 3: ${ranked.brief.slice(0, 3).map((id) => keyOf.get(id) ?? id).join(' | ')}`);
  });
  if (lines.length === 1) lines.push('  none');
  return lines.join('\n');
}

main().catch((err) => {
  if (err instanceof UsageError) {
    if (err.message) process.stderr.write(`${err.message}\n`);
    process.stderr.write(`${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  process.stderr.write(`${err instanceof LabelError ? err.message : ((err as Error).stack ?? err)}\n`);
  process.exitCode = 1;
});
