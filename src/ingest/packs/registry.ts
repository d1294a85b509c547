// The registered docs packs (doco.docs_packs): register, look up, record each pull's outcome,
// and the per-pack lock that keeps a pull and a delete of the same code from interleaving.
import type { TransactionSql } from 'postgres';
import type { Sql } from '../../db/connect.js';

export interface PackRow {
  code: string;
  base_url: string;
  registered_at: string;
  last_fetched_at: string | null;
  last_hash: string | null;
  last_error: string | null;
}

const COLUMNS = 'code, base_url, registered_at, last_fetched_at, last_hash, last_error';

type Queryable = Sql | TransactionSql;

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const toRow = (r: Omit<PackRow, 'registered_at' | 'last_fetched_at'> & { registered_at: Date; last_fetched_at: Date | null }): PackRow => ({
  ...r,
  registered_at: iso(r.registered_at)!,
  last_fetched_at: iso(r.last_fetched_at),
});

/** How a pack was registered: by a person (REST), or by a NATS message, which names no sender. */
export type RegisteredOver = 'rest' | 'nats';

/**
 * Registers a pack, or registers it again (possibly at a new base URL): `registered_at` is the
 * latest registration, which lets a delete running meanwhile leave the new one standing. A
 * person's registration stays a person's when a NATS message registers the code again.
 */
export async function registerPack(
  q: Queryable,
  workspaceId: string,
  code: string,
  baseUrl: string,
  over: RegisteredOver = 'rest',
): Promise<PackRow> {
  const rows = await q.unsafe(
    `insert into doco.docs_packs (workspace_id, code, base_url, registered_over) values ($1, $2, $3, $4)
     on conflict (workspace_id, code) do update set base_url = excluded.base_url, registered_at = now(),
       registered_over = case when excluded.registered_over = 'rest' then 'rest' else doco.docs_packs.registered_over end
     returning ${COLUMNS}`,
    [workspaceId, code, baseUrl, over],
  );
  return toRow(rows[0] as never);
}

/** How the code was registered, when it is. */
export async function registeredOver(q: Queryable, workspaceId: string, code: string): Promise<RegisteredOver | undefined> {
  const [row] = await q<{ registered_over: RegisteredOver }[]>`
    select registered_over from doco.docs_packs where workspace_id = ${workspaceId} and code = ${code}`;
  return row?.registered_over;
}

export async function findPack(q: Queryable, workspaceId: string, code: string): Promise<PackRow | undefined> {
  const rows = await q.unsafe(`select ${COLUMNS} from doco.docs_packs where workspace_id = $1 and code = $2`, [workspaceId, code]);
  return rows[0] ? toRow(rows[0] as never) : undefined;
}

export async function listPacks(q: Queryable, workspaceId: string): Promise<PackRow[]> {
  const rows = await q.unsafe(`select ${COLUMNS} from doco.docs_packs where workspace_id = $1 order by code`, [workspaceId]);
  return rows.map((r) => toRow(r as never));
}

/**
 * A pull that fetched the pack. `hash` is what the records now hold: the pack's hash after a
 * complete ingest, or null when the records may match no pack (a refused reap) so the next pull
 * cannot be skipped.
 */
export async function recordPulled(
  sql: Sql,
  workspaceId: string,
  code: string,
  outcome: { hash: string | null; error: string | null },
): Promise<void> {
  await sql`
    update doco.docs_packs set last_fetched_at = now(), last_hash = ${outcome.hash}, last_error = ${outcome.error}
     where workspace_id = ${workspaceId} and code = ${code}`;
}

/**
 * A pull that failed. A failed fetch touched nothing, so the last hash stays; a failed ingest
 * may have written part of the pack, so its hash is dropped (`clearHash`).
 */
export async function recordPullError(
  sql: Sql,
  workspaceId: string,
  code: string,
  error: string,
  opts: { clearHash?: boolean } = {},
): Promise<void> {
  await sql`
    update doco.docs_packs set last_error = ${error}, last_hash = case when ${opts.clearHash ?? false} then null else last_hash end
     where workspace_id = ${workspaceId} and code = ${code}`;
}

/** When the pack was last registered, exactly: as text, since a JS Date drops the microseconds. */
export async function registrationMark(q: Queryable, workspaceId: string, code: string): Promise<string | undefined> {
  const [row] = await q<
    { mark: string }[]
  >`select registered_at::text as mark from doco.docs_packs where workspace_id = ${workspaceId} and code = ${code}`;
  return row?.mark;
}

/**
 * Drops the registration a delete started from. A registration made since stays, with its hash
 * cleared: its records were just retired, so its queued pull must ingest, not skip.
 */
export async function removePackRow(q: Queryable, workspaceId: string, code: string, mark: string | undefined): Promise<void> {
  const gone =
    await q`delete from doco.docs_packs where workspace_id = ${workspaceId} and code = ${code} and registered_at::text = ${mark ?? null}::text`;
  if (!gone.count) await q`update doco.docs_packs set last_hash = null where workspace_id = ${workspaceId} and code = ${code}`;
}

/**
 * Runs fn holding a session advisory lock on (workspace, code), so a pull and a delete of the
 * same pack run one after the other; the lock is released however fn ends.
 */
export async function withPackLock<T>(sql: Sql, workspaceId: string, code: string, fn: () => Promise<T>): Promise<T> {
  const conn = await sql.reserve();
  const key = `${workspaceId}:${code}`;
  try {
    await conn`select pg_advisory_lock(hashtext('doco.docs_pack'), hashtext(${key}))`;
    try {
      return await fn();
    } finally {
      await conn`select pg_advisory_unlock(hashtext('doco.docs_pack'), hashtext(${key}))`;
    }
  } finally {
    conn.release();
  }
}
