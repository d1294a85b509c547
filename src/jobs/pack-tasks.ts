// The docs-pack job `docs__pack_pull` {workspaceId, code}. How it is queued (at registration,
// and for every registered pack at start-up) is src/ingest/packs/queue.ts.
import type { JobHelpers, Task } from 'graphile-worker';
import * as v from 'valibot';
import type { PackHosts } from '../config/pack-hosts.js';
import { kyselyOver, type Db, type Sql } from '../db/connect.js';
import { pullDocsPack } from '../ingest/packs/pull.js';

const PayloadSchema = v.object({ workspaceId: v.string(), code: v.string() });

/**
 * Rejects once the task's pool aborts it, never otherwise (no signal: a caller outside a worker
 * pool); the pull left behind is logged when it settles. The listener goes with the pull: the
 * signal is the pool's, and lives as long as it.
 */
function abandonOnAbort(pull: Promise<unknown>, helpers: JobHelpers, code: string): Promise<never> {
  return new Promise<never>((_, reject) => {
    const signal = helpers.abortSignal as AbortSignal | undefined;
    if (!signal) return;
    const abandon = () => {
      const at = Date.now();
      pull.then(
        () =>
          helpers.logger.info(`docs pack ${code}: the pull given up at its pool's shutdown ended after all, ${Date.now() - at} ms later`),
        (err: Error) =>
          helpers.logger.info(
            `docs pack ${code}: the pull given up at its pool's shutdown failed ${Date.now() - at} ms later: ${err.message}`,
          ),
      );
      reject(new Error(`docs pack ${code}: pull given up: its worker pool shut down before it ended (it is pulled again)`));
    };
    if (signal.aborted) return abandon();
    signal.addEventListener('abort', abandon, { once: true });
    pull.then(
      () => signal.removeEventListener('abort', abandon),
      () => signal.removeEventListener('abort', abandon),
    );
  });
}

/**
 * Pulls one pack; throws (so graphile-worker retries) when the fetch or the ingest failed. Why a
 * fetch failed is logged here; the error thrown says only what last_error says. Without a Kysely
 * handle in deps, one is made over the same pool (never destroyed: the pool belongs to the
 * caller). Without `packHosts` (DOCO_PACK_HOSTS) the default host policy alone applies.
 *
 * The task stops waiting when its pool aborts it. graphile-worker aborts a pool's running tasks
 * 5 s into the pool's shutdown, and a pool shuts down when it cannot write a job's end (the
 * database gone, as when the primary stops); the runner then starts a new pool, but a job still
 * running in the old one stays locked by it, however long it runs (src/jobs/heartbeats.ts frees
 * only what a stopped pool no longer runs). In the scale suite a pull that never settled after the
 * primary's stop held its pack's job so, and no later change of the pack was pulled (docs/jobs.md,
 * "A pack pull stops when its pool does"). Its job now fails and is pulled again on
 * a live pool; whatever of the old pull still runs ends under the pack's lock, which the new pull
 * waits for (withPackLock), so the two never ingest at once.
 */
export const packPull = (deps: { sql: Sql; db?: Db; packHosts?: PackHosts }): Task => {
  const db = deps.db ?? kyselyOver(deps.sql);
  return async (payload, helpers) => {
    const { workspaceId, code } = v.parse(PayloadSchema, payload);
    const pull = pullDocsPack({ sql: deps.sql, db, packHosts: deps.packHosts ?? [] }, workspaceId, code);
    const result = await Promise.race([pull, abandonOnAbort(pull, helpers, code)]);
    if (result.outcome === 'failed') {
      if (result.detail !== result.error) helpers.logger.warn(`docs pack ${code}: ${result.detail}`);
      throw new Error(`docs pack ${code}: ${result.error}`);
    }
    if (result.outcome === 'ingested') {
      const r = result.report;
      helpers.logger.info(
        `docs pack ${code}: ${r.created} created, ${r.updated} updated, ${r.skipped} unchanged; reap ${r.reap.outcome} (${r.reap.count})`,
      );
    } else helpers.logger.debug(`docs pack ${code}: ${result.outcome}`);
  };
};
