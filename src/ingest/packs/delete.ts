// Deleting a docs pack: every record of that code is retired (history stays readable, the
// outbox drops its chunks), then its manifest rows and its registration go. Nothing of another
// source is read or written. Safe to repeat: a delete cut short finishes on the next call. It
// holds the pack's lock, so a pull of the same code runs wholly before or after it.
import { applyChangeset } from '../../graph/apply-changeset.js';
import { LIMITS } from '../../graph/limits.js';
import { ensurePrincipal } from '../../auth/workspaces.js';
import { noJudge } from '../../providers/judge.js';
import { PACK_PRINCIPAL, packSource, type PackDeps } from './pull.js';
import { registrationMark, removePackRow, withPackLock } from './registry.js';

export async function deletePackDocs(deps: PackDeps, workspaceId: string, code: string): Promise<{ retired: number }> {
  const source = packSource(code);
  return withPackLock(deps.sql, workspaceId, code, async () => {
    const mark = await registrationMark(deps.sql, workspaceId, code);
    const live = await deps.sql<{ node_id: string }[]>`
      select m.node_id from doco.doc_manifest m join doco.nodes n on n.id = m.node_id
       where m.workspace_id = ${workspaceId} and m.source = ${source} and n.lifecycle <> 'retired'
       order by m.section_key`;
    if (live.length) {
      const principalId = await ensurePrincipal(deps.db, workspaceId, PACK_PRINCIPAL, 'ingest');
      const ctx = { workspaceId, principalId, source: 'ingest' as const };
      for (let i = 0; i < live.length; i += LIMITS.operationsPerChangeset) {
        const batch = live.slice(i, i + LIMITS.operationsPerChangeset);
        // Retiring is not judged: no policy decides whether a document may leave.
        await applyChangeset({ db: deps.db, judge: noJudge }, ctx, {
          summary: `docs pack ${code} deleted`,
          operations: batch.map((r) => ({ op: 'retire' as const, target: r.node_id })),
        });
      }
    }
    await deps.sql.begin(async (tx) => {
      await tx`delete from doco.doc_manifest where workspace_id = ${workspaceId} and source = ${source}`;
      await removePackRow(tx, workspaceId, code, mark);
    });
    return { retired: live.length };
  });
}
