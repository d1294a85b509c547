// Orphan points (migration 0009): a drain records the point ids it is about to write before it
// writes them, and clears them in the transaction that records their chunks; the points of
// chunks it deletes are recorded by that transaction and cleared once removed from the store.
// What a dead or failed drain left recorded is swept at the start of the next drain: a point no
// chunk row holds is removed, one a chunk row holds is written again from it. The sweep judges a
// record only under its drain lock, so it never touches a drain still running (here or elsewhere).
import type { TransactionSql } from 'postgres';
import { pointsOf, type StoredChunk } from './stored-chunk.js';
import type { Sql } from '../db/connect.js';
import type { Embedder } from '../providers/embedder.js';
import type { Log } from '../lib/log.js';
import { tryLockRecords } from './drain-locks.js';
import type { VectorStore } from '../providers/vector/port.js';

/**
 * Records points whose store state may not match doco.chunks until a drain finishes: on the
 * pool (committed at once) before points are written, or in the drain's transaction for the
 * points of chunks it deletes (removed from the store after the commit).
 */
export async function recordPendingPoints(
  sql: Sql | TransactionSql,
  points: { id: string; nodeId: string }[],
  embedder: string,
): Promise<void> {
  if (!points.length) return;
  // Two array parameters, not three per point: a drain's batch is a thousand points, and a
  // statement of 3,000 parameters (a new one for every batch size) cost more to bind and plan
  // than its insert.
  await sql`
    insert into doco.index_pending_points (point_id, node_id, embedder)
    select unnest(${points.map((p) => p.id)}::uuid[]), unnest(${points.map((p) => p.nodeId)}::text[]), ${embedder}
    on conflict (point_id) do nothing`;
}

/** Clears points whose store state now matches doco.chunks (in the committing transaction, or after the removal). */
export async function clearPendingPoints(tx: Sql | TransactionSql, ids: string[]): Promise<void> {
  if (ids.length) await tx`delete from doco.index_pending_points where point_id = any(${ids}::uuid[])`;
}

const SWEEP_BATCH = 1000;

export interface SweepDeps {
  sql: Sql;
  store: VectorStore;
  embedder: Embedder;
  log: Log;
}

/**
 * Puts right what dead or failed drains left in the store; returns how many orphan points it
 * removed. A recorded point no chunk row of this embedder holds is removed; one a chunk row
 * holds (a failed drain overwrote it, then rolled back) is written again from that row.
 */
export async function sweepOrphanPoints(deps: SweepDeps): Promise<number> {
  const identity = deps.embedder.identity;
  let removed = 0;
  let restored = 0;
  for (;;) {
    const swept = await deps.sql.begin(async (tx) => {
      const rows = await tx<{ id: string; node_id: string; embedder: string }[]>`
        select point_id::text as id, node_id, embedder from doco.index_pending_points
         order by point_id limit ${SWEEP_BATCH} for update skip locked`;
      if (!rows.length) return undefined;
      const free = await tryLockRecords(tx, [...new Set(rows.map((r) => r.node_id))]);
      const judged = rows.filter((r) => free.has(r.node_id));
      // Another embedder's points live in a store this process does not open, no longer read.
      const ours = judged.filter((r) => r.embedder === identity).map((r) => r.id);
      // Under the lock no drain is writing these records: what doco.chunks holds now is final.
      const held = await tx<StoredChunk[]>`
        select c.id::text, c.workspace_id, c.collection_id, c.node_id, c.node_type, c.shape, c.source_kind, doco.chunk_embed_input(c) as embed_input, c.body,
               (select left(n.body->'pointer'->>'path', 1000) from doco.nodes n where n.id = c.node_id) as path
          from doco.chunks c where c.id = any(${ours}::uuid[]) and c.embedder = ${identity}`;
      const heldIds = new Set(held.map((c) => c.id));
      const orphans = ours.filter((id) => !heldIds.has(id));
      if (orphans.length) await deps.store.remove(orphans);
      if (held.length) await deps.store.upsert(await pointsOf(deps.embedder, held));
      await tx`delete from doco.index_pending_points where point_id = any(${judged.map((r) => r.id)}::uuid[])`;
      return { judged: judged.length, all: rows.length, orphans: orphans.length, restored: held.length };
    });
    if (!swept) break;
    removed += swept.orphans;
    restored += swept.restored;
    // Rows whose records are busy stay for a later sweep; stop rather than spin on them.
    if (swept.judged < swept.all || swept.all < SWEEP_BATCH) break;
  }
  if (removed || restored) {
    // Not only a dead drain's: a drain removes its deleted chunks' points just after its commit,
    // unlocked, so a sweep starting then (another lane or process) may remove them first.
    deps.log.info(
      `index drain: removed ${removed} orphan point(s) and rewrote ${restored} from doco.chunks in the ${deps.store.kind} store, left by an interrupted drain or by one still removing its deleted chunks' points`,
    );
  }
  return removed;
}
