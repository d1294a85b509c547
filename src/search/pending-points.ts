// Orphan points (migration 0009): a drain records the point ids it is about to write before it
// writes them, and clears them in the transaction that records their chunks. What a dead or
// failed drain left recorded is swept at the start of the next drain: a point no chunk row
// holds is removed from the store. The sweep judges a record only under its drain lock, so it
// never removes the points of a drain still running (in this process or another).
import type { TransactionSql } from 'postgres';
import type { Sql } from '../db/connect.js';
import type { Log } from '../runtime/log.js';
import { tryLockRecords } from './drain-locks.js';
import type { VectorStore } from './vector-store.js';

/** Records, in a statement that commits at once, the points a drain is about to write. */
export async function recordPendingPoints(sql: Sql, points: { id: string; nodeId: string }[], embedder: string): Promise<void> {
  if (!points.length) return;
  await sql`
    insert into doco.index_pending_points ${sql(points.map((p) => ({ point_id: p.id, node_id: p.nodeId, embedder })))}
    on conflict (point_id) do nothing`;
}

/** Clears the points a drain wrote, in the transaction that records them in doco.chunks. */
export async function clearPendingPoints(tx: TransactionSql, ids: string[]): Promise<void> {
  if (ids.length) await tx`delete from doco.index_pending_points where point_id = any(${ids}::uuid[])`;
}

const SWEEP_BATCH = 1000;

/** Removes from the store the points dead drains left behind; returns how many. */
export async function sweepOrphanPoints(deps: { sql: Sql; store: VectorStore; embedder: { identity: string }; log: Log }): Promise<number> {
  let removed = 0;
  for (;;) {
    const swept = await deps.sql.begin(async (tx) => {
      const rows = await tx<{ id: string; node_id: string; embedder: string }[]>`
        select point_id::text as id, node_id, embedder from doco.index_pending_points
         order by point_id limit ${SWEEP_BATCH} for update skip locked`;
      if (!rows.length) return undefined;
      const free = await tryLockRecords(tx, [...new Set(rows.map((r) => r.node_id))]);
      const judged = rows.filter((r) => free.has(r.node_id));
      // Under the lock no drain is writing these records: re-read whether a chunk row holds each point.
      const held = new Set((await tx<{ id: string }[]>`select id::text from doco.chunks where id = any(${judged.map((r) => r.id)}::uuid[])`).map((r) => r.id));
      // Another embedder's points live in a store this process does not open, no longer read.
      const orphans = judged.filter((r) => !held.has(r.id) && r.embedder === deps.embedder.identity).map((r) => r.id);
      if (orphans.length) await deps.store.remove(orphans);
      await tx`delete from doco.index_pending_points where point_id = any(${judged.map((r) => r.id)}::uuid[])`;
      return { judged: judged.length, orphans: orphans.length, all: rows.length };
    });
    if (!swept) break;
    removed += swept.orphans;
    // Rows whose records are busy stay for a later sweep; stop rather than spin on them.
    if (swept.judged < swept.all || swept.all < SWEEP_BATCH) break;
  }
  if (removed) deps.log.info(`index drain: removed ${removed} orphan point(s) an interrupted drain left in the ${deps.store.kind} store`);
  return removed;
}
