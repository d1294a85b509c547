// `node dist/eval/compare.js BASE.json VARIANT.json [--system NAME]`: eval/compare-runs.ts's
// comparison of two eval runs, printed. Exit code 0 when the variant meets the keep rule, 1 when
// it does not, 2 for a bad argument or file (one line of message, no stack).
import { readFileSync } from 'node:fs';
import { compareRuns, formatComparison, type RunSet } from './compare-runs.js';

const USAGE = 'usage: node dist/eval/compare.js BASE.json VARIANT.json [--system NAME]';

class ArgumentError extends Error {}
class FileError extends Error {}

function readRun(file: string): RunSet[] {
  const run = JSON.parse(readFileSync(file, 'utf8')) as { corpora?: unknown };
  if (!Array.isArray(run.corpora) || !run.corpora.every((c) => typeof c?.corpus === 'string' && typeof c?.kinds === 'object')) {
    throw new FileError(`${file} is not the JSON of \`npm run eval -- --json\` (no corpora with kinds)`);
  }
  return run.corpora as RunSet[];
}

function main(argv: string[]): number {
  const files: string[] = [];
  let system = 'brief';
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--system') {
      const v = argv[++i];
      if (!v || v.startsWith('--')) throw new ArgumentError('--system needs a value');
      system = v;
    } else if (argv[i]!.startsWith('--')) throw new ArgumentError(`${argv[i]}: not understood`);
    else files.push(argv[i]!);
  }
  if (files.length !== 2) throw new ArgumentError('two files are needed, the base run and the variant');
  const c = compareRuns(readRun(files[0]!), readRun(files[1]!), system);
  if (!c.cells.length) throw new FileError(`the two runs share no set with figures for ${system}`);
  process.stdout.write(`${formatComparison(c, system)}\n`);
  return c.met ? 0 : 1;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (err) {
  // An argument misread gets the usage too; a file that cannot be used, just what is wrong with it.
  const usage = err instanceof ArgumentError ? `\n${USAGE}` : '';
  process.stderr.write(`compare: ${(err as Error).message}${usage}\n`);
  process.exitCode = 2;
}
