// What a connector kind provides (GitHub, Slack; Notion, Drive later): how an add request
// becomes a row, how often and how its sweep runs, and how it handles a webhook delivery.
import type { Db, Sql } from '../db/connect.js';
import type { Log } from '../lib/log.js';
import type { Embedder } from '../providers/embedder.js';
import type { VectorStore } from '../providers/vector/port.js';
import type { GithubClient } from './github/client.js';
import type { SlackClient } from './slack/client.js';
import type { DeliveryRow } from './deliveries.js';
import type { DriveClient } from './drive/client.js';
import type { NotionClient } from './notion/client.js';
import type { ItemsReport } from './items.js';
import type { ConnectorRow, NewConnector } from './store.js';

/** Built once in the composition root; a kind whose client is absent is not configured. */
export interface ConnectorDeps {
  sql: Sql;
  db: Db;
  log: Log;
  github?: GithubClient;
  /** The search providers, where the worker has them: the GitHub push path's alignment scan needs them. */
  search?: { embedder: Embedder; store: VectorStore };
  notion?: NotionClient;
  drive?: DriveClient;
  slack?: SlackClient;
}

export interface SweepReport {
  items: ItemsReport;
  /** API pages answered 304 Not Modified, or items whose content was not re-read: nothing new behind them. */
  notModified: number;
}

export interface ConnectorKind {
  kind: string;
  /** A crontab schedule (graphile-worker's five fields) for the sweep. */
  sweepSchedule: string;
  /** An add request's kind-specific fields (already known to be of this kind) → the row to store. */
  parseAdd(raw: unknown): NewConnector;
  /** The sweep: fetch what changed since the cursor; throws when the remote fails (the cursor stays). */
  sweep(deps: ConnectorDeps, connector: ConnectorRow): Promise<SweepReport>;
  /** Processes one recorded webhook delivery; throws to be retried. */
  handleDelivery(deps: ConnectorDeps, connector: ConnectorRow, delivery: DeliveryRow): Promise<ItemsReport>;
}
