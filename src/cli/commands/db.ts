// doco migrate; doco db-url; doco psql [ARGS…]; doco verify [--json].
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { migrate } from '../../db/migrate.js';
import { connect } from '../../db/connect.js';
import { locateDatabase } from '../../db/locate.js';
import { runningEmbeddedUrl } from '../../db/embedded-postgres.js';
import { checkChains, HISTORY_BREAK, recordChainChecks } from '../../graph/chain-checks.js';
import { cliEnv, withDatabase } from '../context.js';
import { printJson } from '../output.js';

export async function migrateCommand(args: string[]): Promise<number> {
  parseArgs({ args, options: {}, strict: true });
  const env = cliEnv();
  const location = await locateDatabase(env.config, { create: true });
  const handles = connect(location.url, { max: 2 });
  try {
    const report = await migrate(handles.sql, { connectionString: location.url });
    process.stdout.write(report.applied.length ? `applied ${report.applied.join(', ')}\n` : 'migrations up to date\n');
    if (report.sqlReapplied) process.stdout.write('sql/ functions, triggers and views re-applied\n');
  } finally {
    await handles.close();
    await location.release();
  }
  return 0;
}

export async function dbUrlCommand(args: string[]): Promise<number> {
  parseArgs({ args, options: {}, strict: true });
  const env = cliEnv();
  if (env.config.databaseUrl) {
    process.stdout.write(`${env.config.databaseUrl}\n`);
    return 0;
  }
  // A running cluster's URL is printed as is: attaching could adopt one left by a killed
  // process, and this command's exit would then stop it.
  const running = await runningEmbeddedUrl(env.config.home);
  if (running) {
    process.stdout.write(`${running}\n`);
    return 0;
  }
  const location = await locateDatabase(env.config, { create: false });
  process.stdout.write(`${location.url}\n`);
  process.stderr.write('note: the embedded Postgres is not running; this URL answers while `doco serve` or `doco psql` runs\n');
  await location.release();
  return 0;
}

/**
 * psql's arguments and environment for a database URL: the URL without its password, which goes
 * in PGPASSWORD instead. A process's arguments are readable by every user of the machine
 * (/proc/PID/cmdline); its environment only by its own.
 */
export function psqlInvocation(url: string, args: string[]): { argv: string[]; env: NodeJS.ProcessEnv } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { argv: [url, ...args], env: process.env };
  }
  if (!parsed.password) return { argv: [url, ...args], env: process.env };
  const password = decodeURIComponent(parsed.password);
  parsed.password = '';
  return { argv: [parsed.href, ...args], env: { ...process.env, PGPASSWORD: password } };
}

export async function psqlCommand(args: string[]): Promise<number> {
  const env = cliEnv();
  const location = await locateDatabase(env.config, { create: false });
  try {
    return await new Promise<number>((resolve, reject) => {
      const { argv, env: childEnv } = psqlInvocation(location.url, args);
      const child = spawn('psql', argv, { stdio: 'inherit', env: childEnv });
      child.once('error', (err: NodeJS.ErrnoException) =>
        reject(err.code === 'ENOENT' ? new Error('psql is not installed (Debian/Ubuntu: apt-get install postgresql-client)') : err),
      );
      child.once('exit', (code) => resolve(code ?? 1));
    });
  } finally {
    await location.release();
  }
}

/** Breaks listed one per line before the rest are counted (--json lists them all). */
const SHOWN_BREAKS = 20;

export async function verifyCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean' } }, strict: true });
  const env = cliEnv();
  return withDatabase(env, async ({ sql }) => {
    const started = performance.now();
    const broken = await checkChains(sql, env.config.home);
    const [counts] = await sql<{ node_versions: number; edge_versions: number }[]>`
      select (select count(*) from doco.node_versions)::int as node_versions, (select count(*) from doco.edge_versions)::int as edge_versions`;
    const elapsedMs = Math.round(performance.now() - started);
    await recordChainChecks(sql, broken, { via: 'cli', elapsedMs }); // every workspace's overview shows it
    const first = broken[0];
    if (values.json) {
      // Every break (first_broken kept for scripts that read it).
      printJson({ ok: !first, ...counts, broken: broken.length, first_broken: first ?? null, broken_links: broken, elapsed_ms: elapsedMs });
    } else if (first) {
      for (const b of broken.slice(0, SHOWN_BREAKS))
        process.stdout.write(
          b.kind === HISTORY_BREAK
            ? `BROKEN: ${b.problem} (${b.detail})\n`
            : `BROKEN: ${b.kind} ${b.id} version ${b.version}: ${b.problem}\n`,
        );
      if (broken.length > SHOWN_BREAKS)
        process.stdout.write(`(${broken.length - SHOWN_BREAKS} more broken link(s): doco verify --json lists them all)\n`);
    } else {
      process.stdout.write(
        `ok: ${counts!.node_versions} record versions and ${counts!.edge_versions} edge versions verified in ${elapsedMs} ms\n`,
      );
    }
    return first ? 1 : 0;
  });
}

/** Health check for containers: exit 0 when the database answers, 1 otherwise. Never starts one. */
export async function pingCommand(args: string[]): Promise<number> {
  parseArgs({ args, options: {}, strict: true });
  const env = cliEnv();
  const url = env.config.databaseUrl ?? (await runningEmbeddedUrl(env.config.home));
  if (!url) {
    process.stderr.write('doco: no database: DATABASE_URL is unset and the embedded Postgres is not running\n');
    return 1;
  }
  const handles = connect(url, { max: 1 });
  try {
    await handles.sql`select 1`;
    process.stdout.write('ok\n');
    return 0;
  } catch (err) {
    process.stderr.write(`doco: database unreachable: ${(err as Error).message}\n`);
    return 1;
  } finally {
    await handles.close();
  }
}
