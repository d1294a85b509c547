// The per-record advisory lock a drain holds until it commits: two drains never index one
// record at once, and the orphan sweep (pending-points.ts) never judges a record a live drain
// is still writing.
import type { TransactionSql } from 'postgres';

/** The advisory-lock class (first key of the two-key form) under which a drain holds a record. */
export const RECORD_LOCK_CLASS = 0x646f63; // "doc"

type Tx = TransactionSql;

/** Waits for each record's lock, taken in one order so drains never deadlock; held until commit. */
export async function lockRecords(tx: Tx, nodeIds: string[]): Promise<void> {
  await tx`
    select pg_advisory_xact_lock(${RECORD_LOCK_CLASS}, k)
      from (select distinct hashtext(id) as k from unnest(${nodeIds}::text[]) as id) held
     order by k`;
}

/** The records among `nodeIds` whose lock this transaction could take now (held until commit); never waits. */
export async function tryLockRecords(tx: Tx, nodeIds: string[]): Promise<Set<string>> {
  const rows = await tx<{ id: string }[]>`
    select id from unnest(${nodeIds}::text[]) as id where pg_try_advisory_xact_lock(${RECORD_LOCK_CLASS}, hashtext(id))`;
  return new Set(rows.map((r) => r.id));
}
