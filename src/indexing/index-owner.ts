// The embedded index lives in one process's memory and is fed from the shared outbox: a second
// process keeping one on the same database would drain part of the outbox into its own copy,
// and each would answer briefs from half the chunks. So the process that opens it holds a
// session advisory lock on the database for as long as it keeps the index; a second one is
// refused with what to do (Qdrant is the index several processes share). The lock goes with
// the connection, so a process killed with SIGKILL leaves nothing held.
import os from 'node:os';
import type { Sql } from '../db/connect.js';
import { OperatorError } from '../errors.js';

/** pg_advisory_lock's key for the embedded index's owner (any fixed bigint unused elsewhere). */
const INDEX_OWNER_LOCK = 0x646f636f_696478n; // "doco" "idx"
const APPLICATION_NAME = 'doco embedded index';

export class IndexOwnedError extends OperatorError {}

export interface IndexOwnership {
  release(): Promise<void>;
}

export async function claimEmbeddedIndex(sql: Sql): Promise<IndexOwnership> {
  const conn = await sql.reserve();
  try {
    const me = `${APPLICATION_NAME} (${os.hostname()} pid ${process.pid})`.slice(0, 63);
    await conn`select set_config('application_name', ${me}, false)`;
    const [got] = await conn<{ ok: boolean }[]>`select pg_try_advisory_lock(${INDEX_OWNER_LOCK.toString()}::bigint) as ok`;
    if (!got?.ok) {
      const [holder] = await conn<{ application_name: string }[]>`
        select a.application_name from pg_locks l join pg_stat_activity a on a.pid = l.pid
         where l.locktype = 'advisory' and l.granted and l.database = (select oid from pg_database where datname = current_database())
           and ((l.classid::bigint << 32) | l.objid::bigint) = ${INDEX_OWNER_LOCK.toString()}::bigint
         limit 1`;
      throw new IndexOwnedError(
        `another Doco process keeps the embedded index of this database (${holder?.application_name || 'its holder is not visible to this user'}): the embedded index is one process's, so stop that one, or set QDRANT_URL on every process to run several`,
      );
    }
  } catch (err) {
    conn.release();
    throw err;
  }
  return {
    async release() {
      try {
        await conn`select pg_advisory_unlock(${INDEX_OWNER_LOCK.toString()}::bigint)`;
      } catch {
        // The connection is gone (Postgres stopped first): the lock went with it.
      } finally {
        conn.release();
      }
    },
  };
}
