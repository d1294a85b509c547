// doco.doc_ingest_runs, the record operators read of every ingest run. A run holds an advisory
// lock on its row from the moment the row exists until it is finished, on the run's own
// connection, so Postgres frees it however the run ends. A `running` row whose lock nobody holds
// belonged to a process that stopped mid-run (killed, crashed, cut off): the next run marks it
// `abandoned` instead of leaving it unfinished forever (migration 0010).
import type { ReservedSql } from 'postgres';
import type { Sql } from '../../db/connect.js';
import type { RunScope } from './store.js';
import type { IngestReport } from './types.js';

/** The advisory-lock class (first key of the two-key form) a run holds its row under: "run". */
const RUN_LOCK_CLASS = 0x72756e;

export const ABANDONED_ERROR = 'abandoned: the process running it stopped before it finished (killed, crashed or cut off from the database)';

/**
 * Runs `fn` on one connection of its own, the one every step of the run uses; its session
 * locks (the run's and the source's) are all let go before it returns to the pool.
 */
export async function withRunConnection<T>(sql: Sql, fn: (conn: ReservedSql) => Promise<T>): Promise<T> {
  const conn = await sql.reserve();
  try {
    return await fn(conn);
  } finally {
    await conn`select pg_advisory_unlock_all()`.catch(() => undefined);
    conn.release();
  }
}

/** Marks `running` rows nobody holds the lock of as abandoned; returns their ids. Call before startRun. */
export async function markAbandonedRuns(sql: Sql): Promise<number[]> {
  // A transaction-level try-lock from this session: false while the run's session holds it.
  const rows = await sql<{ id: string }[]>`
    update doco.doc_ingest_runs set status = 'abandoned', error = ${ABANDONED_ERROR}
     where status = 'running' and pg_try_advisory_xact_lock(${RUN_LOCK_CLASS}, (id % 2147483647)::int)
     returning id::text`;
  return rows.map((r) => Number(r.id));
}

/** The run's row, inserted and locked in one transaction: no one ever sees it running and unlocked. */
export async function startRun(conn: ReservedSql, scope: RunScope, root: string, only: string[] | undefined): Promise<number> {
  await conn`begin`;
  try {
    const [row] = await conn<{ id: string }[]>`
      insert into doco.doc_ingest_runs (workspace_id, source, root, only_files)
      values (${scope.workspaceId}, ${scope.source}, ${root}, ${only?.length ? only : null})
      returning id::text`;
    // A session lock: it outlives this transaction and ends with the run (or its connection).
    await conn`select pg_advisory_lock(${RUN_LOCK_CLASS}, (${row!.id}::bigint % 2147483647)::int)`;
    await conn`commit`;
    return Number(row!.id);
  } catch (err) {
    await conn`rollback`.catch(() => undefined);
    throw err;
  }
}

export async function finishRun(conn: ReservedSql, runId: number, files: number, report: Omit<IngestReport, 'run_id'>, error?: string): Promise<void> {
  await conn`
    update doco.doc_ingest_runs
       set status = ${error ? 'failed' : 'finished'}, finished_at = now(), files = ${files}, unreadable = ${report.unreadable},
           created = ${report.created}, updated = ${report.updated}, skipped = ${report.skipped}, unchanged_files = ${report.unchanged_files},
           reap_outcome = ${error ? null : report.reap.outcome}, reap_reason = ${report.reap.reason}, reap_count = ${error ? null : report.reap.count},
           secrets = ${conn.json(report.secrets as never)}, error = ${error ?? null}
     where id = ${runId}`;
  await conn`select pg_advisory_unlock(${RUN_LOCK_CLASS}, (${runId}::bigint % 2147483647)::int)`;
}
