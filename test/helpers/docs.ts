// Docs trees on disk and filesystem ingests of them, for the doc ingester's tests.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ingestDocSections } from '../../src/ingest/docs/ingest.js';
import type { IngestProgress, IngestReport, IngestSource } from '../../src/ingest/docs/types.js';
import { readDocTree, type ReadDoc } from '../../src/ingest/docs/walk.js';
import type { Log } from '../../src/lib/log.js';
import type { TestWorkspace } from './app.js';
import type { TestDb } from './db.js';

/** `n` sentences about `topic`, 60 characters and more each: the default 4 clear the 200-character floor. */
export const prose = (topic: string, n = 4) =>
  Array.from(
    { length: n },
    (_, i) => `The ${topic} rule number ${String(i).padStart(2, '0')} holds for every caller of this service.`,
  ).join(' ');

export async function makeTree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'doco-docs-'));
  await writeTree(root, files);
  return root;
}

export async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  }
}

export const removeTree = (root: string) => rm(root, { recursive: true, force: true });

export interface FsIngestOptions {
  only?: string[];
  read?: ReadDoc;
  source?: IngestSource;
  log?: Pick<Log, 'warn'>;
  onProgress?: (p: IngestProgress) => void;
}

/** Walks `root` and ingests it into the workspace, as `doco ingest-docs` does. */
export async function ingestTree(t: TestDb, ws: TestWorkspace, root: string, opts: FsIngestOptions = {}): Promise<IngestReport> {
  const tree = await readDocTree(root, { ...(opts.only ? { only: opts.only } : {}), ...(opts.read ? { read: opts.read } : {}) });
  return ingestDocSections(
    { sql: t.sql, db: t.db, ...(opts.log ? { log: opts.log } : {}) },
    {
      workspaceId: ws.id,
      principalId: ws.principalId,
      source: opts.source ?? 'fs',
      root,
      files: tree.files,
      ...(opts.only ? { only: opts.only } : {}),
    },
    opts.onProgress,
  );
}

export interface SectionRecordRow {
  section_key: string;
  node_id: string;
  lifecycle: string;
  title: string;
  prose: string;
  body: Record<string, unknown>;
  version: number;
}

/** The manifest of a source joined to its records, by section_key. */
export async function manifestRecords(t: TestDb, ws: TestWorkspace, source = 'fs'): Promise<Map<string, SectionRecordRow>> {
  const rows = await t.sql<SectionRecordRow[]>`
    select m.section_key, m.node_id, n.lifecycle::text as lifecycle, n.title, n.prose, n.body, n.version
      from doco.doc_manifest m join doco.nodes n on n.id = m.node_id
     where m.workspace_id = ${ws.id} and m.source = ${source}`;
  return new Map(rows.map((r) => [r.section_key, r]));
}

export const nodeById = async (t: TestDb, id: string) =>
  (
    await t.sql<{ lifecycle: string; title: string; prose: string; version: number; collection_id: string }[]>`
    select lifecycle::text as lifecycle, title, prose, version, collection_id from doco.nodes where id = ${id}`
  )[0];
