// `npm run eval -- [--corpus DIR [--queries FILE]… [--records FILE]]… [--shared DIR] [--json] [--verbose]`:
// the retrieval eval. For each corpus it boots a throwaway Doco, ingests the docs tree (and a
// records.json) once, runs each labelled query set through the real brief and through baselines
// on that index, and prints recall@10, sent-in-full recall and MRR per query kind, one result per
// query set. With no flags it runs the built-in fixture (eval/fixtures/ledger); `--shared DIR`
// adds the CometBFT and Cortex docs found under DIR with the labels committed in eval/queries/
// (sets A, B and C for each, and the edit asks; `--without-code-terms` asks those without their code).
// `npm run eval -- align [--shared DIR]` runs the alignment eval instead (eval/align.ts).
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PoolTrace } from './pool-trace.js';
import { findProjectRoot } from '../src/lib/project-root.js';
import { readCorpus } from '../src/ingest/docs/sections.js';
import { parseArgs, UsageError, USAGE, type CorpusArg } from './args.js';
import { startEvalDoco, type EvalDoco } from './harness.js';
import { ingestCorpus, readRecordsFile, type FixtureRecord } from './ingest.js';
import {
  RECALL_AT,
  scoreBrief,
  scoreRanking,
  summarise,
  summariseBudget,
  type BudgetScore,
  type QueryScore,
  type Summary,
} from './metrics.js';
import { checkTargets, LabelError, readQueries, resolveTargets } from './queries.js';
import type { FeatureQuery } from './features.js';
import { formatCorpus, formatMisses, type Breakdown, type CorpusResult } from './report.js';
import { BRIEF_BUDGETS, QUERY_KINDS, rankQuery, SYSTEMS, type EvalQuery, type SystemName } from './systems.js';

const firstExisting = (...files: string[]) => files.find((f) => existsSync(f));

interface Located {
  corpus: string;
  label: string;
  queries: { file: string; label: string }[];
  records: string | undefined;
}

function locate(arg: CorpusArg): Located {
  const corpus = path.resolve(arg.corpus);
  if (!existsSync(corpus)) throw new UsageError(`no corpus at ${corpus}`);
  const label = path.relative(process.cwd(), corpus) || '.';
  const own = firstExisting(path.join(corpus, 'doco-queries.json'), path.join(corpus, 'queries.json'));
  const sets = arg.queries.length
    ? arg.queries.map((q) => ({ file: path.resolve(q.file), name: q.name }))
    : own
      ? [{ file: own, name: undefined }]
      : [];
  if (!sets.length) throw new UsageError(`--corpus ${arg.corpus} needs --queries FILE (or ${path.join(corpus, 'doco-queries.json')})`);
  for (const q of sets) if (!existsSync(q.file)) throw new UsageError(`no queries file at ${q.file}`);
  const records = arg.records
    ? path.resolve(arg.records)
    : firstExisting(path.join(corpus, 'doco-records.json'), path.join(corpus, 'records.json'));
  if (records && !existsSync(records)) throw new UsageError(`no records file at ${records}`);
  // The first set keeps the corpus's plain label (what readers of the JSON already key on).
  return { corpus, label, queries: sets.map((q) => ({ file: q.file, label: q.name ? `${label} (${q.name})` : label })), records };
}

const log = (line: string) => process.stderr.write(`${line}\n`);

type Ingested = Awaited<ReturnType<typeof ingestCorpus>>;
const round = (x: number) => Math.round(x * 100) / 100;

/** Runs one query set over an ingested corpus and summarises it per kind and system. */
async function runQuerySet(
  doco: EvalDoco,
  ingest: Ingested,
  queries: EvalQuery[],
  verbose: boolean,
  /** Collects each query's rerank pool (--features), labelled with `set`. */
  dump?: { set: string; into: FeatureQuery[] },
  withoutCodeTerms = false,
): Promise<Omit<CorpusResult, 'corpus' | 'index' | 'timings'> & { queries_s: number }> {
  const t0 = performance.now();
  const resolved = resolveTargets(queries, ingest.ids, ingest.retired);
  const scores = Object.fromEntries(SYSTEMS.map((s) => [s, [] as QueryScore[]])) as Record<SystemName, QueryScore[]>;
  const ms = Object.fromEntries(SYSTEMS.map((s) => [s, 0])) as Record<SystemName, number>;
  const perQuery: { query: EvalQuery; ranked: Record<SystemName, string[]> }[] = [];
  const warnings = new Set<string>();
  const steps = new Map<string, number[]>();
  const size = { items: 0, expanded: 0, tokens: 0, held_back: 0 };
  const byBudget: BudgetScore[][] = BRIEF_BUDGETS.map(() => []);
  for (const { query, relevantIds } of resolved) {
    let pool: PoolTrace | undefined;
    const r = await rankQuery(doco, query, dump ? (t) => void (pool = t) : undefined, withoutCodeTerms);
    if (dump && pool) {
      const sent = relevantIds.length ? relevantIds.filter((id) => r.sent.has(id)).length / relevantIds.length : 0;
      dump.into.push({ set: dump.set, id: query.id, kind: query.kind, relevant: relevantIds, brief: r.ranked.brief, sent, pool });
    }
    for (const [k, v] of Object.entries(r.steps)) steps.set(k, [...(steps.get(k) ?? []), v]);
    for (const k of Object.keys(size) as (keyof typeof size)[]) size[k] += r.size[k] / resolved.length;
    for (const s of SYSTEMS) {
      scores[s].push(scoreRanking(r.ranked[s], relevantIds, s === 'brief' ? r.sent : undefined));
      ms[s] += r.ms[s];
    }
    r.briefs.forEach((b, i) => byBudget[i]!.push(scoreBrief(b.ranked, relevantIds, b.sent, b.size)));
    r.warnings.forEach((w) => warnings.add(`${query.id}: ${w}`));
    perQuery.push({ query, ranked: r.ranked });
  }
  const subset = (idx: number[]) =>
    Object.fromEntries(SYSTEMS.map((s) => [s, summarise(idx.map((i) => scores[s][i]!))])) as Record<SystemName, Summary>;
  const all = resolved.map((_, i) => i);
  const kinds: Partial<Breakdown> = { all: subset(all) };
  const groups: [keyof Breakdown, number[]][] = [['all', all]];
  for (const kind of QUERY_KINDS) {
    const idx = all.filter((i) => resolved[i]!.query.kind === kind);
    if (idx.length) {
      kinds[kind] = subset(idx);
      groups.push([kind, idx]);
    }
  }
  const brief_budgets = BRIEF_BUDGETS.map((budget, b) => ({
    budget,
    kinds: Object.fromEntries(groups.map(([kind, idx]) => [kind, summariseBudget(idx.map((i) => byBudget[b]![i]!))])),
  }));
  return {
    queries: queries.length,
    providers: { embedder: doco.providers.embedder.identity, store: doco.providers.store.kind, reranker: doco.providers.reranker.name },
    kinds,
    brief_budgets,
    brief_size: Object.fromEntries(Object.entries(size).map(([k, v]) => [k, Math.round(v * 10) / 10])) as CorpusResult['brief_size'],
    brief_steps_ms: Object.fromEntries([...steps].map(([k, v]) => [k, [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!])),
    ms_per_query: Object.fromEntries(SYSTEMS.map((s) => [s, round(ms[s] / Math.max(1, queries.length))])) as Record<SystemName, number>,
    warnings: [...warnings],
    misses: verbose ? formatMisses(perQuery, scores, ingest.ids) : '',
    queries_s: round((performance.now() - t0) / 1000),
  };
}

/** Boots and ingests one corpus, then runs every query set over it: one result per set. */
async function runCorpus(arg: CorpusArg, verbose: boolean, dump?: FeatureQuery[], withoutCodeTerms = false): Promise<CorpusResult[]> {
  const where = locate(arg);
  const t0 = performance.now();
  const corpus = await readCorpus(where.corpus);
  const records: FixtureRecord[] = where.records ? await readRecordsFile(where.records) : [];
  const sets = await Promise.all(where.queries.map(async (q) => ({ label: q.label, queries: await readQueries(q.file) })));
  if (corpus.sections.length + records.length === 0)
    throw new UsageError(`${where.corpus} holds no sections (README.md, CLAUDE.md or docs/**/*.md) and no records`);
  // Every set's labels are checked before anything boots.
  const known = new Set([...corpus.sections.map((s) => s.section_key), ...records.map((r) => r.key)]);
  const superseded = new Set(records.flatMap((r) => (r.supersedes ? [r.supersedes] : [])));
  for (const set of sets) checkTargets(set.queries, known, superseded);

  log(`${where.label}: booting a throwaway Doco…`);
  const doco = await startEvalDoco();
  // The cluster is this run's alone: stop it on Ctrl-C too.
  const onSignal = () => void doco.abort().finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const tBoot = performance.now();
    log(`${where.label}: ingesting ${corpus.sections.length} sections from ${corpus.files} files and ${records.length} records…`);
    const ingest = await ingestCorpus(doco, corpus.sections, records);
    const tIngest = performance.now();
    if (ingest.drain.failedRecords || ingest.outboxLeft)
      throw new Error(`the index drain left ${ingest.outboxLeft} outbox rows (${ingest.drain.failedRecords} records failed)`);
    const results: CorpusResult[] = [];
    for (const set of sets) {
      log(`${set.label}: running ${set.queries.length} queries…`);
      const { queries_s, ...r } = await runQuerySet(
        doco,
        ingest,
        set.queries,
        verbose,
        dump && { set: set.label, into: dump },
        withoutCodeTerms,
      );
      results.push({
        ...r,
        corpus: set.label,
        index: {
          files: corpus.files,
          sections: ingest.sections,
          records: ingest.records,
          edges: ingest.edges,
          chunks: ingest.drain.chunksEmbedded,
        },
        timings: { boot_s: round((tBoot - t0) / 1000), ingest_s: round((tIngest - tBoot) / 1000), queries_s },
      });
    }
    return results;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await doco.stop();
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2), findProjectRoot());
  // Never die of a closed stdout (`npm run eval -- --json | head`) before the clusters are stopped.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
  // Each corpus's first set in corpus order, then the later sets: readers that index `corpora`
  // by position see the same elements as before a corpus gained a second set.
  const first: CorpusResult[] = [];
  const later: CorpusResult[] = [];
  const dump: FeatureQuery[] | undefined = args.features ? [] : undefined;
  for (const c of args.corpora) {
    const [head, ...rest] = await runCorpus(c, args.verbose, dump, args.withoutCodeTerms);
    first.push(head!);
    later.push(...rest);
  }
  const results = [...first, ...later];
  if (args.features && dump) {
    await writeFile(args.features, `${JSON.stringify({ version: 1, queries: dump })}\n`);
    log(`features of ${dump.length} queries written to ${args.features}`);
  }
  if (args.json) {
    const corpora = results.map(({ misses: _m, ...r }) => r);
    process.stdout.write(`${JSON.stringify({ recall_at: RECALL_AT, code_terms: !args.withoutCodeTerms, corpora })}\n`);
    return;
  }
  for (const r of results) process.stdout.write(`${formatCorpus(r)}\n${args.verbose ? `\n${r.misses}\n` : ''}\n`);
}

// `npm run eval -- align …` is the documentation-alignment eval (eval/align.ts).
const run =
  process.argv[2] === 'align'
    ? import('./align.js').then(async (m) => void (process.exitCode = await m.runAlignEval(process.argv.slice(3))))
    : main();
run.catch((err) => {
  if (err instanceof UsageError) {
    if (err.message) process.stderr.write(`${err.message}\n`);
    process.stderr.write(`${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  process.stderr.write(`${err instanceof LabelError ? err.message : ((err as Error).stack ?? err)}\n`);
  process.exitCode = 1;
});
