// Real Postgres clusters from Debian's postgresql package (/usr/lib/postgresql/<major>/bin, or
// DOCO_PG_BIN), for suites that need more than the embedded one: a primary made with initdb and
// run with pg_ctl on a free loopback port, and streaming replicas of it made with
// `pg_basebackup -R`. Each lives in a temp dir, trusts loopback connections (nothing else can
// reach it) and is stopped and removed by stopAllClusters(), also when a test fails. As root,
// Postgres runs as the OS user postgres, as src/db/embedded-postgres.ts does it.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, appendFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { freePort } from './doco-process.js';

/** The newest Debian Postgres's bin directory, or DOCO_PG_BIN; undefined when neither is there. */
export function postgresBin(): string | undefined {
  if (process.env.DOCO_PG_BIN) return process.env.DOCO_PG_BIN;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root)
    .filter((d) => /^\d+$/.test(d) && existsSync(path.join(root, d, 'bin', 'pg_basebackup')))
    .sort((a, b) => Number(b) - Number(a));
  return majors.length ? path.join(root, majors[0]!, 'bin') : undefined;
}

/** Postgres refuses to run as root: as root, its programs run as the OS user postgres (made if missing). */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'], {
      stdio: 'ignore',
    });
    return { uid: id('-u'), gid: id('-g') };
  }
}

export interface PgCluster {
  readonly role: 'primary' | 'replica';
  readonly dataDir: string;
  readonly port: number;
  /** A connection string to `database` as the superuser `doco` (no password: loopback is trusted). */
  url(database?: string): string;
  start(): Promise<void>;
  /** `fast`: open transactions rolled back, a clean shutdown; `immediate`: as a crash would leave it. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  running(): boolean;
  /** The last lines of its log, for a failing test's message. */
  logTail(lines?: number): string;
}

const SUPERUSER = 'doco';
const clusters = new Set<PgCluster>();
const dirs = new Set<string>();

function tool(bin: string, name: string, args: string[], owner: { uid: number; gid: number } | undefined, cwd: string): string {
  try {
    return execFileSync(path.join(bin, name), args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], ...(owner ?? {}) }).toString();
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`${name} ${args.join(' ')} failed: ${stderr.trim() || (err as Error).message}`);
  }
}

/** As tool(), without blocking the event loop: clients in the same process keep running while pg_ctl waits. */
function toolAsync(
  bin: string,
  name: string,
  args: string[],
  owner: { uid: number; gid: number } | undefined,
  cwd: string,
): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(path.join(bin, name), args, { cwd, ...(owner ?? {}) }, (err, stdout, stderr) =>
      err ? reject(new Error(`${name} ${args.join(' ')} failed: ${String(stderr).trim() || err.message}`)) : resolve(String(stdout)),
    ),
  );
}

async function ownedDir(dir: string, owner: { uid: number; gid: number } | undefined, mode: number): Promise<void> {
  await mkdir(dir, { recursive: true, mode });
  await chmod(dir, mode);
  if (owner) await chown(dir, owner.uid, owner.gid);
}

function cluster(role: PgCluster['role'], bin: string, base: string, port: number, owner: { uid: number; gid: number } | undefined) {
  const dataDir = path.join(base, role === 'primary' ? 'primary' : `replica-${port}`);
  const logFile = path.join(base, `${path.basename(dataDir)}.log`);
  const pg = (args: string[]) => tool(bin, 'pg_ctl', args, owner, base);
  const pgAsync = (args: string[]) => toolAsync(bin, 'pg_ctl', args, owner, base);
  const c: PgCluster = {
    role,
    dataDir,
    port,
    url: (database = 'postgres') => `postgres://${SUPERUSER}@127.0.0.1:${port}/${database}`,
    async start() {
      await pgAsync(['-D', dataDir, '-l', logFile, '-w', '-t', '60', 'start']);
    },
    async stop(mode = 'fast') {
      if (c.running()) await pgAsync(['-D', dataDir, '-m', mode, '-w', '-t', '60', 'stop']);
    },
    running: () => {
      try {
        pg(['-D', dataDir, 'status']);
        return true;
      } catch {
        return false;
      }
    },
    logTail: (lines = 20) => {
      try {
        return execFileSync('tail', ['-n', String(lines), logFile]).toString();
      } catch {
        return '';
      }
    },
  };
  clusters.add(c);
  return { c, logFile };
}

/**
 * A primary on a free loopback port with `database` created, ready for streaming replicas
 * (wal_level replica, as by default, and a replication line for loopback in pg_hba.conf).
 */
export async function startPrimary(opts: { database?: string; settings?: Record<string, string> } = {}): Promise<PgCluster> {
  const bin = postgresBin();
  if (!bin) throw new Error('no Postgres binaries: install Debian postgresql (or set DOCO_PG_BIN)');
  const owner = runAs();
  const base = await mkdtemp(path.join(os.tmpdir(), 'doco-pg-'));
  dirs.add(base);
  await ownedDir(base, owner, 0o755);
  const port = await freePort();
  const { c } = cluster('primary', bin, base, port, owner);
  await ownedDir(c.dataDir, owner, 0o700);
  tool(bin, 'initdb', ['-D', c.dataDir, '-U', SUPERUSER, '--auth=trust', '--encoding=UTF8', '--no-locale'], owner, base);
  const settings = {
    listen_addresses: "'127.0.0.1'",
    port: String(port),
    unix_socket_directories: "''",
    wal_level: 'replica',
    max_wal_senders: '10',
    hot_standby: 'on',
    ...opts.settings,
  };
  await appendFile(
    path.join(c.dataDir, 'postgresql.conf'),
    `\n${Object.entries(settings)
      .map(([k, v]) => `${k} = ${v}`)
      .join('\n')}\n`,
  );
  await c.start();
  if (opts.database) {
    const admin = postgres(c.url(), { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`create database "${opts.database}"`);
    } finally {
      await admin.end();
    }
  }
  return c;
}

/** A hot standby of `primary` on its own free port, streaming from it (`pg_basebackup -R`), started. */
export async function startReplica(primary: PgCluster): Promise<PgCluster> {
  const bin = postgresBin()!;
  const owner = runAs();
  const base = path.dirname(primary.dataDir);
  const port = await freePort();
  const { c } = cluster('replica', bin, base, port, owner);
  await ownedDir(c.dataDir, owner, 0o700);
  tool(
    bin,
    'pg_basebackup',
    ['-h', '127.0.0.1', '-p', String(primary.port), '-U', SUPERUSER, '-D', c.dataDir, '-R', '-X', 'stream', '--checkpoint=fast'],
    owner,
    base,
  );
  // The copy carries the primary's port: the later line wins.
  await appendFile(path.join(c.dataDir, 'postgresql.conf'), `\nport = ${port}\n`);
  await c.start();
  return c;
}

/** Stops every cluster started here (immediately: nothing in them is kept) and removes their dirs. */
export async function stopAllClusters(): Promise<void> {
  for (const c of [...clusters].reverse()) await c.stop('immediate').catch(() => {});
  clusters.clear();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
  dirs.clear();
}
