// The retrieval eval's command line: which corpora to boot and which labelled query sets to run
// over each. A corpus is booted and ingested once; every query set over it is scored on that
// one index and reported as its own result.
import { existsSync } from 'node:fs';
import path from 'node:path';

/** One labelled query set over a corpus; `name` tells the sets of one corpus apart in the report. */
export interface QuerySetArg {
  file: string;
  name: string | undefined;
}

export interface CorpusArg {
  corpus: string;
  /** Empty: the corpus's own doco-queries.json or queries.json. */
  queries: QuerySetArg[];
  records: string | undefined;
}

export interface Args {
  corpora: CorpusArg[];
  json: boolean;
  verbose: boolean;
  /** Write every query's rerank pool with its evidence and labels here (eval/fit-weights.ts reads it). */
  features: string | undefined;
  /** Ask edit asks without the code terms their hook events carry: the code evidence off. */
  withoutCodeTerms: boolean;
}

export const USAGE =
  'usage: npm run eval -- [--corpus DIR [--queries FILE]… [--records FILE]]… [--shared DIR] [--json] [--verbose] [--features FILE] [--without-code-terms]';

export class UsageError extends Error {}

/**
 * The real corpora of ../shared/eval and the labels we wrote for them. Set A is the first set
 * (its result keeps the corpus's plain label); set B was written later, by the same rules, to
 * guard against tuning to set A; set C later still (session 8), blind to every system's output,
 * after sets A and B had been tuned against for four sessions. The edit asks (issue 27) carry the
 * code an edit hook event would: labelled from the real repositories' code before anything ran;
 * edit asks B later (session 20), by the same rules, in other files, to check what set A chose.
 */
export const SHARED_CORPORA = [
  {
    dir: 'cometbft-docs',
    queries: [
      { file: 'eval/queries/cometbft-docs.json', name: undefined },
      { file: 'eval/queries/cometbft-docs-b.json', name: 'set B' },
      { file: 'eval/queries/cometbft-docs-c.json', name: 'set C' },
      { file: 'eval/queries/cometbft-edits.json', name: 'edits' },
      { file: 'eval/queries/cometbft-edits-b.json', name: 'edits B' },
    ],
  },
  {
    dir: 'cortex-docs',
    queries: [
      { file: 'eval/queries/cortex-docs.json', name: undefined },
      { file: 'eval/queries/cortex-docs-b.json', name: 'set B' },
      { file: 'eval/queries/cortex-docs-c.json', name: 'set C' },
      { file: 'eval/queries/cortex-edits.json', name: 'edits' },
      { file: 'eval/queries/cortex-edits-b.json', name: 'edits B' },
    ],
  },
];

/** A second or later `--queries` after one `--corpus` is named after its file. */
const setName = (file: string, index: number) => (index === 0 ? undefined : path.basename(file, '.json'));

export function parseArgs(argv: string[], root: string): Args {
  const args: Args = { corpora: [], json: false, verbose: false, features: undefined, withoutCodeTerms: false };
  let shared: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (!v || v.startsWith('--')) throw new UsageError(`${a} needs a value`);
      return v;
    };
    const last = () => {
      const c = args.corpora.at(-1);
      if (!c) throw new UsageError(`${a} belongs after a --corpus`);
      return c;
    };
    if (a === '--corpus') args.corpora.push({ corpus: value(), queries: [], records: undefined });
    else if (a === '--queries') {
      const c = last();
      const file = value();
      c.queries.push({ file, name: setName(file, c.queries.length) });
    } else if (a === '--records') last().records = value();
    else if (a === '--shared') shared = value();
    else if (a === '--features') args.features = value();
    else if (a === '--json') args.json = true;
    else if (a === '--without-code-terms') args.withoutCodeTerms = true;
    else if (a === '--verbose' || a === '-v') args.verbose = true;
    else if (a === '--help' || a === '-h') throw new UsageError('');
    else throw new UsageError(`unknown argument ${a}`);
  }
  if (shared || args.corpora.length === 0)
    args.corpora.unshift({ corpus: path.join(root, 'eval', 'fixtures', 'ledger'), queries: [], records: undefined });
  if (shared) {
    for (const c of SHARED_CORPORA) {
      const dir = path.join(shared, c.dir);
      if (!existsSync(dir)) throw new UsageError(`--shared ${shared}: no ${c.dir} there`);
      args.corpora.push({
        corpus: dir,
        queries: c.queries.map((q) => ({ file: path.join(root, q.file), name: q.name })),
        records: undefined,
      });
    }
  }
  return args;
}
