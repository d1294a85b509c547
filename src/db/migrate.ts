// The migration runner: numbered forward-only files in migrations/ applied once each with their
// checksum recorded, then the idempotent files of sql/ re-applied whenever any of them (or the
// schema) changed. Runs under an advisory lock, so concurrent starts migrate once.
import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { Logger, runMigrations } from 'graphile-worker';
import { makeWorkerPool } from './worker-pool.js';
import type { Sql } from './connect.js';
import { findProjectRoot } from '../lib/project-root.js';

export const quietLogger = new Logger(() => () => {});

const MIGRATE_LOCK = 7_341_001;
const MIGRATION_NAME = /^(\d{4})_[a-z0-9_]+\.sql$/;

export interface MigrateReport {
  applied: string[];
  sqlReapplied: boolean;
}

interface SqlFile {
  name: string;
  text: string;
  checksum: string;
}

const checksumOf = (text: string) => createHash('sha256').update(text).digest('hex');

async function readMigrations(root: string): Promise<SqlFile[]> {
  const dir = path.join(root, 'migrations');
  const names = (await readdir(dir)).filter((n) => n.endsWith('.sql')).sort();
  const files: SqlFile[] = [];
  for (const name of names) {
    if (!MIGRATION_NAME.test(name)) throw new Error(`migration file name ${name} is not NNNN_slug.sql`);
    const text = await readFile(path.join(dir, name), 'utf8');
    files.push({ name, text, checksum: checksumOf(text) });
  }
  return files;
}

async function readSqlFiles(root: string): Promise<SqlFile[]> {
  const dir = path.join(root, 'sql');
  const order = (await readFile(path.join(dir, 'index.txt'), 'utf8'))
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const present = (await readdir(dir)).filter((n) => n.endsWith('.sql'));
  const unlisted = present.filter((n) => !order.includes(n));
  if (unlisted.length) throw new Error(`sql/index.txt does not list ${unlisted.join(', ')}`);
  return Promise.all(
    order.map(async (name) => {
      const text = await readFile(path.join(dir, name), 'utf8');
      return { name, text, checksum: checksumOf(text) };
    }),
  );
}

export async function migrate(sql: Sql, opts: { root?: string; connectionString?: string } = {}): Promise<MigrateReport> {
  const root = opts.root ?? findProjectRoot();
  const [migrations, sqlFiles] = await Promise.all([readMigrations(root), readSqlFiles(root)]);
  const conn = await sql.reserve();
  try {
    await conn`select pg_advisory_lock(${MIGRATE_LOCK})`;
    await conn.unsafe(`
      create schema if not exists doco;
      create table if not exists doco.migrations (name text primary key, checksum text not null, applied_at timestamptz not null default now());
      create table if not exists doco.sql_files (name text primary key, checksum text not null, applied_at timestamptz not null default now());
    `);
    const applied = new Map(
      (await conn<{ name: string; checksum: string }[]>`select name, checksum from doco.migrations`).map((r) => [r.name, r.checksum]),
    );
    for (const [name, checksum] of applied) {
      const file = migrations.find((m) => m.name === name);
      if (!file) throw new Error(`migration ${name} was applied but its file is gone`);
      if (file.checksum !== checksum)
        throw new Error(
          `migration ${name} changed after it was applied (checksum ${checksum.slice(0, 12)} → ${file.checksum.slice(0, 12)}); add a new migration instead`,
        );
    }
    const report: MigrateReport = { applied: [], sqlReapplied: false };
    for (const file of migrations.filter((m) => !applied.has(m.name))) {
      await conn
        .unsafe(`begin; ${file.text}\n; insert into doco.migrations (name, checksum) values ('${file.name}', '${file.checksum}'); commit;`)
        .catch(async (err) => {
          await conn.unsafe('rollback');
          throw new Error(`migration ${file.name} failed: ${(err as Error).message}`);
        });
      report.applied.push(file.name);
    }
    const known = new Map(
      (await conn<{ name: string; checksum: string }[]>`select name, checksum from doco.sql_files`).map((r) => [r.name, r.checksum]),
    );
    const stale = report.applied.length > 0 || sqlFiles.some((f) => known.get(f.name) !== f.checksum) || known.size !== sqlFiles.length;
    if (stale) {
      await conn.unsafe('begin');
      try {
        for (const file of sqlFiles) {
          await conn.unsafe(file.text).catch((err: Error) => {
            throw new Error(`sql/${file.name} failed: ${err.message}`);
          });
        }
        await conn`delete from doco.sql_files`;
        for (const file of sqlFiles) await conn`insert into doco.sql_files (name, checksum) values (${file.name}, ${file.checksum})`;
        await conn.unsafe('commit');
      } catch (err) {
        await conn.unsafe('rollback');
        throw err;
      }
      report.sqlReapplied = true;
    }
    if (opts.connectionString) {
      const pool = makeWorkerPool(opts.connectionString, { max: 2 });
      try {
        await runMigrations({ pgPool: pool, logger: quietLogger });
      } finally {
        await pool.end();
      }
    }
    return report;
  } finally {
    await conn`select pg_advisory_unlock(${MIGRATE_LOCK})`.catch(() => {});
    conn.release();
  }
}
