// Where a Notion or Drive connector's records go: the collection named in its config (made from
// the documentation template on first use), written as the connector kind's principal.
import { ensurePrincipal } from '../auth/workspaces.js';
import { ensureItemCollection, type ItemScope } from './items.js';
import type { ConnectorDeps } from './kind.js';
import type { ConnectorRow } from './store.js';

const TEMPLATE = 'documentation';

export async function connectorScope(
  deps: ConnectorDeps,
  connector: ConnectorRow,
  about: { name: string; goal: string },
): Promise<ItemScope> {
  const collection = await ensureItemCollection(
    deps.db,
    connector.workspace_id,
    String(connector.config.collection),
    TEMPLATE,
    about.goal,
    about.name,
  );
  const principalId = await ensurePrincipal(deps.db, connector.workspace_id, connector.kind, 'connector');
  return { workspaceId: connector.workspace_id, principalId, kind: connector.kind, collectionId: collection.id, connectorId: connector.id };
}

/** What is already known of some items: the meta last written and whether the record is live. */
export interface KnownItem {
  meta: Record<string, unknown>;
  retired: boolean;
}

export async function knownItems(deps: ConnectorDeps, scope: ItemScope, externalIds: string[]): Promise<Map<string, KnownItem>> {
  if (!externalIds.length) return new Map();
  const rows = await deps.sql<{ external_id: string; meta: Record<string, unknown>; lifecycle: string | null }[]>`
    select i.external_id, i.meta, n.lifecycle::text as lifecycle
      from doco.connector_items i left join doco.nodes n on n.id = i.node_id
     where i.workspace_id = ${scope.workspaceId} and i.kind = ${scope.kind} and i.external_id = any(${externalIds})`;
  return new Map(rows.map((r) => [r.external_id, { meta: r.meta, retired: r.lifecycle === 'retired' }]));
}
