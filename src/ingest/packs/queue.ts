// Queueing docs-pack pulls through SQL (graphile_worker.add_job), so no worker handle is needed:
// at registration (inside the registering transaction) and for every registered pack at
// start-up; and the register / unregister steps the REST routes and the NATS subscriber share.
// The job itself is src/jobs/pack-tasks.ts.
import type { TransactionSql } from 'postgres';
import type { PackHosts } from '../../config/pack-hosts.js';
import type { Sql } from '../../db/connect.js';
import { AppError } from '../../errors.js';
import { deletePackDocs } from './delete.js';
import { judgeBaseUrl } from './host-policy.js';
import type { PackDeps } from './pull.js';
import { registeredOver, registerPack, type PackRow } from './registry.js';

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

/**
 * Refuses a base URL the host policy already refuses without DNS: a literal loopback, private,
 * link-local or metadata address (or `localhost`) that DOCO_PACK_HOSTS does not list. A name is
 * judged by its addresses when the pack is fetched.
 */
export function checkPackBaseUrl(hosts: PackHosts, baseUrl: string): void {
  const verdict = judgeBaseUrl(hosts, baseUrl);
  if (!verdict.allowed)
    throw new AppError(
      'validation_failed',
      `docs pack registration is invalid: base_url names a ${verdict.kind} address; docs packs are fetched from loopback, private, ` +
        'link-local and metadata addresses only when an operator lists the host or a range holding it in DOCO_PACK_HOSTS',
      { issues: [{ path: 'base_url', message: 'is refused by the host policy' }] },
    );
}

/**
 * Registers a pack and queues its pull in one transaction: a registration never lacks its pull.
 * A base URL the host policy refuses outright is a validation_failed error, and nothing is written.
 */
export async function registerAndQueuePull(
  sql: Sql,
  hosts: PackHosts,
  workspaceId: string,
  code: string,
  baseUrl: string,
  opts: { overNats?: boolean } = {},
): Promise<{ pack: PackRow; jobId: string }> {
  checkPackBaseUrl(hosts, baseUrl);
  return sql.begin(async (tx) => {
    if (opts.overNats) await refuseNewHost(tx, workspaceId, code, baseUrl);
    const pack = await registerPack(tx, workspaceId, code, baseUrl, opts.overNats ? 'nats' : 'rest');
    return { pack, jobId: await queuePackPull(tx, workspaceId, code) };
  });
}

/**
 * A registered code stays at its host over NATS: a message names no sender, so a registration
 * moving `billing` to another host would have that host's pack rewrite billing's docs (a hostile
 * review). A new port or path on the same host (a redeploy) is taken; a new host is a person's
 * call (`POST /system/docs/packs`).
 */
async function refuseNewHost(tx: TransactionSql, workspaceId: string, code: string, baseUrl: string): Promise<void> {
  const [held] = await tx<{ base_url: string }[]>`
    select base_url from doco.docs_packs where workspace_id = ${workspaceId} and code = ${code} for update`;
  if (held && new URL(held.base_url).hostname !== new URL(baseUrl).hostname)
    throw new AppError(
      'forbidden',
      `docs pack ${code} is registered at ${held.base_url}: a registration at another host is a person's to make (POST /system/docs/packs with a write token)`,
    );
}

/**
 * Unregisters a pack: its waiting pull is dropped, then its docs are retired and its row goes.
 * Safe to repeat. Over NATS, a pack a person registered is refused: an unregistration then a
 * registration would move it to another host, past refuseNewHost (a hostile review).
 */
export async function unregisterPack(
  deps: PackDeps,
  workspaceId: string,
  code: string,
  opts: { overNats?: boolean } = {},
): Promise<{ retired: number }> {
  if (opts.overNats && (await registeredOver(deps.sql, workspaceId, code)) === 'rest')
    throw new AppError(
      'forbidden',
      `docs pack ${code} was registered by a person: it is a person's to unregister (DELETE /system/docs/packs/${code} with a write token)`,
    );
  await cancelPackPull(deps.sql, workspaceId, code);
  return deletePackDocs(deps, workspaceId, code);
}
