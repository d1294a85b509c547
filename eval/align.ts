// `npm run eval -- align [--shared DIR] [--corpus DIR --changes FILE]… [--json] [--verbose]`: the
// documentation-alignment eval. For each corpus it boots a throwaway Doco, ingests the docs tree
// as the retrieval eval does, runs every labelled change through the real scan (and through each
// of its signals alone), and prints precision@5 and recall@5 of the sections it ranks first.
// With no corpus flags it runs the built-in fixture (eval/fixtures/align); `--shared DIR` adds
// the CometBFT docs with the labels in eval/queries/cometbft-align.json.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as v from 'valibot';
import { alignChanges, type AlignSignals } from '../src/align/scan.js';
import type { AlignReport, Confidence } from '../src/align/report.js';
import { findProjectRoot } from '../src/lib/project-root.js';
import { readCorpus } from '../src/ingest/docs/sections.js';
import { startEvalDoco } from './harness.js';
import { ingestCorpus } from './ingest.js';
import { checkTargets } from './queries.js';

export const AT = 5;

const ChangeSchema = v.object({
  id: v.pipe(v.string(), v.minLength(1)),
  note: v.optional(v.string()),
  changed: v.pipe(v.array(v.object({ path: v.pipe(v.string(), v.minLength(1)), patch: v.optional(v.string()) })), v.minLength(1)),
  relevant: v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.minLength(1, 'needs at least one expected section')),
});
const FileSchema = v.object({ note: v.optional(v.string()), changes: v.array(ChangeSchema) });
type LabelledChange = v.InferOutput<typeof ChangeSchema>;

const SHARED = [{ dir: 'cometbft-docs', changes: 'eval/queries/cometbft-align.json' }];

const SYSTEMS: Record<string, AlignSignals> = {
  scan: { paths: true, names: true, semantic: true },
  paths_only: { paths: true, names: false, semantic: false },
  names_only: { paths: false, names: true, semantic: false },
  semantic_only: { paths: false, names: false, semantic: true },
};
type SystemName = keyof typeof SYSTEMS;

class AlignUsageError extends Error {}

interface CorpusArg {
  corpus: string;
  changes: string;
}

function parseAlignArgs(argv: string[]): { corpora: CorpusArg[]; json: boolean; verbose: boolean } {
  const root = findProjectRoot();
  const corpora: CorpusArg[] = [];
  let shared: string | undefined;
  let json = false;
  let verbose = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const val = argv[++i];
      if (!val || val.startsWith('--')) throw new AlignUsageError(`${a} needs a value`);
      return val;
    };
    if (a === '--shared') shared = value();
    else if (a === '--corpus') corpora.push({ corpus: value(), changes: '' });
    else if (a === '--changes') {
      const last = corpora.at(-1);
      if (!last) throw new AlignUsageError('--changes belongs after a --corpus');
      last.changes = value();
    } else if (a === '--json') json = true;
    else if (a === '--verbose' || a === '-v') verbose = true;
    else throw new AlignUsageError(`unknown argument ${a}`);
  }
  for (const c of corpora) if (!c.changes) c.changes = path.join(c.corpus, 'changes.json');
  if (shared || !corpora.length)
    corpora.unshift({
      corpus: path.join(root, 'eval', 'fixtures', 'align'),
      changes: path.join(root, 'eval', 'fixtures', 'align', 'changes.json'),
    });
  if (shared) {
    for (const s of SHARED) {
      const dir = path.join(shared, s.dir);
      if (!existsSync(dir)) throw new AlignUsageError(`--shared ${shared}: no ${s.dir} there`);
      corpora.push({ corpus: dir, changes: path.join(root, s.changes) });
    }
  }
  for (const c of corpora) {
    if (!existsSync(c.corpus)) throw new AlignUsageError(`no corpus at ${c.corpus}`);
    if (!existsSync(c.changes)) throw new AlignUsageError(`no labelled changes at ${c.changes}`);
  }
  return { corpora, json, verbose };
}

async function readChanges(file: string): Promise<LabelledChange[]> {
  const parsed = v.safeParse(FileSchema, JSON.parse(await readFile(file, 'utf8')));
  if (!parsed.success) throw new Error(`${file}: ${parsed.issues.map((i) => `${v.getDotPath(i) ?? '?'}: ${i.message}`).join('; ')}`);
  return parsed.output.changes;
}

/** A report's sections across its files, each at its best score, best first (section_keys). */
export function rankedSections(report: AlignReport): { key: string; confidence: Confidence }[] {
  const best = new Map<string, { score: number; confidence: Confidence }>();
  for (const f of report.files)
    for (const e of f.expectations)
      if (e.score > (best.get(e.section_key)?.score ?? -1)) best.set(e.section_key, { score: e.score, confidence: e.confidence });
  return [...best.entries()]
    .sort((a, b) => b[1].score - a[1].score || a[0].localeCompare(b[0]))
    .map(([key, x]) => ({ key, confidence: x.confidence }));
}

interface SystemSummary {
  precision_at_5: number;
  recall_at_5: number;
  /** Precision over what the top 5 holds when the scan returns fewer than 5. */
  precision_of_returned_at_5: number;
  /** Of all the expectations at this confidence or above, the share that are labelled. */
  high_precision: number;
  high_count: number;
  medium_up_precision: number;
  medium_up_count: number;
  /** Changes with nothing found. */
  empty: number;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

function summarise(rankings: { key: string; confidence: Confidence }[][], changes: LabelledChange[]): SystemSummary {
  let p = 0;
  let r = 0;
  let pr = 0;
  let prN = 0;
  let high = 0;
  let highHit = 0;
  let mid = 0;
  let midHit = 0;
  rankings.forEach((ranking, i) => {
    const relevant = new Set(changes[i]!.relevant);
    const top = ranking.slice(0, AT);
    const hits = top.filter((x) => relevant.has(x.key)).length;
    p += hits / AT;
    r += hits / relevant.size;
    if (top.length) {
      pr += hits / top.length;
      prN++;
    }
    for (const x of ranking) {
      if (x.confidence === 'high') {
        high++;
        if (relevant.has(x.key)) highHit++;
      }
      if (x.confidence !== 'low') {
        mid++;
        if (relevant.has(x.key)) midHit++;
      }
    }
  });
  const n = Math.max(1, changes.length);
  return {
    precision_at_5: round(p / n),
    recall_at_5: round(r / n),
    precision_of_returned_at_5: round(prN ? pr / prN : 0),
    high_precision: round(high ? highHit / high : 0),
    high_count: high,
    medium_up_precision: round(mid ? midHit / mid : 0),
    medium_up_count: mid,
    empty: rankings.filter((x) => !x.length).length,
  };
}

interface AlignCorpusResult {
  corpus: string;
  changes: number;
  sections: number;
  systems: Record<SystemName, SystemSummary>;
  ms_per_change: number;
  misses: string[];
}

async function runCorpus(arg: CorpusArg, verbose: boolean): Promise<AlignCorpusResult> {
  const label = path.relative(process.cwd(), path.resolve(arg.corpus)) || '.';
  const corpus = await readCorpus(arg.corpus);
  const changes = await readChanges(arg.changes);
  checkTargets(
    changes.map((c) => ({ id: c.id, kind: undefined, about: c.id, touching: [], relevant: c.relevant })),
    new Set(corpus.sections.map((s) => s.section_key)),
    new Set(),
  );
  process.stderr.write(`${label}: booting a throwaway Doco and ingesting ${corpus.sections.length} sections…\n`);
  const doco = await startEvalDoco();
  try {
    await ingestCorpus(doco, corpus.sections, []);
    const deps = { sql: doco.sql, embedder: doco.providers.embedder, store: doco.providers.store };
    const systems = {} as Record<SystemName, SystemSummary>;
    const misses: string[] = [];
    let ms = 0;
    for (const [name, signals] of Object.entries(SYSTEMS)) {
      const rankings = [];
      for (const c of changes) {
        const t0 = performance.now();
        const report = await alignChanges(deps, doco.workspaceId, { changed: c.changed }, signals);
        if (name === 'scan') ms += performance.now() - t0;
        const ranking = rankedSections(report);
        rankings.push(ranking);
        if (name === 'scan' && verbose) {
          const top = ranking.slice(0, AT).map((x) => `${c.relevant.includes(x.key) ? '+' : '-'} ${x.confidence} ${x.key}`);
          const missed = c.relevant.filter((k) => !ranking.slice(0, AT).some((x) => x.key === k)).map((k) => `  missed ${k}`);
          misses.push(
            `${c.id} ${c.changed.map((f) => f.path).join(', ')}\n  ${top.join('\n  ')}${missed.length ? `\n${missed.join('\n')}` : ''}`,
          );
        }
      }
      systems[name] = summarise(rankings, changes);
    }
    return {
      corpus: label,
      changes: changes.length,
      sections: corpus.sections.length,
      systems,
      ms_per_change: round(ms / Math.max(1, changes.length)),
      misses,
    };
  } finally {
    await doco.stop();
  }
}

function format(r: AlignCorpusResult): string {
  const out = [`Doco alignment eval — ${r.corpus} (${r.changes} changes, ${r.sections} sections)`, ''];
  out.push(
    `${'system'.padEnd(15)}${'P@5'.padStart(7)}${'R@5'.padStart(7)}${'P@5 ret'.padStart(9)}${'high: prec (n)'.padStart(17)}${'med+: prec (n)'.padStart(17)}${'empty'.padStart(7)}`,
  );
  for (const [name, s] of Object.entries(r.systems)) {
    out.push(
      `${name.padEnd(15)}${s.precision_at_5.toFixed(3).padStart(7)}${s.recall_at_5.toFixed(3).padStart(7)}${s.precision_of_returned_at_5.toFixed(3).padStart(9)}` +
        `${`${s.high_precision.toFixed(3)} (${s.high_count})`.padStart(17)}${`${s.medium_up_precision.toFixed(3)} (${s.medium_up_count})`.padStart(17)}${String(s.empty).padStart(7)}`,
    );
  }
  out.push('', `P@5: labelled sections among the top 5 / 5; P@5 ret: / what the top 5 holds; scan: ${r.ms_per_change} ms per change`);
  if (r.misses.length) out.push('', ...r.misses);
  return out.join('\n');
}

export async function runAlignEval(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseAlignArgs(argv);
  } catch (err) {
    if (!(err instanceof AlignUsageError)) throw err;
    process.stderr.write(
      `${err.message}\nusage: npm run eval -- align [--shared DIR] [--corpus DIR [--changes FILE]]… [--json] [--verbose]\n`,
    );
    return 2;
  }
  const results: AlignCorpusResult[] = [];
  for (const c of args.corpora) results.push(await runCorpus(c, args.verbose));
  if (args.json) process.stdout.write(`${JSON.stringify({ at: AT, corpora: results.map(({ misses: _m, ...r }) => r) })}\n`);
  else for (const r of results) process.stdout.write(`${format(r)}\n\n`);
  return 0;
}
