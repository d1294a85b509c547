// Runs `doco hook` commands one after another and prints how long each took, as JSON: the hook
// bench's runs, started from this small process rather than from the bench's own. An agent's hook
// is never a child of the Doco server; when the bench's process (which serves the 10k-record
// corpus) forked every hook itself, each fork marked its pages copy-on-write and the server's
// next writes took ~1,000 page faults, ~15-20 ms of every answer (docs/eval.md, "Session 38").
// Usage: node dist/bench/hook-driver.js < runs.json, where runs.json is HookRun[].
import { spawn } from 'node:child_process';

export interface HookRun {
  /** The shell line to run (`sh -c`), as `doco hooks install` writes it. */
  line: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin: string;
}

export interface HookResult {
  ms: number;
  code: number | null;
  stdout: string;
}

function runOne(run: HookRun): Promise<HookResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('sh', ['-c', run.line], { cwd: run.cwd, env: run.env, stdio: ['pipe', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ ms: performance.now() - started, code, stdout }));
    child.stdin.end(run.stdin);
  });
}

async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const runs = JSON.parse(Buffer.concat(chunks).toString('utf8')) as HookRun[];
  const results: HookResult[] = [];
  for (const run of runs) results.push(await runOne(run));
  process.stdout.write(JSON.stringify(results));
}

main().catch((err) => {
  process.stderr.write(`hook-driver: ${(err as Error).message}\n`);
  process.exit(1);
});
