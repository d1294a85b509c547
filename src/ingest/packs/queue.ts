// Queueing docs-pack pulls through SQL (graphile_worker.add_job), so no worker handle is needed:
// at registration (inside the registering transaction) and for every registered pack at
// start-up; and the register / unregister steps the REST routes and the NATS subscriber share.
// The job itself is src/jobs/pack-tasks.ts.
import type { TransactionSql } from 'postgres';
import type { Sql } from '../../db/connect.js';
import { deletePackDocs } from './delete.js';
import type { PackDeps } from './pull.js';
import { registerPack, type PackRow } from './registry.js';

export const PACK_PULL_TASK = 'docs__pack_pull';
/** A pack that cannot be fetched is tried again with graphile-worker's backoff, then left. */
export const PACK_PULL_MAX_ATTEMPTS = 5;

const jobKey = (workspaceId: string, code: string) => `${PACK_PULL_TASK}:${workspaceId}:${code}`;

/** Queues a pull of one pack; a pull already waiting for the same pack is replaced, not doubled. */
export async function queuePackPull(tx: Sql | TransactionSql, workspaceId: string, code: string): Promise<string> {
  // The payload goes as an object: postgres.js serialises a json parameter itself.
  const rows = await tx.unsafe(`select (graphile_worker.add_job($1, $2::json, job_key := $3, max_attempts := $4)).id::text as id`, [
    PACK_PULL_TASK,
    { workspaceId, code } as never,
    jobKey(workspaceId, code),
    PACK_PULL_MAX_ATTEMPTS,
  ]);
  return (rows[0] as unknown as { id: string }).id;
}

/** Drops a waiting pull of this pack (a running one is left to finish, and not retried). */
export async function cancelPackPull(tx: Sql | TransactionSql, workspaceId: string, code: string): Promise<void> {
  await tx.unsafe(`select graphile_worker.remove_job($1)`, [jobKey(workspaceId, code)]);
}

/** The start-up re-pull: one job per registered pack, in every workspace. Returns how many. */
export async function queueAllPackPulls(sql: Sql): Promise<number> {
  const rows = await sql.unsafe(
    `select graphile_worker.add_job($1, json_build_object('workspaceId', workspace_id, 'code', code),
                                    job_key := $1 || ':' || workspace_id || ':' || code, max_attempts := $2)
       from doco.docs_packs order by workspace_id, code`,
    [PACK_PULL_TASK, PACK_PULL_MAX_ATTEMPTS],
  );
  return rows.length;
}

/** Registers a pack and queues its pull in one transaction: a registration never lacks its pull. */
export async function registerAndQueuePull(
  sql: Sql,
  workspaceId: string,
  code: string,
  baseUrl: string,
): Promise<{ pack: PackRow; jobId: string }> {
  return sql.begin(async (tx) => {
    const pack = await registerPack(tx, workspaceId, code, baseUrl);
    return { pack, jobId: await queuePackPull(tx, workspaceId, code) };
  });
}

/** Unregisters a pack: its waiting pull is dropped, then its docs are retired and its row goes. Safe to repeat. */
export async function unregisterPack(deps: PackDeps, workspaceId: string, code: string): Promise<{ retired: number }> {
  await cancelPackPull(deps.sql, workspaceId, code);
  return deletePackDocs(deps, workspaceId, code);
}
