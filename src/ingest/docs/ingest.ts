// The doc ingester (docs/ingest.md): a run's sections become `reference` records through
// the manifest — created once, updated in place when their text changes, skipped when it does
// not — and the reap retracts what the run no longer saw, within its guards. Any source: the
// filesystem walk ('fs') or a docs pack ('pack:<code>'), each reaping only its own keys.
import { createHash } from 'node:crypto';
import type { Db, Sql } from '../../db/connect.js';
import { AppError } from '../../errors.js';
import { ensureReferenceCollection, type CollectionView } from '../../graph/collections.js';
import type { Log } from '../../lib/log.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import { planReap } from './reap.js';
import { describeAllowedSecrets, describeSectionSecrets, scanSectionSecrets, type SectionSecret } from './section-secrets.js';
import { sectionRecord, type DocSection } from './sections.js';
import { finishRun, markAbandonedRuns, startRun, withRunConnection } from './runs.js';
import { loadManifest, retireSections, withSourceLock, writeSections, type ManifestEntry, type RecordContent, type RunScope, type SectionWrite } from './store.js';
import type { IngestInput, IngestProgress, IngestReport } from './types.js';

export interface IngestDeps {
  sql: Sql;
  db: Db;
  /** Where a refused reap is logged as a warning. */
  log?: Pick<Log, 'warn'>;
}

export const DEFAULT_DOCS_COLLECTION = 'docs';
const DOCS_TEMPLATE = 'documentation';
/**
 * Sections written per transaction (one changeset, three statements). Larger batches commit less
 * often; a run killed mid-batch rewrites at most this many sections next time.
 */
const SECTIONS_PER_BATCH = 200;
const SOURCE = /^(fs|pack:[a-z0-9][a-z0-9_-]{0,62})$/;

/** sha256 of the canonical JSON of what the record would hold: equal hashes, nothing to write. */
export const contentHash = (content: RecordContent) => createHash('sha256').update(canonicalJson({ node_type: 'reference', ...content }), 'utf8').digest('hex');

/** The collection the sections go into, made from the documentation template on first use. */
export function ensureDocsCollection(db: Db, workspaceId: string, slug: string): Promise<CollectionView> {
  const goal = 'The team\'s documentation, one record per section, kept in step with the docs by the doc ingester.';
  return ensureReferenceCollection(db, workspaceId, { slug, template: DOCS_TEMPLATE, goal }, 'ingest doc sections into another collection');
}

/**
 * Section keys are unique per file by the section rules; a caller that re-keys sections (a pack
 * prefixing its code) could still repeat one. Both survive, as in a file: later ones get -2, -3…
 */
function uniqueSections(sections: DocSection[]): DocSection[] {
  const used = new Set<string>();
  return sections.map((s) => {
    let key = s.section_key;
    for (let n = 2; used.has(key); n++) key = `${s.section_key}-${n}`;
    used.add(key);
    return key === s.section_key ? s : { ...s, section_key: key };
  });
}

interface Plan {
  /** Creates (no nodeId) and updates in place, in section order. */
  writes: SectionWrite[];
  skipped: number;
  /** Paths of files with a section created or updated, or refused for a secret. */
  changedFiles: Set<string>;
  /** Sections refused because they hold a credential: not written, still seen. */
  secrets: SectionSecret[];
  /** Credentials the sections written carry on lines marked doco:allow-secret. */
  allowed: SectionSecret[];
}

/** Create / update / skip for each section; a manifest row whose record is gone or retired is created anew. */
function planWrites(sections: DocSection[], manifest: Map<string, ManifestEntry>, collectionId: string, sourceKind: 'doc' | 'docs_pack'): Plan {
  const plan: Plan = { writes: [], skipped: 0, changedFiles: new Set(), secrets: [], allowed: [] };
  for (const s of sections) {
    const record = sectionRecord(s, sourceKind);
    const content: RecordContent = { collection_id: collectionId, title: record.title, prose: record.prose, body: record.body };
    const hash = contentHash(content);
    const entry = manifest.get(s.section_key);
    const live = entry && entry.lifecycle !== null && entry.lifecycle !== 'retired';
    if (live && entry.hash === hash) {
      plan.skipped++;
      continue;
    }
    const secrets = scanSectionSecrets(s, record);
    if (secrets.refused.length) {
      plan.secrets.push(...secrets.refused);
      plan.changedFiles.add(s.path);
      continue;
    }
    plan.allowed.push(...secrets.allowed);
    plan.writes.push({ section_key: s.section_key, path: s.path, hash, content, ...(live ? { nodeId: entry.node_id } : {}) });
    plan.changedFiles.add(s.path);
  }
  return plan;
}

/** Readable files whose sections all matched the manifest, with none of their keys gone. */
function countUnchangedFiles(input: IngestInput, sections: DocSection[], manifest: ManifestEntry[], changed: Set<string>): number {
  const seen = new Set(sections.map((s) => s.section_key));
  const goneFrom = new Set(manifest.filter((m) => !seen.has(m.section_key)).map((m) => m.path));
  // Only a file an earlier run stored can be unchanged: on a first run a file with no section
  // above the floor was counted as one.
  const known = new Set(manifest.map((m) => m.path));
  return input.files.filter((f) => 'sections' in f && known.has(f.path) && !changed.has(f.path) && !goneFrom.has(f.path)).length;
}

export async function ingestDocSections(deps: IngestDeps, input: IngestInput, onProgress?: (p: IngestProgress) => void): Promise<IngestReport> {
  if (!SOURCE.test(input.source)) throw new AppError('validation_failed', `source must be 'fs' or 'pack:<code>', not ${JSON.stringify(input.source)}`);
  const scope: RunScope = { workspaceId: input.workspaceId, principalId: input.principalId, source: input.source };
  const collection = await ensureDocsCollection(deps.db, input.workspaceId, input.collection ?? DEFAULT_DOCS_COLLECTION);
  const sourceKind = input.source === 'fs' ? 'doc' : 'docs_pack';
  const sections = uniqueSections(input.files.flatMap((f) => ('sections' in f ? f.sections : [])));
  const unreadable = input.files.filter((f) => 'error' in f).map((f) => f.path);
  const report: Omit<IngestReport, 'run_id'> = { created: 0, updated: 0, skipped: 0, unchanged_files: 0, unreadable, reap: { outcome: 'nothing_to_reap', reason: null, count: 0 }, secrets: [], allowed_secrets: [] };
  onProgress?.({ kind: 'files', total: input.files.length });

  const abandoned = await markAbandonedRuns(deps.sql);
  if (abandoned.length) deps.log?.warn(`doc ingest: run(s) ${abandoned.join(', ')} marked abandoned: their process stopped before they finished`);
  return withRunConnection(deps.sql, async (conn) => {
    const runId = await startRun(conn, scope, input.root, input.only);
    try {
      await withSourceLock(conn, scope, async () => {
        const manifest = await loadManifest(conn, scope);
        const plan = planWrites(sections, new Map(manifest.map((m) => [m.section_key, m])), collection.id, sourceKind);
        report.skipped = plan.skipped;
        report.secrets = plan.secrets;
        report.allowed_secrets = plan.allowed;
        if (plan.secrets.length) deps.log?.warn(`doc ingest (${input.source}, run ${runId}): ${describeSectionSecrets(plan.secrets)}`);
        if (plan.allowed.length) deps.log?.warn(`doc ingest (${input.source}, run ${runId}): ${describeAllowedSecrets(plan.allowed)}`);
        let done = plan.skipped;
        onProgress?.({ kind: 'section', done, total: sections.length });
        for (let i = 0; i < plan.writes.length; i += SECTIONS_PER_BATCH) {
          const batch = plan.writes.slice(i, i + SECTIONS_PER_BATCH);
          await writeSections(conn, scope, batch, `doc ingest (${input.source}): ${batch.length} section(s) of ${input.root}`);
          const updates = batch.filter((w) => w.nodeId).length;
          report.updated += updates;
          report.created += batch.length - updates;
          done += batch.length;
          onProgress?.({ kind: 'section', done, total: sections.length });
        }
        report.unchanged_files = countUnchangedFiles(input, sections, manifest, plan.changedFiles);

        // Refused sections are in `sections`, so they count as seen: the reap leaves their records alone.
        const reap = planReap({ manifest, seen: new Set(sections.map((s) => s.section_key)), files: input.files, ...(input.only ? { only: input.only } : {}) });
        if (reap.outcome === 'reaped') await retireSections(conn, scope, reap.keys, `doc ingest (${input.source}): reap ${reap.keys.length} section(s) no longer in ${input.root}`);
        report.reap = { outcome: reap.outcome, reason: reap.reason, count: reap.outcome === 'reaped' ? reap.keys.length : 0 };
        if (reap.outcome === 'refused') deps.log?.warn(`doc ingest (${input.source}, run ${runId}): reap refused: ${reap.reason}`);
        onProgress?.({ kind: 'reap', outcome: reap.outcome });
      });
    } catch (err) {
      // The run's error is the one to raise. If its row cannot be finished either (the
      // connection is gone), the row stays running with no lock, and the next run marks it abandoned.
      await finishRun(conn, runId, input.files.length, report, (err as Error)?.message ?? String(err)).catch(() => undefined);
      throw err;
    }
    await finishRun(conn, runId, input.files.length, report);
    return { run_id: runId, ...report };
  });
}
