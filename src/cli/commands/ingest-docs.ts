// doco ingest-docs [ROOT] [--only FILE]… [--json] [--workspace SLUG]: the doc ingester over a
// checkout, writing as the CLI principal. With no server up, this command also indexes what it
// wrote (it owns the embedded index for its duration); with one up, the server's worker does.
// Exit 0 for a clean run, 1 when the reap was refused (eviction was due and did not happen) or a
// section was not written because it holds a credential (both conditions to act on), 2 for bad
// arguments.
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../config/environment.js';
import type { Sql } from '../../db/connect.js';
import { ingestDocSections } from '../../ingest/docs/ingest.js';
import type { IngestProgress, IngestReport } from '../../ingest/docs/types.js';
import { onlyPath, readDocTree, WalkError, type WalkReport } from '../../ingest/docs/walk.js';
import { makeLog } from '../../lib/log.js';
import { plainText } from '../../lib/plain-text.js';
import { SECRET_LABELS } from '../../text/secrets/detector.js';
import { makeSearchProviders } from '../../providers/from-config.js';
import { drainOutbox, MAX_ATTEMPTS } from '../../indexing/drain.js';
import { openIndexSession } from '../../indexing/index-session.js';
import { cliWriteContext, principalFlag, withDatabase, type CliEnv } from '../context.js';
import { UsageError } from '../output.js';
import { usageLine } from '../help.js';
import { findServer } from '../server-client.js';

type Out = { write(chunk: string): unknown; isTTY?: boolean };

/** Where the command writes and what it reads its configuration from (a test passes its own). */
export interface CommandIo {
  stdout: Out;
  stderr: Out;
  env: NodeJS.ProcessEnv;
}

type IndexSummary = { kind: 'server'; url: string } | { kind: 'here'; records: number; chunks: number; failed: number };

type Progress = IngestProgress | { kind: 'read'; files: number } | { kind: 'index'; done: number; total: number; chunks: number };

/** One status line on a terminal's stderr, rewritten in place. */
function terminalProgress(out: Out): (p: Progress) => void {
  let sectionsTotal = 0;
  const line = (text: string) => out.write(`\r\x1b[K${text}`);
  return (p) => {
    if (p.kind === 'read') line(`reading: ${p.files} files`);
    else if (p.kind === 'files') line(`files: ${p.total}`);
    else if (p.kind === 'section') line(`sections: ${p.done}/${(sectionsTotal = p.total)}`);
    else if (p.kind === 'reap') line(`sections: ${sectionsTotal}/${sectionsTotal}, reap: ${p.outcome.replace(/_/g, ' ')}`);
    else line(`embeddings: ${p.done}/${p.total} records, ${p.chunks} chunks embedded`);
  };
}

/** Indexes the outbox in this process, batch by batch, and saves the embedded index's snapshot. */
async function indexHere(env: CliEnv, sql: Sql, progress: ((p: Progress) => void) | undefined): Promise<IndexSummary> {
  const providers = await makeSearchProviders(env.config);
  const log = makeLog('warn');
  const index = await openIndexSession({ sql, log, ...providers });
  try {
    const [due] = await sql<
      { n: number }[]
    >`select count(distinct node_id)::int as n from doco.outbox where next_attempt_at <= now() and attempts < ${MAX_ATTEMPTS}`;
    const summary = { kind: 'here' as const, records: 0, chunks: 0, failed: 0 };
    for (;;) {
      const r = await drainOutbox({ sql, log, ...providers }, { batchSize: 50, maxBatches: 1 });
      if (!r.records && !r.failedRecords) break;
      index.drained(r);
      summary.records += r.records;
      summary.chunks += r.chunksEmbedded;
      summary.failed += r.failedRecords;
      progress?.({
        kind: 'index',
        done: summary.records + summary.failed,
        total: Math.max(due!.n, summary.records + summary.failed),
        chunks: summary.chunks,
      });
    }
    return summary;
  } finally {
    await index.close();
  }
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * Why a whole-tree run read no file, said after its summary: the watched set is a checkout's
 * (docs/ingest.md, "The contract"), and the likely mistake is a docs folder given as the root,
 * which read nothing and said only "0 files".
 */
export async function nothingReadHint(root: string): Promise<string> {
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  const watched = 'ingest-docs reads a checkout: its README.md and CLAUDE.md and docs/**/*.md (docs/ingest.md)';
  if (entries.some((e) => e.name === 'docs' && e.isDirectory())) return `  nothing read: ${root}/docs holds no Markdown; ${watched}`;
  const ownMarkdown = entries.some((e) => e.isFile() && e.name.toLowerCase().endsWith('.md'));
  return path.basename(root) === 'docs' || ownMarkdown
    ? `  nothing read: ${root} has no docs/ folder; ${watched}. For this folder's Markdown, run: doco ingest-docs ${path.dirname(root)}`
    : `  nothing read: ${root} has no docs/ folder; ${watched}`;
}

/** The readable summary: the refusal reason first when there is one, then the links not followed and what could not be read. */
export function renderSummary(root: string, tree: WalkReport, report: IngestReport, index: IndexSummary, nothingRead?: string): string {
  const lines: string[] = [];
  if (report.reap.outcome === 'refused')
    lines.push(
      `reap refused: ${report.reap.reason}`,
      '  stale sections stay until a run is allowed to reap them; see doco.doc_ingest_runs',
      '',
    );
  if (report.secrets.length) {
    lines.push(
      `not written: ${plural(new Set(report.secrets.map((s) => s.section_key)).size, 'section')} holding credentials (remove them from the docs; an existing record keeps its last clean version):`,
    );
    for (const s of report.secrets)
      lines.push(`  ${s.section_key}: ${SECRET_LABELS[s.kind]} (${s.kind}) in ${s.field}${s.line === undefined ? '' : ` line ${s.line}`}`);
    lines.push('');
  }
  if (report.allowed_secrets.length) {
    lines.push(
      `let through: ${plural(report.allowed_secrets.length, 'secret')} on a line marked doco:allow-secret (stored as written; remove the marker to refuse it):`,
    );
    for (const s of report.allowed_secrets)
      lines.push(`  ${s.section_key}: ${SECRET_LABELS[s.kind]} (${s.kind}) in ${s.field}${s.line === undefined ? '' : ` line ${s.line}`}`);
    lines.push('');
  }
  if (tree.skippedLinks.length) {
    lines.push(
      `not followed: ${plural(tree.skippedLinks.length, 'symbolic link')} (a link is followed only when it stays inside ${root}; what it names keeps its sections):`,
    );
    for (const l of tree.skippedLinks) lines.push(`  ${l.path}: ${l.reason}`);
    lines.push('');
  }
  const unreadable = tree.files.filter((f) => 'error' in f);
  const links = new Set(tree.skippedLinks.map((l) => l.path));
  const failed = unreadable.filter((f) => !links.has(f.path));
  if (failed.length) {
    lines.push(`could not read ${plural(failed.length, 'file')} (their sections are kept):`);
    for (const f of failed) lines.push(`  ${f.path}: ${'error' in f ? f.error : ''}`);
    lines.push('');
  }
  lines.push(
    `ingested ${root}: ${plural(tree.files.length - unreadable.length, 'file')}, ${plural(tree.sections, 'section')} (${tree.belowFloor} under the 200-character floor, ${tree.truncated} truncated at 2,400)`,
  );
  lines.push(
    `  ${report.created} created, ${report.updated} updated, ${report.skipped} unchanged; ${plural(report.unchanged_files, 'file')} unchanged`,
  );
  if (nothingRead) lines.push(nothingRead);
  const reap =
    report.reap.outcome === 'reaped'
      ? `${plural(report.reap.count, 'section')} retired`
      : report.reap.outcome === 'refused'
        ? 'refused (see above)'
        : 'nothing to reap';
  lines.push(`  reap: ${reap}`);
  lines.push(
    index.kind === 'server'
      ? report.created + report.updated + (report.reap.outcome === 'reaped' ? report.reap.count : 0) === 0
        ? '  embeddings: nothing changed, nothing to embed'
        : `  embeddings: queued for the running server (${index.url})`
      : `  embeddings: ${plural(index.records, 'record')} indexed, ${plural(index.chunks, 'chunk')} embedded${index.failed ? `, ${index.failed} failed (see doco.outbox_backlog)` : ''}`,
  );
  lines.push(`  run ${report.run_id}`);
  // Paths and section keys are the tree's file names: an escape sequence in one (clear the
  // screen, retitle the window, hide the rest of the line) reaches no terminal, a line break no new line.
  return `${lines.map((l) => plainText(l).replace(/\n/g, ' ')).join('\n')}\n`;
}

const processIo = (): CommandIo => ({ stdout: process.stdout, stderr: process.stderr, env: process.env });

export async function ingestDocsCommand(args: string[], io: CommandIo = processIo()): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      only: { type: 'string', multiple: true },
      json: { type: 'boolean' },
      workspace: { type: 'string' },
      principal: { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 1) throw new UsageError(usageLine('ingest-docs'));
  const principal = principalFlag(values.principal);
  const config = loadConfig(io.env);
  const env: CliEnv = { config, log: makeLog(config.logLevel === 'info' ? 'warn' : config.logLevel) };
  const root = path.resolve(positionals[0] ?? config.docsRoot ?? process.cwd());
  if (
    !(await stat(root).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  )
    throw new UsageError(`${root} is not a directory`);
  let only: string[] | undefined;
  try {
    only = values.only?.map((f) => onlyPath(root, f));
  } catch (err) {
    if (err instanceof WalkError) throw new UsageError(err.message);
    throw err;
  }

  const progress = !values.json && io.stderr.isTTY ? terminalProgress(io.stderr) : undefined;
  const tree = await readDocTree(root, only ? { only } : {});
  progress?.({ kind: 'read', files: tree.files.length });
  const server = await findServer(env);
  const { report, index } = await withDatabase(env, async (h) => {
    // A checkout's docs ingested into a new workspace make it, as the worker's docs__ingest does.
    const ctx = await cliWriteContext(h, values.workspace ?? config.workspace, principal, { makeWorkspace: true });
    const report = await ingestDocSections(
      h,
      { workspaceId: ctx.workspaceId, principalId: ctx.principalId, source: 'fs', root, files: tree.files, ...(only ? { only } : {}) },
      progress,
    );
    const index: IndexSummary = server ? { kind: 'server', url: server } : await indexHere(env, h.sql, progress);
    return { report, index };
  });
  if (progress) io.stderr.write('\r\x1b[K');

  if (values.json) {
    const { created, updated, skipped, unchanged_files, reap, unreadable, secrets, allowed_secrets, run_id } = report;
    io.stdout.write(
      `${JSON.stringify({ created, updated, skipped, unchanged_files, reap, unreadable, skipped_links: tree.skippedLinks, secrets, allowed_secrets, run_id }, null, 2)}\n`,
    );
  } else io.stdout.write(renderSummary(root, tree, report, index, !only && !tree.files.length ? await nothingReadHint(root) : undefined));
  return report.reap.outcome === 'refused' || report.secrets.length ? 1 : 0;
}
