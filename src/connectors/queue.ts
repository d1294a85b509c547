// Queueing connector work: the job names the worker runs (src/jobs/connector-tasks.ts), and the
// calls that add a job through SQL (graphile_worker.add_job), so a webhook route can queue its
// delivery inside the transaction that records it, with no worker handle; and the sweep that
// queues again a delivery whose job was lost.
import type { TransactionSql } from 'postgres';
import type { Sql } from '../db/connect.js';

export const DELIVERY_TASK = 'connectors__delivery';
export const SWEEP_TASK = 'connectors__sweep';
export const REQUEUE_TASK = 'connectors__requeue';

/**
 * Queues a recorded delivery's processing, in the named queue recorded with it (deliveries of one
 * queue run one at a time, in the order they came: a Slack channel's edit after its post); called
 * in the transaction that records it. Keyed by the delivery (doco.queue_delivery, sql/connectors.sql).
 */
export async function queueDelivery(tx: Sql | TransactionSql, kind: string, deliveryId: string): Promise<void> {
  await tx`select doco.queue_delivery(${kind}, ${deliveryId})`;
}

/**
 * Queues again each delivery left unprocessed with no job for longer than `afterS` seconds (one
 * whose job was lost: docs/jobs.md, connectors__delivery); returns their job keys.
 */
export async function requeueLostDeliveries(sql: Sql, afterS: number): Promise<string[]> {
  const [row] = await sql<{ lost: string[] }[]>`select doco.requeue_lost_deliveries(make_interval(secs => ${afterS})) as lost`;
  return row?.lost ?? [];
}

/** Queues a sweep of one connector now (its first backfill, when it is added). */
export async function queueSweep(tx: Sql | TransactionSql, connectorId: string): Promise<void> {
  await tx.unsafe(`select graphile_worker.add_job($1, $2::json, job_key := $3, max_attempts := 3)`, [
    SWEEP_TASK,
    { connectorId } as never,
    `${SWEEP_TASK}:${connectorId}`,
  ]);
}
