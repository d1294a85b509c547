// The agent-hook benchmark: `doco hook prompt` end to end — process start to JSON out — in a
// checkout with history that `doco hooks install` set up, against a warm server holding a
// 10k-record corpus, and with the server down (it must give up fast and still exit 0). Each run is
// the command `doco hooks install` writes, run as the agents run it (`sh -c`), with this process's
// environment, started from a small process of its own (hook-driver.ts says why).
// DOCO_BENCH_HOOK_BASELINE=path/to/bin/doco.js (another build, e.g. a copy of bin/ and dist/ from
// before a change) runs that one too, each run beside one of this build's, so a noisy machine
// slows both alike: its figures are the baseline_* ones.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hookCommandLine } from '../src/hooks/install/common.js';
import { LOCAL_CONFIG_FILE } from '../src/hooks/local-config.js';
import { makeLog } from '../src/lib/log.js';
import { drainOutbox } from '../src/indexing/drain.js';
import type { HookResult, HookRun } from './hook-driver.js';
import { startBenchDoco } from './harness.js';
import { percentile, round } from './stats.js';
import { generateCorpus, loadCorpus } from './synthetic.js';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/doco.js');
const RUNS = 40;
const BASELINE = process.env.DOCO_BENCH_HOOK_BASELINE ? path.resolve(process.env.DOCO_BENCH_HOOK_BASELINE) : undefined;

const DRIVER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'hook-driver.js');

/** The shell line an agent runs for a prompt, as `doco hooks install` writes it for `bin`. */
function hookLine(cwd: string, bin: string): string {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return hookCommandLine(
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
}

/** Runs the hooks one after another from a process of their own (hook-driver.ts says why). */
function runApart(runs: HookRun[]): Promise<HookResult[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DRIVER], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as HookResult[]) : reject(new Error(`hook driver exited ${code}`))));
    child.stdin.end(JSON.stringify(runs));
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
    // The checkout as `doco hooks install` leaves it: the server and the agent's token in the git
    // directory, which is also where the hook may remember what it found.
    writeFileSync(
      path.join(repo, '.git', LOCAL_CONFIG_FILE),
      JSON.stringify({ url: doco.baseUrl, agents: { 'claude-code': { hook_token: doco.token } } }),
      { mode: 0o600 },
    );
    const env = { DOCO_HOME: path.join(repo, '.doco-home') };
    const payload = (i: number) =>
      JSON.stringify({
        session_id: `bench-${i}`,
        transcript_path: '/tmp/t.jsonl',
        cwd: repo,
        hook_event_name: 'UserPromptSubmit',
        prompt: corpus.asks[i % corpus.asks.length]!.about,
      });
    const bins = [BIN, ...(BASELINE ? [BASELINE] : [])];
    const hookEnv = (extra: NodeJS.ProcessEnv) => {
      const { DOCO_URL: _url, DOCO_TOKEN: _token, ...rest } = process.env;
      return { ...rest, ...env, ...extra };
    };
    // Each of this build's runs beside the baseline's, so a noisy machine slows both alike.
    const upRuns = Array.from({ length: RUNS + 3 }, (_, i) =>
      bins.map((bin) => ({ line: hookLine(repo, bin), cwd: repo, env: hookEnv({}), stdin: payload(i) })),
    ).flat();
    const up = await runApart(upRuns);
    const warm: number[] = [];
    const baseWarm: number[] = [];
    up.forEach((r, k) => {
      const bin = bins[k % bins.length]!;
      if (r.code !== 0 || !r.stdout.includes('additionalContext'))
        throw new Error(`${bin}: hook gave no context (exit ${r.code}): ${r.stdout.slice(0, 200)}`);
      if (k >= 3 * bins.length) (bin === BIN ? warm : baseWarm).push(r.ms);
    });
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
    const deadUrl = `http://127.0.0.1:${await closedPort()}`;
    const downRuns = Array.from({ length: RUNS }, (_, i) =>
      bins.map((bin) => ({ line: hookLine(repo, bin), cwd: repo, env: hookEnv({ DOCO_URL: deadUrl }), stdin: payload(i) })),
    ).flat();
    const down: number[] = [];
    const baseDown: number[] = [];
    (await runApart(downRuns)).forEach((r, k) => {
      const bin = bins[k % bins.length]!;
      if (r.code !== 0) throw new Error(`${bin}: hook exited ${r.code} with the server down`);
      (bin === BIN ? down : baseDown).push(r.ms);
    });
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
