// The configured connectors (doco.connectors) and their state rows (doco.connector_state):
// add, list, find by route, remove, and each sync's outcome. No secret is ever stored here.
import type { TransactionSql } from 'postgres';
import type { Sql } from '../db/connect.js';
import { AppError } from '../errors.js';
import { newId } from '../lib/ids.js';
import { handshakeStatus, VERIFICATION_TOKEN_KEY, type HandshakeStatus } from './notion/handshake.js';

export type Queryable = Sql | TransactionSql;

export interface ConnectorRow {
  id: string;
  workspace_id: string;
  kind: string;
  routing_key: string;
  target: string;
  config: Record<string, unknown>;
  status: 'active' | 'paused';
  created_at: Date;
  last_sync_at: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
}

/** What the status API shows: the row, its state (cursors, ETags) and the workspace's slug. */
export interface ConnectorStatus {
  id: string;
  kind: string;
  workspace: string;
  routing_key: string;
  target: string;
  config: Record<string, unknown>;
  status: 'active' | 'paused';
  created_at: string;
  last_sync_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
  state: Record<string, unknown>;
  /** Notion: where the webhook handshake stands (awaiting until, expired since, or received). */
  webhook?: HandshakeStatus;
}

const COLUMNS =
  'c.id, c.workspace_id, c.kind, c.routing_key, c.target, c.config, c.status, c.created_at, c.last_sync_at, c.last_error, c.last_error_at';

export interface NewConnector {
  kind: string;
  routingKey: string;
  target: string;
  config: Record<string, unknown>;
}

/** Adds a connector; the same kind, routing key and target twice is a conflict (one route, one workspace). */
/** The template whose records every brief carries as orders. */
export const CONSTITUTION_TEMPLATE = 'constitution';

/**
 * A connector writes what anyone with access to its source wrote, live and without review: into
 * the constitution, every Drive file or Notion page would stand in every brief as an order.
 */
export const notIntoTheConstitution = (slug: string) =>
  new AppError(
    'validation_failed',
    `collection ${slug} is the constitution: a connector's records are what anyone with access to its source wrote, never standing orders; name another collection`,
    { issues: [{ path: 'collection', message: 'is the constitution' }] },
  );

export async function addConnector(q: Queryable, workspaceId: string, input: NewConnector): Promise<ConnectorRow> {
  const slug = typeof input.config.collection === 'string' ? input.config.collection : undefined;
  if (slug) {
    const [target] = await q.unsafe(`select template from doco.collections where workspace_id = $1 and slug = $2`, [workspaceId, slug]);
    if (target?.template === CONSTITUTION_TEMPLATE) throw notIntoTheConstitution(slug);
  }
  try {
    const rows = await q.unsafe(
      `insert into doco.connectors as c (id, workspace_id, kind, routing_key, target, config)
       values ($1, $2, $3, $4, $5, $6) returning ${COLUMNS}`,
      [newId('connector'), workspaceId, input.kind, input.routingKey, input.target, input.config as never],
    );
    return rows[0] as unknown as ConnectorRow;
  } catch (err) {
    if ((err as { code?: string }).code === '23505') {
      throw new AppError(
        'conflict',
        `a ${input.kind} connector for ${input.routingKey}${input.target ? ` ${input.target}` : ''} already exists`,
      );
    }
    throw err;
  }
}

export async function listConnectors(q: Queryable, workspaceId: string | undefined, kind?: string): Promise<ConnectorRow[]> {
  const rows = await q.unsafe(
    `select ${COLUMNS} from doco.connectors c
      where ($1::text is null or c.workspace_id = $1) and ($2::text is null or c.kind = $2)
      order by c.created_at, c.id`,
    [workspaceId ?? null, kind ?? null],
  );
  return rows as unknown as ConnectorRow[];
}

export async function findConnector(q: Queryable, id: string): Promise<ConnectorRow | undefined> {
  const rows = await q.unsafe(`select ${COLUMNS} from doco.connectors c where c.id = $1`, [id]);
  return rows[0] as unknown as ConnectorRow | undefined;
}

/** The active connector an incoming event is routed to, by kind, routing key and target. */
export async function routeConnector(q: Queryable, kind: string, routingKey: string, target: string): Promise<ConnectorRow | undefined> {
  const rows = await q.unsafe(
    `select ${COLUMNS} from doco.connectors c
      where c.kind = $1 and c.routing_key = $2 and c.target in ($3, '') and c.status = 'active'
      order by c.target desc limit 1`,
    [kind, routingKey, target],
  );
  return rows[0] as unknown as ConnectorRow | undefined;
}

/** Removes a connector of this workspace with its state; the records it wrote stay (history is kept). */
export async function removeConnector(q: Queryable, workspaceId: string, id: string): Promise<boolean> {
  const gone = await q`delete from doco.connectors where id = ${id} and workspace_id = ${workspaceId}`;
  return gone.count > 0;
}

export async function readState(q: Queryable, connectorId: string): Promise<Record<string, unknown>> {
  const rows = await q<
    { key: string; value: unknown }[]
  >`select key, value from doco.connector_state where connector_id = ${connectorId} order by key`;
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

/** Writes state keys; call it inside the transaction that commits the batch the state describes. */
export async function writeState(q: Queryable, connectorId: string, entries: Record<string, unknown>): Promise<void> {
  for (const [key, value] of Object.entries(entries)) {
    await q`
      insert into doco.connector_state (connector_id, key, value) values (${connectorId}, ${key}, ${q.json(value as never)})
      on conflict (connector_id, key) do update set value = excluded.value, updated_at = now()`;
  }
}

export async function recordSyncOk(q: Queryable, connectorId: string): Promise<void> {
  await q`update doco.connectors set last_sync_at = now(), last_error = null, last_error_at = null where id = ${connectorId}`;
}

export async function recordSyncError(q: Queryable, connectorId: string, error: string): Promise<void> {
  await q`update doco.connectors set last_error = ${error.slice(0, 2000)}, last_error_at = now() where id = ${connectorId}`;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * State that is a credential handed to us for the operator to confirm (Notion's webhook
 * verification token): shown only when `reveal` is set (a write token, the CLI on the database).
 */
const OPERATOR_ONLY_STATE = new Set([VERIFICATION_TOKEN_KEY]);

function shownState(state: Record<string, unknown>, reveal: boolean): Record<string, unknown> {
  if (reveal) return state;
  return Object.fromEntries(
    Object.entries(state).map(([k, v]) => (OPERATOR_ONLY_STATE.has(k) ? [k, '(hidden: ask with a write token)'] : [k, v])),
  );
}

export async function connectorStatus(q: Queryable, row: ConnectorRow, opts: { reveal?: boolean } = {}): Promise<ConnectorStatus> {
  const [ws] = await q<{ slug: string }[]>`select slug from doco.workspaces where id = ${row.workspace_id}`;
  const state = await readState(q, row.id);
  const reveal = opts.reveal ?? false;
  return {
    id: row.id,
    kind: row.kind,
    workspace: ws?.slug ?? row.workspace_id,
    routing_key: row.routing_key,
    target: row.target,
    config: row.config,
    status: row.status,
    created_at: row.created_at.toISOString(),
    last_sync_at: iso(row.last_sync_at),
    last_error: row.last_error,
    last_error_at: iso(row.last_error_at),
    state: shownState(state, reveal),
    ...(row.kind === 'notion' ? { webhook: handshakeStatus(row, state, { reveal }) } : {}),
  };
}
