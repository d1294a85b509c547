// The docs-pack job `docs__pack_pull` {workspaceId, code}. How it is queued (at registration,
// and for every registered pack at start-up) is src/ingest/packs/queue.ts.
import type { Task } from 'graphile-worker';
import * as v from 'valibot';
import type { PackHosts } from '../config/pack-hosts.js';
import { kyselyOver, type Db, type Sql } from '../db/connect.js';
import { pullDocsPack } from '../ingest/packs/pull.js';

const PayloadSchema = v.object({ workspaceId: v.string(), code: v.string() });

/**
 * Pulls one pack; throws (so graphile-worker retries) when the fetch or the ingest failed. Why a
 * fetch failed is logged here; the error thrown says only what last_error says. Without a Kysely
 * handle in deps, one is made over the same pool (never destroyed: the pool belongs to the
 * caller). Without `packHosts` (DOCO_PACK_HOSTS) the default host policy alone applies.
 */
export const packPull = (deps: { sql: Sql; db?: Db; packHosts?: PackHosts }): Task => {
  const db = deps.db ?? kyselyOver(deps.sql);
  return async (payload, helpers) => {
    const { workspaceId, code } = v.parse(PayloadSchema, payload);
    const result = await pullDocsPack({ sql: deps.sql, db, packHosts: deps.packHosts ?? [] }, workspaceId, code);
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
