// doco lint-docs [ROOT]: the author rules of docs/ingest.md over a docs tree before it is ingested, for a
// docs repo's CI (exit 1 on any error). The renamed-heading rule needs the last ingest's manifest:
// it reads DATABASE_URL or an embedded cluster already running, and never starts one.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { runningEmbeddedUrl } from '../../db/embedded-postgres.js';
import { lintDocsTree, type LintFinding, type ManifestKey } from '../../ingest/docs/lint.js';
import { cliEnv } from '../context.js';
import { printJson, UsageError } from '../output.js';
import { usageLine } from '../help.js';

const USAGE = usageLine('lint-docs');

/** Failures that mean "no database to compare with", not a fault in the lint. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ECONNRESET',
  'ETIMEDOUT',
  'CONNECT_TIMEOUT',
  '3D000', // no such database
  '28000',
  '28P01', // authentication refused
  '57P03', // starting up or shutting down
  '3F000',
  '42P01', // schema doco or doc_manifest missing: never migrated
]);

export async function lintDocsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { json: { type: 'boolean' }, 'no-db': { type: 'boolean' }, workspace: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 1) throw new UsageError(USAGE);
  const root = path.resolve(positionals[0] ?? '.');
  if (!(await stat(root).catch(() => undefined))?.isDirectory()) throw new UsageError(`${root} is not a directory; ${USAGE}`);

  const notes: string[] = [];
  let previous: ManifestKey[] | undefined;
  if (values['no-db']) notes.push('renamed-heading: skipped (--no-db)');
  else previous = await lastManifest(root, values.workspace, notes);

  const { files, findings } = await lintDocsTree(root, previous);
  const errors = findings.filter((f) => f.severity === 'error').length;
  const warnings = findings.length - errors;
  if (values.json) {
    printJson({ findings, errors, warnings });
    for (const n of notes) process.stderr.write(`${n}\n`);
  } else {
    process.stdout.write(renderFindings(findings));
    process.stdout.write(`${plural(errors, 'error')}, ${plural(warnings, 'warning')} in ${plural(files.length, 'file')}\n`);
    for (const n of notes) process.stdout.write(`${n}\n`);
  }
  return errors ? 1 : 0;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Grouped by file, one line per finding: line, severity, rule, heading and message. */
function renderFindings(findings: LintFinding[]): string {
  let out = '';
  let file: string | undefined;
  const width = Math.max(0, ...findings.map((f) => String(f.line).length));
  for (const f of findings) {
    if (f.path !== file) {
      out += `${file === undefined ? '' : '\n'}${f.path}\n`;
      file = f.path;
    }
    out += `  ${String(f.line).padStart(width)}  ${f.severity.padEnd(7)}  ${f.rule.padEnd(15)}  ${f.heading}: ${f.message}\n`;
  }
  return out ? `${out}\n` : '';
}

/** The filesystem ingester's manifest keys for the workspace, or undefined (with a note) when there is none to read. */
async function lastManifest(root: string, workspaceFlag: string | undefined, notes: string[]): Promise<ManifestKey[] | undefined> {
  const env = cliEnv();
  const workspace = workspaceFlag ?? env.config.workspace;
  const url = env.config.databaseUrl ?? (await runningEmbeddedUrl(env.config.home));
  if (!url) {
    notes.push('renamed-heading: skipped (no database reachable: set DATABASE_URL or run `doco serve`; --no-db to say so)');
    return undefined;
  }
  const sql = postgres(url, { max: 1, connect_timeout: 5, onnotice: () => {}, connection: { application_name: 'doco lint-docs' } });
  try {
    const rows = await sql<{ section_key: string; path: string }[]>`
      select m.section_key, m.path
      from doco.doc_manifest m join doco.workspaces w on w.id = m.workspace_id
      where w.slug = ${workspace} and m.source = 'fs'`;
    if (!rows.length) {
      notes.push(`renamed-heading: skipped (no manifest: workspace "${workspace}" has no filesystem ingest)`);
      return undefined;
    }
    const [run] = await sql<{ root: string | null }[]>`
      select r.root from doco.doc_ingest_runs r join doco.workspaces w on w.id = r.workspace_id
      where w.slug = ${workspace} and r.source = 'fs' order by r.started_at desc limit 1`;
    // Keys are repository-relative, so a checkout elsewhere (CI) compares the same; say where the manifest came from.
    const from = run?.root && path.resolve(run.root) !== root ? `, last ingested from ${run.root}` : '';
    notes.push(`renamed-heading: compared with the manifest of workspace "${workspace}" (${plural(rows.length, 'section key')}${from})`);
    return rows.map((r) => ({ section_key: r.section_key, path: r.path }));
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (!code || !UNREACHABLE.has(code)) throw err;
    notes.push(`renamed-heading: skipped (database not usable: ${(err as Error).message})`);
    return undefined;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
