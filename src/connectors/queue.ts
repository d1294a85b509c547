// Queueing connector work: the job names the worker runs (src/jobs/connector-tasks.ts), and the
// calls that add a job through SQL (graphile_worker.add_job), so a webhook route can queue its
// delivery inside the transaction that records it, with no worker handle.
import type { TransactionSql } from 'postgres';
import type { Sql } from '../db/connect.js';

export const DELIVERY_TASK = 'connectors__delivery';
export const SWEEP_TASK = 'connectors__sweep';

/**
 * Queues a delivery's processing; called in the transaction that records it. Deliveries given
 * one `queue` run one at a time, in the order they came (a Slack channel's edit after its post).
 */
export async function queueDelivery(tx: Sql | TransactionSql, kind: string, deliveryId: string, queue?: string): Promise<void> {
  await tx.unsafe(`select graphile_worker.add_job($1, $2::json, queue_name := $3, max_attempts := 10)`, [
    DELIVERY_TASK,
    { kind, deliveryId } as never,
    queue ?? null,
  ]);
}

/** Queues a sweep of one connector now (its first backfill, when it is added). */
export async function queueSweep(tx: Sql | TransactionSql, connectorId: string): Promise<void> {
  await tx.unsafe(`select graphile_worker.add_job($1, $2::json, job_key := $3, max_attempts := 3)`, [
    SWEEP_TASK,
    { connectorId } as never,
    `${SWEEP_TASK}:${connectorId}`,
  ]);
}
