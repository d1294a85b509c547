// Webhook deliveries (doco.connector_deliveries): recorded once by delivery id, so a redelivery
// is acknowledged and dropped; the payload waits there for its job, then is cleared. A GitHub
// delivery is also recorded once by the hash of its event and body (its signature covers nothing
// else), so the same body sent again under a new delivery id is dropped too.
import { createHash } from 'node:crypto';
import type { Queryable } from './store.js';

export interface DeliveryRow {
  kind: string;
  delivery_id: string;
  connector_id: string | null;
  event: string;
  payload: unknown;
  processed_at: Date | null;
}

/** The replay key of a delivery whose signature covers its body alone: sha256 of the event name and the raw body. */
export function deliveryBodyHash(event: string, raw: Uint8Array): string {
  return createHash('sha256').update(event).update('\n').update(raw).digest('hex');
}

/**
 * Records a delivery, with the named queue its job runs in (`jobQueue`, kept so that a job queued
 * again runs there too); false when this id (or, given `bodyHash`, this event and body) was seen
 * before: a redelivery or a replay, do nothing more. Seen means within the 30 days delivery rows
 * are kept (sql/connectors.sql, doco.prune_connector_deliveries).
 */
export async function recordDelivery(
  q: Queryable,
  d: { kind: string; deliveryId: string; connectorId: string; event: string; payload: unknown; bodyHash?: string; jobQueue?: string },
): Promise<boolean> {
  const rows = await q`
    insert into doco.connector_deliveries (kind, delivery_id, connector_id, event, payload, body_hash, job_queue)
    values (${d.kind}, ${d.deliveryId}, ${d.connectorId}, ${d.event}, ${q.json(d.payload as never)}, ${d.bodyHash ?? null}, ${d.jobQueue ?? null})
    on conflict do nothing
    returning delivery_id`;
  return rows.length > 0;
}

export async function loadDelivery(q: Queryable, kind: string, deliveryId: string): Promise<DeliveryRow | undefined> {
  const [row] = await q<DeliveryRow[]>`
    select kind, delivery_id, connector_id, event, payload, processed_at
      from doco.connector_deliveries where kind = ${kind} and delivery_id = ${deliveryId}`;
  return row;
}

/** Marks a delivery done and drops its payload: the records hold what mattered. */
export async function markDeliveryProcessed(q: Queryable, kind: string, deliveryId: string): Promise<void> {
  await q`update doco.connector_deliveries set processed_at = now(), payload = null, error = null where kind = ${kind} and delivery_id = ${deliveryId}`;
}

export async function markDeliveryFailed(q: Queryable, kind: string, deliveryId: string, error: string): Promise<void> {
  await q`update doco.connector_deliveries set error = ${error.slice(0, 2000)} where kind = ${kind} and delivery_id = ${deliveryId}`;
}
