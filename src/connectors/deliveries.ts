// Webhook deliveries (doco.connector_deliveries): recorded once by delivery id, so a redelivery
// is acknowledged and dropped; the payload waits there for its job, then is cleared.
import type { Queryable } from './store.js';

export interface DeliveryRow {
  kind: string;
  delivery_id: string;
  connector_id: string | null;
  event: string;
  payload: unknown;
  processed_at: Date | null;
}

/** Records a delivery; false when this id was seen before (a redelivery: do nothing more). */
export async function recordDelivery(
  q: Queryable,
  d: { kind: string; deliveryId: string; connectorId: string; event: string; payload: unknown },
): Promise<boolean> {
  const rows = await q`
    insert into doco.connector_deliveries (kind, delivery_id, connector_id, event, payload)
    values (${d.kind}, ${d.deliveryId}, ${d.connectorId}, ${d.event}, ${q.json(d.payload as never)})
    on conflict (kind, delivery_id) do nothing
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
