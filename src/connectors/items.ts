// Connector items as records: one `reference` record per external id, written through a
// changeset with source `connector`. Unchanged content writes nothing; changed content is a new
// version of the same record; an older copy of an item (an out-of-order delivery) never
// overwrites a newer one; a deleted item retires its record, for good. Content holding a credential is
// not written (the record keeps its last clean version), as the doc ingester does.
import { createHash } from 'node:crypto';
import type { TransactionSql } from 'postgres';
import type { Db, Sql } from '../db/connect.js';
import { ensureReferenceCollection, type CollectionView } from '../graph/collections.js';
import { newId } from '../lib/ids.js';
import { LIMITS } from '../graph/limits.js';
import { newChangeset, openChangeset } from '../graph/open-changeset.js';
import { canonicalJson } from '../lib/canonical-json.js';
import type { SecretKind } from '../text/secrets/detector.js';
import { findSecretsInFields } from '../text/secrets/fields.js';
import { CONSTITUTION_TEMPLATE, notIntoTheConstitution, writeState } from './store.js';

export interface ItemScope {
  workspaceId: string;
  principalId: string;
  kind: string;
  collectionId: string;
  connectorId: string;
}

export interface ItemContent {
  externalId: string;
  /** The record's type: `reference` unless said (the alignment scan's push reports are logs). */
  nodeType?: 'reference' | 'log';
  title: string;
  prose: string;
  body: Record<string, unknown>;
  /** Routing facts kept beside the record, not in it (a PR's head branch). */
  meta?: Record<string, unknown>;
  remoteUpdatedAt?: string;
}

export interface ItemSecret {
  external_id: string;
  kind: SecretKind;
  field: string;
}

export interface ItemsReport {
  created: number;
  updated: number;
  unchanged: number;
  /** Older than what the record already holds: not written. */
  stale: number;
  /** Its record was retired (deleted upstream, or by hand): not brought back. */
  gone: number;
  retired: number;
  secrets: ItemSecret[];
}

export const emptyReport = (): ItemsReport => ({ created: 0, updated: 0, unchanged: 0, stale: 0, gone: 0, retired: 0, secrets: [] });

export function addReports(a: ItemsReport, b: ItemsReport): ItemsReport {
  return {
    created: a.created + b.created,
    updated: a.updated + b.updated,
    unchanged: a.unchanged + b.unchanged,
    stale: a.stale + b.stale,
    gone: a.gone + b.gone,
    retired: a.retired + b.retired,
    secrets: [...a.secrets, ...b.secrets],
  };
}

const ITEM_LOCK_CLASS = 0x636f6e; // "con"

const itemHash = (c: ItemContent) =>
  createHash('sha256')
    .update(canonicalJson({ title: c.title, prose: c.prose, body: c.body }), 'utf8')
    .digest('hex');

/** Keeps a record within the write path's limits: long text is cut, never refused. */
export function bounded(c: ItemContent): ItemContent {
  const title = c.title.trim().slice(0, LIMITS.titleChars) || c.externalId;
  const prose = c.prose.length > LIMITS.proseChars ? `${c.prose.slice(0, LIMITS.proseChars - 20)}\n… (truncated)` : c.prose;
  return { ...c, title, prose };
}

/** The collection an item goes into, made from `template` on first use; it must take reference records. */
export async function ensureItemCollection(
  db: Db,
  workspaceId: string,
  slug: string,
  template: string,
  goal: string,
  name: string,
): Promise<CollectionView> {
  const collection = await ensureReferenceCollection(db, workspaceId, { slug, template, goal, name });
  // A connector added before this was refused at `add` writes nothing there either.
  if (collection.template === CONSTITUTION_TEMPLATE) throw notIntoTheConstitution(slug);
  return collection;
}

interface Existing {
  node_id: string;
  hash: string;
  lifecycle: string | null;
  remote_updated_at: Date | null;
  /** The connector that last wrote the item (null: unknown, or since removed). */
  connector_id: string | null;
}

/** Opens the changeset on first write, so a batch with nothing new leaves no changeset behind. */
function changesetOpener(tx: TransactionSql, scope: ItemScope, summary: string) {
  let opened = false;
  return async () => {
    if (opened) return;
    opened = true;
    await openChangeset(tx, newChangeset({ workspaceId: scope.workspaceId, actorId: scope.principalId, source: 'connector', summary }));
  };
}

/**
 * Per item, held to commit: a webhook job and a sweep writing one item take turns, so neither
 * can make a second record for it. Taken in id order, so two writers of several items cannot
 * deadlock; taking it again in the same transaction is free.
 */
export async function lockItems(tx: TransactionSql, scope: Pick<ItemScope, 'workspaceId' | 'kind'>, externalIds: string[]): Promise<void> {
  const ids = [...new Set(externalIds)].sort();
  if (!ids.length) return;
  await tx`select pg_advisory_xact_lock(${ITEM_LOCK_CLASS}, hashtext(${scope.workspaceId} || '/' || ${scope.kind} || '/' || id))
             from unnest(${ids}::text[]) with ordinality as x(id, n) order by n`;
}

async function lockAndRead(tx: TransactionSql, scope: ItemScope, externalId: string): Promise<Existing | undefined> {
  await lockItems(tx, scope, [externalId]);
  const [row] = await tx<Existing[]>`
    select i.node_id, i.hash, n.lifecycle::text as lifecycle, i.remote_updated_at, i.connector_id
      from doco.connector_items i left join doco.nodes n on n.id = i.node_id
     where i.workspace_id = ${scope.workspaceId} and i.kind = ${scope.kind} and i.external_id = ${externalId}`;
  return row;
}

/**
 * Writes a batch of items, and `state` (the batch's cursor) in the same transaction: the cursor
 * moves only if the batch commits.
 */
export async function writeItems(sql: Sql, scope: ItemScope, items: ItemContent[], opts: WriteOptions): Promise<ItemsReport> {
  return sql.begin((tx) => writeItemsIn(tx, scope, items, opts));
}

export interface WriteOptions {
  summary: string;
  state?: Record<string, unknown>;
}

/** writeItems inside a transaction the caller holds (one that also keeps the items' comments). */
export async function writeItemsIn(tx: TransactionSql, scope: ItemScope, items: ItemContent[], opts: WriteOptions): Promise<ItemsReport> {
  const report = emptyReport();
  const open = changesetOpener(tx, scope, opts.summary);
  for (const raw of items) {
    const item = bounded(raw);
    const hash = itemHash(item);
    const existing = await lockAndRead(tx, scope, item.externalId);
    // Retiring is final: a late delivery for a deleted issue must not bring it back as a new record.
    if (existing?.lifecycle === 'retired') {
      report.gone++;
      continue;
    }
    const live = existing && existing.lifecycle !== null;
    if (live && item.remoteUpdatedAt && existing.remote_updated_at && existing.remote_updated_at > new Date(item.remoteUpdatedAt)) {
      report.stale++;
      continue;
    }
    if (live && existing.hash === hash) {
      report.unchanged++;
      await tx`update doco.connector_items set meta = ${tx.json((item.meta ?? {}) as never)}
                where workspace_id = ${scope.workspaceId} and kind = ${scope.kind} and external_id = ${item.externalId}
                  and meta is distinct from ${tx.json((item.meta ?? {}) as never)}`;
      continue;
    }
    const found = findSecretsInFields({ title: item.title, prose: item.prose, body: item.body });
    if (found.length) {
      report.secrets.push(...found.map((f) => ({ external_id: item.externalId, kind: f.kind, field: f.field })));
      continue;
    }
    await open();
    const nodeId = live ? existing.node_id : newId(item.nodeType ?? 'reference');
    if (live) {
      await tx`update doco.nodes set title = ${item.title}, prose = ${item.prose}, body = ${tx.json(item.body as never)}, collection_id = ${scope.collectionId}
                where id = ${nodeId} and workspace_id = ${scope.workspaceId}`;
      report.updated++;
    } else {
      await tx`insert into doco.nodes (id, workspace_id, collection_id, node_type, lifecycle, title, prose, body, principal_id)
               values (${nodeId}, ${scope.workspaceId}, ${scope.collectionId}, ${item.nodeType ?? 'reference'}, 'active', ${item.title}, ${item.prose}, ${tx.json(item.body as never)}, ${scope.principalId})`;
      report.created++;
    }
    await tx`
      insert into doco.connector_items (workspace_id, kind, external_id, node_id, hash, meta, remote_updated_at, connector_id)
      values (${scope.workspaceId}, ${scope.kind}, ${item.externalId}, ${nodeId}, ${hash}, ${tx.json((item.meta ?? {}) as never)}, ${item.remoteUpdatedAt ?? null}, ${scope.connectorId})
      on conflict (workspace_id, kind, external_id) do update
        set node_id = excluded.node_id, hash = excluded.hash, meta = excluded.meta, remote_updated_at = excluded.remote_updated_at,
            connector_id = excluded.connector_id, updated_at = now()`;
  }
  if (opts.state) await writeState(tx, scope.connectorId, opts.state);
  return report;
}

/**
 * Retires the record of a deleted item (its history stays readable); an unknown item, or one
 * another connector of the workspace wrote last, is nothing to do: a connector's view of its
 * source (Drive's changes feed covers the whole account) says nothing of another's items.
 */
export async function retireItem(sql: Sql, scope: ItemScope, externalId: string, summary: string): Promise<ItemsReport> {
  return sql.begin((tx) => retireItemIn(tx, scope, externalId, summary));
}

export async function retireItemIn(tx: TransactionSql, scope: ItemScope, externalId: string, summary: string): Promise<ItemsReport> {
  const report = emptyReport();
  const existing = await lockAndRead(tx, scope, externalId);
  if (!existing || existing.lifecycle === null || existing.lifecycle === 'retired') return report;
  if (existing.connector_id !== null && existing.connector_id !== scope.connectorId) return report;
  await changesetOpener(tx, scope, summary)();
  await tx`update doco.nodes set lifecycle = 'retired' where id = ${existing.node_id} and workspace_id = ${scope.workspaceId}`;
  report.retired++;
  return report;
}

/** The item's routing facts (meta) for the items of this kind whose meta contains `match`. */
export async function findItemsByMeta(
  sql: Sql,
  workspaceId: string,
  kind: string,
  match: Record<string, unknown>,
): Promise<{ external_id: string; meta: Record<string, unknown> }[]> {
  return sql<{ external_id: string; meta: Record<string, unknown> }[]>`
    select i.external_id, i.meta from doco.connector_items i join doco.nodes n on n.id = i.node_id
     where i.workspace_id = ${workspaceId} and i.kind = ${kind} and i.meta @> ${sql.json(match as never)} and n.lifecycle <> 'retired'
     order by i.external_id`;
}
