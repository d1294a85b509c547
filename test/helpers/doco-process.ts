// Real `doco` processes for the crash suite: each on its own DOCO_HOME in a temp dir (its own
// embedded Postgres), a free loopback port, killed for real with SIGKILL. Every process and
// postmaster a test starts is registered and ended by cleanUp(), also when the test fails.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { runningEmbeddedUrl } from '../../src/db/embedded-postgres.js';
import { processRunning } from '../../src/db/process-alive.js';
import { DOCO_BIN, LOCAL_ONLY, runDoco, type CliResult } from './cli.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Whether `pid` runs (a killed postmaster left a zombie by PID 1 does not). */
export const alive = (pid: number): boolean => processRunning(pid);

/** Polls `check` until it returns a value other than undefined/false; fails naming `what` after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 60_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

const children = new Set<ChildProcess>();
const homes = new Set<string>();

/** The postmaster of `home`'s embedded cluster, if one is running. */
export function postmasterPid(home: string): number | undefined {
  const file = path.join(home, 'pg', 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  return pid && alive(pid) ? pid : undefined;
}

/**
 * Kills the postmaster with SIGKILL, as a crash of Postgres itself would: no shutdown
 * checkpoint, recovery from the WAL at the next start. Its backends (each in a process group of
 * its own) notice their postmaster is gone and exit by themselves.
 */
export function killPostgres(home: string): number | undefined {
  const pid = postmasterPid(home);
  if (pid) process.kill(pid, 'SIGKILL');
  return pid;
}

export class DocoHome {
  private constructor(readonly dir: string) {}

  static async make(): Promise<DocoHome> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'doco-crash-'));
    await chmod(dir, 0o755); // Postgres runs as the OS user postgres when we are root
    homes.add(dir);
    return new DocoHome(dir);
  }

  /** The environment of every process on this home: the embedded defaults, nothing hosted. */
  env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    return {
      DOCO_HOME: this.dir,
      DATABASE_URL: '',
      ...LOCAL_ONLY,
      DOCO_WORKSPACE: '',
      DOCO_TEST_CRASH_AT: '',
      DOCO_LOG_LEVEL: 'info',
      DOCO_DOCS_ROOT: '',
      ...extra,
    };
  }

  /** Connects to the embedded cluster while it runs (whoever started it), without attaching as Doco. */
  async sql(): Promise<postgres.Sql> {
    const url = await runningEmbeddedUrl(this.dir);
    if (!url) throw new Error(`no embedded Postgres running under ${this.dir}`);
    return postgres(url, { max: 2, onnotice: () => {} });
  }

  run(args: string[], extra: NodeJS.ProcessEnv = {}, timeoutMs = 120_000): Promise<CliResult> {
    return runDoco(args, { env: this.env(extra), timeoutMs });
  }
}

export interface ExitState {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A `doco` command running in the background: its output collected, its exit awaited. */
export class DocoProcess {
  log = '';
  readonly exited: Promise<ExitState>;
  readonly child: ChildProcess;

  /** With `input`, its stdin stays open for write() until endInput(). */
  constructor(args: string[], env: NodeJS.ProcessEnv, opts: { input?: boolean } = {}) {
    this.child = spawn(process.execPath, [DOCO_BIN, ...args], {
      env: { ...process.env, ...env },
      stdio: [opts.input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    children.add(this.child);
    this.child.stdout!.on('data', (d) => (this.log += d));
    this.child.stderr!.on('data', (d) => (this.log += d));
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        children.delete(this.child);
        resolve({ code, signal });
      }),
    );
  }

  write(text: string): void {
    this.child.stdin!.write(text);
  }

  endInput(): void {
    this.child.stdin!.end();
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  async waitForLog(pattern: RegExp, timeoutMs = 90_000): Promise<void> {
    await waitFor(
      `${pattern} in the log of doco (${this.log.slice(-2000)})`,
      () => {
        if (pattern.test(this.log)) return true;
        if (!this.running) throw new Error(`doco exited before logging ${pattern}: ${this.log.slice(-3000)}`);
        return false;
      },
      timeoutMs,
    );
  }

  /** kill -9: no handler runs, nothing is flushed. */
  async kill9(): Promise<ExitState> {
    this.child.kill('SIGKILL');
    return this.exited;
  }

  /** A clean stop (SIGTERM), awaited. */
  async stop(timeoutMs = 60_000): Promise<ExitState> {
    this.child.kill('SIGTERM');
    const state = await Promise.race([this.exited, sleep(timeoutMs).then(() => undefined)]);
    if (!state) throw new Error(`doco did not stop within ${timeoutMs} ms of SIGTERM: ${this.log.slice(-3000)}`);
    return state;
  }
}

/** `doco serve` on `home`, on a free port (or `port`). */
export class DocoServer extends DocoProcess {
  constructor(
    readonly home: DocoHome,
    readonly port: number,
    extra: NodeJS.ProcessEnv = {},
  ) {
    super(['serve'], home.env({ DOCO_PORT: String(port), ...extra }));
  }

  static async start(home: DocoHome, opts: { port?: number; env?: NodeJS.ProcessEnv } = {}): Promise<DocoServer> {
    const server = new DocoServer(home, opts.port ?? (await freePort()), opts.env);
    await server.waitForLog(/serving REST/);
    return server;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }
}

/** Ends every process the tests started and every postmaster on their homes, then removes the homes. */
export async function cleanUp(): Promise<void> {
  for (const child of children) child.kill('SIGKILL');
  await sleep(100);
  for (const dir of homes) {
    const pid = killPostgres(dir);
    if (pid) await waitFor(`postmaster ${pid} to go`, () => !alive(pid), 10_000).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
  homes.clear();
}

/** A write token minted through the CLI (it attaches to the running cluster). */
export async function writeToken(home: DocoHome): Promise<string> {
  const res = await home.run(['token', 'create', '--scope', 'write']);
  if (res.code !== 0) throw new Error(`token create failed: ${res.stderr}`);
  return res.stdout.trim();
}

export interface RestAnswer {
  status: number;
  /** JSON of many shapes, checked by each test. */
  body: any;
}

export function restClient(baseUrl: () => string, token: string) {
  return async (method: string, route: string, body?: unknown): Promise<RestAnswer> => {
    const res = await fetch(`${baseUrl()}/api/v1${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
}
