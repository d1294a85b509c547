// The doc ingester as a graphile-worker task, `docs__ingest` {root?, only?, workspace?}: queued
// on demand, and run every 10 minutes by cron when DOCO_DOCS_ROOT is set. A refused reap is not
// retried (the next run meets the same tree): it is logged as a warning and kept in
// doco.doc_ingest_runs for operators. A symbolic link is followed only inside the root
// (src/ingest/docs/tree.ts); one that is not is logged as a warning and listed as unreadable.
import type { Task } from 'graphile-worker';
import * as v from 'valibot';
import { kyselyOver, type Db, type Sql } from '../db/connect.js';
import { ensurePrincipal, ensureWorkspace } from '../auth/workspaces.js';
import { ingestDocSections } from '../ingest/docs/ingest.js';
import { onlyPath, readDocTree } from '../ingest/docs/walk.js';

export const DOCS_INGEST_TASK = 'docs__ingest';
/** The principal the filesystem ingester writes as. */
export const DOCS_INGEST_PRINCIPAL = 'docs-ingest';

export interface DocsJobConfig {
  /** The checkout to walk (DOCO_DOCS_ROOT); without it only jobs naming a root can run. */
  root: string | undefined;
  /** The workspace slug the sections go into (DOCO_WORKSPACE). */
  workspace: string;
}

const PayloadSchema = v.object({
  root: v.optional(v.pipe(v.string(), v.minLength(1))),
  only: v.optional(v.array(v.pipe(v.string(), v.minLength(1)))),
  workspace: v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be a workspace slug'))),
});

/** Cron entries for the doc ingester: every 10 minutes, only when a docs root is configured. */
export function docsCrontab(docs: DocsJobConfig | undefined): string[] {
  return docs?.root ? [`*/10 * * * * ${DOCS_INGEST_TASK} ?max=1&jobKey=${DOCS_INGEST_TASK}&jobKeyMode=preserve_run_at`] : [];
}

/** Without a Kysely handle in deps, one is made over the same pool (never destroyed: the pool is the caller's). */
export const docsIngest = (deps: { sql: Sql; db?: Db; docs?: DocsJobConfig }): Task => {
  const db = deps.db ?? kyselyOver(deps.sql);
  return async (payload, helpers) => {
    const p = v.parse(PayloadSchema, payload ?? {});
    const root = p.root ?? deps.docs?.root;
    if (!root) throw new Error(`${DOCS_INGEST_TASK}: no docs root: pass {"root": …} or set DOCO_DOCS_ROOT`);
    const workspaceId = await ensureWorkspace(deps.sql, p.workspace ?? deps.docs?.workspace ?? 'default');
    const principalId = await ensurePrincipal(db, workspaceId, DOCS_INGEST_PRINCIPAL, 'ingest');
    const only = p.only?.map((f) => onlyPath(root, f));
    const tree = await readDocTree(root, only ? { only } : {});
    const report = await ingestDocSections(
      { sql: deps.sql, db, log: { warn: (m) => helpers.logger.warn(m) } },
      { workspaceId, principalId, source: 'fs', root, files: tree.files, ...(only ? { only } : {}) },
    );
    // A section holding a credential was already logged as a warning by the ingester; it is not retried.
    if (tree.skippedLinks.length)
      helpers.logger.warn(
        `doc ingest of ${root}: not following ${tree.skippedLinks.map((l) => `${l.path} (${l.reason})`).join(', ')}; a link is followed only inside the root`,
      );
    const links = new Set(tree.skippedLinks.map((l) => l.path));
    const failed = report.unreadable.filter((p) => !links.has(p));
    if (failed.length) helpers.logger.warn(`doc ingest of ${root}: could not read ${failed.join(', ')}; their sections are kept`);
    helpers.logger.info(
      `doc ingest of ${root} (run ${report.run_id}): ${tree.files.length} files, ${report.created} created, ${report.updated} updated, ${report.skipped} unchanged, ${report.secrets.length} secret finding(s); reap ${report.reap.outcome}${report.reap.count ? ` (${report.reap.count})` : ''}`,
    );
  };
};
