// Running connectors, for the job edge to call: process one recorded delivery, and sweep the
// connectors of a kind. A sweep that fails (the remote is down, rate limited past the cap) is a
// logged warning and the connector's last_error; its cursor stays where the last commit left
// it, and the next tick tries again. A sweep never throws for one connector's failure.
import { loadDelivery, markDeliveryFailed, markDeliveryProcessed } from './deliveries.js';
import type { ItemsReport } from './items.js';
import type { ConnectorDeps, SweepReport } from './kind.js';
import { connectorKind } from './registry.js';
import { findConnector, listConnectors, recordSyncError, recordSyncOk, type ConnectorRow } from './store.js';

export const describeItems = (r: ItemsReport) =>
  `${r.created} created, ${r.updated} updated, ${r.unchanged} unchanged, ${r.stale} stale, ${r.retired} retired${r.gone ? `, ${r.gone} already retired` : ''}${r.secrets.length ? `, ${r.secrets.length} not written (they hold credentials: ${[...new Set(r.secrets.map((s) => s.kind))].join(', ')})` : ''}`;

export type DeliveryOutcome = { outcome: 'processed'; report: ItemsReport } | { outcome: 'already_processed' | 'unknown' | 'no_connector' };

/** Processes a delivery once; throws (to be retried) when it failed, keeping the reason on the row. */
export async function processDelivery(deps: ConnectorDeps, kind: string, deliveryId: string): Promise<DeliveryOutcome> {
  const delivery = await loadDelivery(deps.sql, kind, deliveryId);
  if (!delivery) return { outcome: 'unknown' };
  if (delivery.processed_at) return { outcome: 'already_processed' };
  const connector = delivery.connector_id ? await findConnector(deps.sql, delivery.connector_id) : undefined;
  if (!connector) {
    await markDeliveryProcessed(deps.sql, kind, deliveryId);
    return { outcome: 'no_connector' };
  }
  try {
    const report = await connectorKind(kind).handleDelivery(deps, connector, delivery);
    await markDeliveryProcessed(deps.sql, kind, deliveryId);
    if (report.secrets.length) deps.log.warn(`${kind} delivery ${deliveryId}: ${describeItems(report)}`);
    return { outcome: 'processed', report };
  } catch (err) {
    await markDeliveryFailed(deps.sql, kind, deliveryId, (err as Error).message);
    throw err;
  }
}

export interface SweepOutcome {
  connector: string;
  ok: boolean;
  /** Another sweep of this connector was running. */
  skipped?: boolean;
  report?: SweepReport;
  error?: string;
}

const SWEEP_LOCK_CLASS = 0x737770; // "swp"

/**
 * Runs fn unless another sweep of this connector holds its lock (a cron tick during a long first
 * backfill): that one is skipped, not queued behind. A session lock on a reserved connection,
 * freed however fn ends (and by Postgres if the process dies).
 */
async function unlessSweeping<T>(deps: ConnectorDeps, connectorId: string, fn: () => Promise<T>): Promise<T | undefined> {
  const conn = await deps.sql.reserve();
  try {
    const [row] = await conn<{ got: boolean }[]>`select pg_try_advisory_lock(${SWEEP_LOCK_CLASS}, hashtext(${connectorId})) as got`;
    if (!row?.got) return undefined;
    try {
      return await fn();
    } finally {
      await conn`select pg_advisory_unlock(${SWEEP_LOCK_CLASS}, hashtext(${connectorId}))`;
    }
  } finally {
    conn.release();
  }
}

/** Sweeps one connector, recording the outcome on its row; skipped when a sweep of it is running. */
export async function sweepConnector(deps: ConnectorDeps, connector: ConnectorRow): Promise<SweepOutcome> {
  const outcome = await unlessSweeping(deps, connector.id, () => sweepUnlocked(deps, connector));
  return outcome ?? { connector: connector.id, ok: true, skipped: true };
}

async function sweepUnlocked(deps: ConnectorDeps, connector: ConnectorRow): Promise<SweepOutcome> {
  const label = `${connector.kind} connector ${connector.id} (${connector.target || connector.routing_key})`;
  try {
    const report = await connectorKind(connector.kind).sweep(deps, connector);
    await recordSyncOk(deps.sql, connector.id);
    const r = report.items;
    if (r.created || r.updated || r.retired || r.secrets.length) deps.log.info(`${label} swept: ${describeItems(r)}`);
    if (r.secrets.length) deps.log.warn(`${label}: ${describeItems(r)}`);
    return { connector: connector.id, ok: true, report };
  } catch (err) {
    const message = (err as Error).message;
    await recordSyncError(deps.sql, connector.id, message);
    deps.log.warn(`${label}: sweep failed, will retry on the next tick: ${message}`);
    return { connector: connector.id, ok: false, error: message };
  }
}

/** Sweeps every active connector of a kind (or the one named), one after the other. */
export async function sweepConnectors(deps: ConnectorDeps, opts: { kind?: string; connectorId?: string }): Promise<SweepOutcome[]> {
  const rows = opts.connectorId
    ? [await findConnector(deps.sql, opts.connectorId)].filter((c): c is ConnectorRow => !!c)
    : await listConnectors(deps.sql, undefined, opts.kind);
  const outcomes: SweepOutcome[] = [];
  // One at a time: GitHub's secondary limits want requests sent serially.
  for (const c of rows) if (c.status === 'active') outcomes.push(await sweepConnector(deps, c));
  return outcomes;
}
