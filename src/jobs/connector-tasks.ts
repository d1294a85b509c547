// The connector jobs: `connectors__delivery` {kind, deliveryId} processes one webhook delivery
// (queued by the webhook route in the transaction that records it; throws to be retried),
// `connectors__sweep` {kind} or {connectorId} runs the backfill (each kind's crontab entry, and
// once when a connector is added), and `connectors__requeue`, every minute, queues again a
// delivery whose job was lost. All queued through SQL, so no worker handle is needed.
import type { Task } from 'graphile-worker';
import * as v from 'valibot';
import type { DriveClient } from '../connectors/drive/client.js';
import type { GithubClient } from '../connectors/github/client.js';
import type { NotionClient } from '../connectors/notion/client.js';
import type { SlackClient } from '../connectors/slack/client.js';
import type { ConnectorDeps } from '../connectors/kind.js';
import { CONNECTOR_KINDS } from '../connectors/registry.js';
import { DELIVERY_TASK, REQUEUE_TASK, requeueLostDeliveries, SWEEP_TASK } from '../connectors/queue.js';
import { describeItems, processDelivery, sweepConnectors } from '../connectors/run.js';
import { kyselyOver, type Db, type Sql } from '../db/connect.js';
import type { Log } from '../lib/log.js';
import type { Embedder } from '../providers/embedder.js';
import type { VectorStore } from '../providers/vector/port.js';

export interface ConnectorJobDeps {
  sql: Sql;
  db?: Db;
  log: Log;
  github?: GithubClient;
  /** The search providers (JobDeps has them): a push to the default branch runs the alignment scan. */
  embedder?: Embedder;
  store?: VectorStore;
  notion?: NotionClient;
  drive?: DriveClient;
  slack?: SlackClient;
}

const DeliveryPayload = v.object({ kind: v.string(), deliveryId: v.string() });
const SweepPayload = v.object({ kind: v.optional(v.string()), connectorId: v.optional(v.string()) });

const connectorDeps = (deps: ConnectorJobDeps): ConnectorDeps => ({
  sql: deps.sql,
  db: deps.db ?? kyselyOver(deps.sql),
  log: deps.log,
  ...(deps.github ? { github: deps.github } : {}),
  ...(deps.embedder && deps.store ? { search: { embedder: deps.embedder, store: deps.store } } : {}),
  ...(deps.notion ? { notion: deps.notion } : {}),
  ...(deps.drive ? { drive: deps.drive } : {}),
  ...(deps.slack ? { slack: deps.slack } : {}),
});

export const connectorDelivery = (deps: ConnectorJobDeps): Task => {
  const cd = connectorDeps(deps);
  return async (payload, helpers) => {
    const { kind, deliveryId } = v.parse(DeliveryPayload, payload);
    // A failure names its delivery: the job's last_error and graphile-worker's line then say which.
    const result = await processDelivery(cd, kind, deliveryId).catch((err: Error) => {
      throw new Error(`${kind} delivery ${deliveryId}: ${err.message}`, { cause: err });
    });
    if (result.outcome === 'processed') helpers.logger.info(`${kind} delivery ${deliveryId}: ${describeItems(result.report)}`);
    // The route records a delivery in the transaction that queues its job: a job that finds no
    // row means the row went (pruned after 30 days, or deleted by hand), and is worth a line.
    else if (result.outcome === 'unknown')
      helpers.logger.warn(`${kind} delivery ${deliveryId}: no row in doco.connector_deliveries, nothing done`);
    else helpers.logger.debug(`${kind} delivery ${deliveryId}: ${result.outcome}`);
  };
};

export const connectorSweep = (deps: ConnectorJobDeps): Task => {
  const cd = connectorDeps(deps);
  return async (payload) => {
    const p = v.parse(SweepPayload, payload ?? {});
    await sweepConnectors(cd, p);
  };
};

/**
 * A delivery unprocessed this long with no job has lost it: its route queues the job in the
 * transaction that records it, and the job ends only once it is marked processed (or failed).
 */
export const LOST_DELIVERY_AFTER_S = 120;

/** Queues again each delivery left unprocessed with no job (docs/jobs.md, connectors__delivery): each one is a fault worth a line. */
export const connectorRequeue =
  (deps: ConnectorJobDeps): Task =>
  async (_payload, helpers) => {
    const lost = await requeueLostDeliveries(deps.sql, LOST_DELIVERY_AFTER_S);
    if (lost.length)
      helpers.logger.warn(
        `queued again ${lost.length} webhook delivery job(s) lost before their delivery was processed: ${lost.join(', ')}`,
      );
  };

/** One sweep entry per kind, on that kind's schedule (entries of one task need ids of their own), and the lost deliveries' every minute. */
export const connectorCrontab = (): string[] => [
  ...Object.values(CONNECTOR_KINDS).map(
    (k) =>
      `${k.sweepSchedule} ${SWEEP_TASK} ?id=${SWEEP_TASK}_${k.kind}&max=1&jobKey=${SWEEP_TASK}:${k.kind}&jobKeyMode=preserve_run_at ${JSON.stringify({ kind: k.kind })}`,
  ),
  `* * * * * ${REQUEUE_TASK} ?max=1&jobKey=${REQUEUE_TASK}&jobKeyMode=preserve_run_at`,
];
