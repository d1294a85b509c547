// `npm run bench -- SUITE [--json]`: runs one benchmark suite and prints its named figures.
import { bm25Suite } from './bm25.js';
import { briefSuite } from './brief.js';
import { connectorsSuite } from './connectors.js';
import { consoleSuite } from './console.js';
import { duplicatesSuite } from './duplicates.js';
import { hookSuite } from './hook.js';
import { indexMemorySuite } from './index-memory.js';
import { ingestSuite } from './ingest.js';
import { loadSuite } from './load.js';
import { secretsSuite } from './secrets.js';
import { sketchScanSuite } from './sketch-scan.js';
import { calibrationMs } from './calibration.js';
import { round } from './stats.js';
import { BenchUsageError } from './usage-error.js';
import { writesSuite } from './writes.js';
import { tuneV8ForServing } from '../src/lib/v8-tuning.js';

type Suite = (log: (line: string) => void, args: string[]) => Promise<Record<string, number>>;

const suites: Record<string, Suite> = {
  writes: writesSuite,
  brief: briefSuite,
  bm25: bm25Suite,
  ingest: ingestSuite,
  hook: hookSuite,
  secrets: secretsSuite,
  sketch: sketchScanSuite,
  'index-memory': indexMemorySuite,
  load: loadSuite,
  connectors: connectorsSuite,
  console: consoleSuite,
  duplicates: duplicatesSuite,
};

async function main() {
  // The suites host the server in this process: with the V8 settings `doco serve` runs with.
  tuneV8ForServing();
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const name = args.find((a) => !a.startsWith('--'));
  const suite = name ? suites[name] : undefined;
  if (!suite) {
    process.stderr.write(`usage: npm run bench -- ${Object.keys(suites).join('|')} [--json]\n`);
    process.exitCode = 2;
    return;
  }
  const log = (line: string) => process.stderr.write(`${line}\n`);
  // The machine's speed before and after (calibration.ts): a busier machine reads higher.
  const before = calibrationMs();
  const figures = { ...(await suite(log, args)), calibration_ms_before: round(before), calibration_ms_after: round(calibrationMs()) };
  if (json) process.stdout.write(`${JSON.stringify(figures)}\n`);
  else for (const [k, v] of Object.entries(figures)) process.stdout.write(`${k.padEnd(32)} ${v}\n`);
}

main().catch((err) => {
  const usage = err instanceof BenchUsageError;
  process.stderr.write(usage ? `bench: ${err.message}\n` : `${(err as Error).stack ?? err}\n`);
  process.exitCode = usage ? 2 : 1;
});
