// Pulls one registered docs pack: fetch, compare the hash of its text with the last ingested
// one (unchanged: record the fetch and stop, the text is not even parsed, nothing is embedded),
// else read it and ingest its sections under the source `pack:<code>`, whose stale delete
// reaches no other source.
import type { PackHosts } from '../../config/pack-hosts.js';
import type { Db, Sql } from '../../db/connect.js';
import { ensurePrincipal } from '../../auth/workspaces.js';
import { ingestDocSections } from '../docs/ingest.js';
import { describeSectionSecrets } from '../docs/section-secrets.js';
import type { IngestReport } from '../docs/types.js';
import { fetchPackText, PackFetchError, readDocsPack, type FetchPackOptions } from './fetch.js';
import { packTextHash } from './format.js';
import { findPack, recordPulled, recordPullError, withPackLock } from './registry.js';
import { packFileReads } from './sections.js';

/** The principal that pack ingests and deletes are written as. */
export const PACK_PRINCIPAL = 'docs-packs';

export interface PackDeps {
  sql: Sql;
  db: Db;
}

/** A pull fetches: it needs the operator's DOCO_PACK_HOSTS (empty: the default policy alone). */
export interface PullDeps extends PackDeps {
  packHosts: PackHosts;
}

export type PullResult =
  | { outcome: 'ingested'; hash: string; report: IngestReport }
  | { outcome: 'unchanged'; hash: string }
  /** `error` is what last_error holds (never the response's text); `detail` is for the server's log only. */
  | { outcome: 'failed'; error: string; detail: string }
  /** The code was deleted (or never registered) before the pull ran: nothing to do. */
  | { outcome: 'unregistered' };

export const packSource = (code: string) => `pack:${code}` as const;

/**
 * A failed fetch leaves the pack's records and last good hash alone and keeps the reason in
 * last_error. The hash is stored only after a complete ingest: a refused reap or a failed ingest
 * clears it, so the next pull ingests again rather than skipping records that match no pack.
 */
export async function pullDocsPack(deps: PullDeps, workspaceId: string, code: string, opts: FetchPackOptions = {}): Promise<PullResult> {
  return withPackLock(deps.sql, workspaceId, code, async () => {
    const registered = await findPack(deps.sql, workspaceId, code);
    if (!registered) return { outcome: 'unregistered' };
    let pack;
    let hash;
    try {
      const { url, text } = await fetchPackText(deps.packHosts, registered.base_url, opts);
      hash = packTextHash(code, text);
      if (hash === registered.last_hash) {
        await recordPulled(deps.sql, workspaceId, code, { hash, error: null });
        return { outcome: 'unchanged', hash };
      }
      pack = readDocsPack(url, code, text);
    } catch (err) {
      if (!(err instanceof PackFetchError)) {
        // Not a failure the fetch foresaw: the pack still shows that its pull failed.
        await recordPullError(deps.sql, workspaceId, code, `pull failed: ${(err as Error).message}`);
        throw err;
      }
      await recordPullError(deps.sql, workspaceId, code, err.message);
      return { outcome: 'failed', error: err.message, detail: err.detail };
    }
    let report: IngestReport;
    try {
      const principalId = await ensurePrincipal(deps.db, workspaceId, PACK_PRINCIPAL, 'ingest');
      report = await ingestDocSections(deps, {
        workspaceId,
        principalId,
        source: packSource(code),
        root: registered.base_url,
        files: packFileReads(pack),
      });
    } catch (err) {
      await recordPullError(deps.sql, workspaceId, code, `ingest failed: ${(err as Error).message}`, { clearHash: true });
      throw err;
    }
    // A refused reap, or sections refused for holding credentials, leave the pack partly ingested:
    // no hash is kept, so the next pull looks again (and reports again) rather than skipping.
    const problems = [
      ...(report.reap.outcome === 'refused'
        ? [`stale sections kept: the reap was refused (${report.reap.reason ?? 'no reason given'})`]
        : []),
      ...(report.secrets.length ? [describeSectionSecrets(report.secrets)] : []),
    ];
    const incomplete = problems.length ? problems.join('; ') : null;
    await recordPulled(deps.sql, workspaceId, code, incomplete ? { hash: null, error: incomplete } : { hash, error: null });
    return { outcome: 'ingested', hash, report };
  });
}
