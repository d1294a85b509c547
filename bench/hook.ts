// The agent-hook benchmark: `doco hook prompt` end to end — process start to JSON out — in a
// checkout with history (both of the hook's git runs happen), against a warm server holding a
// 10k-record corpus, and with the server down (it must give up fast
// and still exit 0). Each run is the command `doco hooks install` writes, run as the agents run
// it (`sh -c`), with this process's environment. DOCO_BENCH_HOOK_BASELINE=path/to/bin/doco.js (another build, e.g. a copy of
// bin/ and dist/ from before a change) runs that one too, each run beside one of this build's,
// so a noisy machine slows both alike: its figures are the baseline_* ones.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hookCommandLine } from '../src/hooks/install/common.js';
import { makeLog } from '../src/lib/log.js';
import { drainOutbox } from '../src/indexing/drain.js';
import { startBenchDoco } from './harness.js';
import { percentile, round } from './stats.js';
import { generateCorpus, loadCorpus } from './synthetic.js';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/doco.js');
const RUNS = 40;
const BASELINE = process.env.DOCO_BENCH_HOOK_BASELINE ? path.resolve(process.env.DOCO_BENCH_HOOK_BASELINE) : undefined;

function runHook(
  cwd: string,
  env: NodeJS.ProcessEnv,
  stdin: string,
  bin = BIN,
): Promise<{ ms: number; code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const line = hookCommandLine(
      {
        root: cwd,
        url: '',
        token: '',
        mcpToken: '',
        refused: new Set(),
        docoCommand: `${quote(process.execPath)} ${quote(bin)}`,
        docoArgv: [process.execPath, bin],
        http: false,
      },
      'claude-code',
      'prompt',
    );
    const started = performance.now();
    const child = spawn('sh', ['-c', line], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ ms: performance.now() - started, code, stdout }));
    child.stdin.end(stdin);
  });
}

const closedPort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

/** Files in the bench's checkout: a small project's worth, so git's look at the work tree costs what it does there. */
const CHECKOUT_FILES = 400;

/**
 * A checkout as an agent's is: commits, a file deleted in the history and one since the last
 * commit. On an unborn HEAD (a bare `git init`) the hook asks git once, not twice, and sends no
 * deleted files: the figures would leave out the `diff HEAD` every real prompt pays.
 */
function checkoutWithHistory(repo: string): void {
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', '-c', 'commit.gpgsign=false', ...args], {
      cwd: repo,
      stdio: 'ignore',
    });
  git('init', '-q');
  for (let i = 0; i < CHECKOUT_FILES; i++) {
    const dir = path.join(repo, 'src', `area-${i % 20}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `module-${i}.ts`), `export const value${i} = ${i};\n`);
  }
  git('add', '-A');
  git('commit', '-q', '-m', 'the project');
  git('rm', '-q', 'src/area-0/module-0.ts');
  git('commit', '-q', '-m', 'a file deleted in the history');
  rmSync(path.join(repo, 'src', 'area-1', 'module-1.ts'));
}

export async function hookSuite(log: (line: string) => void): Promise<Record<string, number>> {
  const doco = await startBenchDoco();
  const repo = await mkdtemp(path.join(os.tmpdir(), 'doco-bench-hook-'));
  try {
    checkoutWithHistory(repo);
    const corpus = generateCorpus(10_000);
    log('loading and indexing a 10k-record corpus…');
    await loadCorpus(doco.sql, doco.workspaceId, corpus);
    await drainOutbox({ sql: doco.sql, log: makeLog('warn'), ...doco.providers }, { batchSize: 500 });
    await doco.sql`analyze`;
    const env = { DOCO_URL: doco.baseUrl, DOCO_TOKEN: doco.token, DOCO_HOME: path.join(repo, '.doco-home') };
    const payload = (i: number) =>
      JSON.stringify({
        session_id: `bench-${i}`,
        transcript_path: '/tmp/t.jsonl',
        cwd: repo,
        hook_event_name: 'UserPromptSubmit',
        prompt: corpus.asks[i % corpus.asks.length]!.about,
      });
    const warm: number[] = [];
    const baseWarm: number[] = [];
    for (let i = 0; i < RUNS + 3; i++) {
      for (const [bin, into] of [[BIN, warm], ...(BASELINE ? [[BASELINE, baseWarm]] : [])] as [string, number[]][]) {
        const r = await runHook(repo, env, payload(i), bin);
        if (r.code !== 0 || !r.stdout.includes('additionalContext'))
          throw new Error(`${bin}: hook gave no context (exit ${r.code}): ${r.stdout.slice(0, 200)}`);
        if (i >= 3) into.push(r.ms);
      }
    }
    // The server's share alone: the same call without a process start (the rest is the hook's own).
    const endpoint: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      const res = await fetch(`${doco.baseUrl}/api/v1/hooks/claude-code/prompt`, {
        method: 'POST',
        headers: { authorization: `Bearer ${doco.token}`, 'content-type': 'application/json' },
        body: payload(RUNS + 10 + i),
      });
      await res.text();
      endpoint.push(performance.now() - started);
    }
    const down: number[] = [];
    const baseDown: number[] = [];
    const deadUrl = `http://127.0.0.1:${await closedPort()}`;
    for (let i = 0; i < RUNS; i++) {
      for (const [bin, into] of [[BIN, down], ...(BASELINE ? [[BASELINE, baseDown]] : [])] as [string, number[]][]) {
        const r = await runHook(repo, { ...env, DOCO_URL: deadUrl }, payload(i), bin);
        if (r.code !== 0) throw new Error(`${bin}: hook exited ${r.code} with the server down`);
        into.push(r.ms);
      }
    }
    const figures = (prefix: string, up: number[], dead: number[]) => ({
      [`${prefix}hook_prompt_p50_ms`]: round(percentile(up, 50)),
      [`${prefix}hook_prompt_p95_ms`]: round(percentile(up, 95)),
      [`${prefix}hook_server_down_p50_ms`]: round(percentile(dead, 50)),
      [`${prefix}hook_server_down_ms`]: round(percentile(dead, 95)),
    });
    return {
      ...figures('', warm, down),
      hook_endpoint_p50_ms: round(percentile(endpoint, 50)),
      hook_endpoint_p95_ms: round(percentile(endpoint, 95)),
      ...(BASELINE ? figures('baseline_', baseWarm, baseDown) : {}),
    };
  } finally {
    await rm(repo, { recursive: true, force: true });
    await doco.stop();
  }
}
