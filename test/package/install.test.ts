// A first contact, as a user would have it: the tarball `npm pack` makes (what a registry would
// serve) installed with `npm install -g` into an empty prefix, HOME a temp folder, nothing but
// that prefix's `doco` on PATH (no npx, no checkout). `doco serve` runs from one folder; from
// another a token is made; in a new git checkout `doco hooks install --agent claude-code` runs
// with no flags, the hooks it wrote run, `doco hooks status` checks them, and a brief is asked.
// Nothing may print a stack trace. npm reads packages from the cache `npm ci` filled, and asks
// the registry for what is missing there through the running shell's proxy and CA (npmNetwork).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, waitFor } from '../helpers/doco-process.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const npmCache = process.env.npm_config_cache || path.join(os.homedir(), '.npm');

let tmp: string;
let prefix: string;
let home: string;
let server: ChildProcess | undefined;
let serverLog = '';
let port: number;

/** Only what a user's shell would have: PATH with the installed prefix first, HOME, no DOCO_* at all. */
function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: [path.join(prefix, 'bin'), path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(path.delimiter),
    HOME: home,
    LANG: 'C.UTF-8',
    DOCO_PORT: String(port),
    ...extra,
  };
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, input = '', extra: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: userEnv(extra), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

const doco = (args: string[], cwd: string, input = '') => run('doco', args, cwd, input);
const noStack = (r: Ran) => expect(`${r.stdout}${r.stderr}`).not.toMatch(/^\s+at /m);

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'doco-package-'));
  await chmod(tmp, 0o755); // as root, Postgres runs as the OS user postgres: it must enter every parent of the home
  prefix = path.join(tmp, 'prefix');
  home = path.join(tmp, 'home');
  await mkdir(prefix);
  await mkdir(home, { mode: 0o755 });
  port = await freePort();
  // dist/ is built by `npm test` before vitest runs; --ignore-scripts keeps pack from building again.
  const packed = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', tmp], { cwd: REPO, encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop()!;
  // Bounded: npm retries a registry it cannot reach for half an hour, and a synchronous call
  // holds vitest's hook timeout off meanwhile.
  execFileSync(
    'npm',
    ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', path.join(tmp, packed)],
    { env: { ...userEnv(), ...npmNetwork(), npm_config_cache: npmCache }, stdio: ['ignore', 'ignore', 'pipe'], timeout: 180_000 },
  );
}, 240_000);

/**
 * How the shell running the tests reaches the npm registry (its proxy, its CA bundle, its npm
 * configuration with any mirror): npm may ask the registry for what its cache lacks, and a user's
 * npm has these from the same shell, though HOME here is a temp folder. Without them, behind a
 * proxy that re-signs TLS, npm fails every fetch with SELF_SIGNED_CERT_IN_CHAIN.
 */
function npmNetwork(): NodeJS.ProcessEnv {
  const passed =
    /^(node_extra_ca_certs|ssl_cert_file|ssl_cert_dir|https?_proxy|no_proxy|npm_config_(registry|cafile|ca|proxy|https_proxy|noproxy|strict_ssl|userconfig))$/i;
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => passed.test(name)));
}

afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await waitFor('doco serve to stop', () => server!.exitCode !== null || server!.signalCode !== null, 60_000).catch(() =>
      server!.kill('SIGKILL'),
    );
  }
  if (tmp) await rm(tmp, { recursive: true, force: true });
}, 90_000);

describe('the packed package, installed globally', () => {
  it('puts a working doco on PATH, whose help needs no database', async () => {
    expect(existsSync(path.join(prefix, 'bin', 'doco'))).toBe(true);
    const r = await doco(['--help'], tmp);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('DOCO_HOME');
  });

  it('carries the postgres.js fixes in its installed driver (scripts/patch-postgres.cjs, run by npm as postinstall)', () => {
    const driver = path.join(prefix, 'lib', 'node_modules', 'doco', 'node_modules', 'postgres');
    for (const file of [
      'src/connection.js',
      'cjs/src/connection.js',
      'cf/src/connection.js',
      'src/index.js',
      'cjs/src/index.js',
      'cf/src/index.js',
    ])
      expect(readFileSync(path.join(driver, file), 'utf8'), file).toContain('doco: scripts/patch-postgres.cjs');
  });

  it('serves from one folder, on the per-user home under ~/.local/share/doco', async () => {
    const servingFrom = path.join(tmp, 'somewhere');
    await mkdir(servingFrom);
    server = spawn('doco', ['serve'], { cwd: servingFrom, env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout!.on('data', (d) => (serverLog += d));
    server.stderr!.on('data', (d) => (serverLog += d));
    await waitFor(
      'doco serve to be ready',
      () => {
        if (server!.exitCode !== null) throw new Error(`doco serve exited ${server!.exitCode}: ${serverLog.slice(-3000)}`);
        return /serving REST/.test(serverLog);
      },
      120_000,
    );
    const docoHome = path.join(home, '.local', 'share', 'doco');
    expect(existsSync(path.join(docoHome, 'server.json'))).toBe(true);
    expect(existsSync(path.join(servingFrom, '.doco'))).toBe(false);
    expect(serverLog).not.toMatch(/^\s+at /m);
  }, 150_000);

  it('makes a token from another folder, against the running server, without a new database', async () => {
    const elsewhere = path.join(tmp, 'elsewhere');
    await mkdir(elsewhere);
    const r = await doco(['token', 'create', '--scope', 'write', '--label', 'first contact'], elsewhere);
    noStack(r);
    expect(r.code).toBe(0);
    const token = r.stdout.trim().split('\n').pop()!;
    expect(token).toMatch(/^doco_/);
    expect(existsSync(path.join(elsewhere, '.doco'))).toBe(false);
    const who = await fetch(`http://127.0.0.1:${port}/api/v1/whoami`, { headers: { authorization: `Bearer ${token}` } });
    expect(who.status).toBe(200);
    // A rule for the brief below to find, written with that token.
    const capture = await fetch(`http://127.0.0.1:${port}/api/v1/capture`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        collection: 'constitution',
        node_type: 'rule',
        title: 'Refunds above 500 EUR need a second approver',
        prose: 'Every refund above 500 EUR is approved by a second person before it is paid.',
        body: { statement: 'Refunds above 500 EUR need a second approver.', severity: 'must' },
      }),
    });
    expect(capture.status, await capture.clone().text()).toBeLessThan(300);
  });

  it('attaches Claude Code in a new git checkout with no flags; its hooks run the installed doco', async () => {
    const repo = path.join(tmp, 'shop');
    await mkdir(repo);
    execFileSync('git', ['init', '-q'], { cwd: repo });
    const install = await doco(['hooks', 'install', '--agent', 'claude-code'], repo);
    noStack(install);
    expect(install.code, install.stderr).toBe(0);
    expect(install.stdout).toContain('agent:claude-code@shop');
    const settings = JSON.parse(readFileSync(path.join(repo, '.claude', 'settings.local.json'), 'utf8')) as {
      hooks: Record<string, { hooks: { command: string }[] }[]>;
    };
    const prompt = settings.hooks.UserPromptSubmit![0]!.hooks[0]!.command;
    // The installed doco on PATH, by its path: it stays put when the package is upgraded. Node
    // starts without NODE_EXTRA_CA_CERTS (src/hooks/install/common.ts).
    expect(prompt).toBe(
      `DOCO_EXTRA_CA_CERTS="$NODE_EXTRA_CA_CERTS" NODE_EXTRA_CA_CERTS= ${path.join(prefix, 'bin', 'doco')} hook prompt --agent claude-code`,
    );
    expect(statSync(path.join(repo, '.git', 'doco-hooks.json')).mode & 0o777).toBe(0o600);

    const hook = await run(
      'bash',
      ['-c', prompt],
      repo,
      JSON.stringify({ session_id: 's1', prompt: 'who approves a refund above 500 EUR?', cwd: repo }),
    );
    expect(hook.code).toBe(0);
    noStack(hook);
    const answer = JSON.parse(hook.stdout) as { hookSpecificOutput: { additionalContext: string } };
    expect(answer.hookSpecificOutput.additionalContext).toContain('second approver');

    const status = await doco(['hooks', 'status'], repo);
    noStack(status);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/hook token: works/);
  });

  it('asks a brief from the checkout', async () => {
    const r = await doco(['brief', 'refund approval'], path.join(tmp, 'shop'));
    noStack(r);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Refunds above 500 EUR need a second approver');
  });
});
