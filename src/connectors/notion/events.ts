// One Notion webhook event → the page it names, read now (events carry ids, never content):
// page.created / content_updated / properties_updated / moved / undeleted write the page as it
// is, and page.deleted (or a page Notion no longer has) retires it. Order is not guaranteed, so
// every event reads the page's current state rather than trusting the event's type.
import type { DeliveryRow } from '../deliveries.js';
import { emptyReport, type ItemsReport } from '../items.js';
import type { ConnectorDeps } from '../kind.js';
import { knownItems } from '../scope.js';
import type { ConnectorRow } from '../store.js';
import { syncPage } from './pages.js';
import { notionId } from './records.js';
import { notionScope, requireNotion } from './scope.js';

export interface NotionEvent {
  id?: string;
  type?: string;
  entity?: { id?: string; type?: string };
}

/** The page an event is about, or undefined (database, data source and comment events: the tick reads those). */
export function eventPageId(event: NotionEvent): string | undefined {
  return event.entity?.type === 'page' && typeof event.entity.id === 'string' && event.entity.id ? notionId(event.entity.id) : undefined;
}

export async function handleNotionDelivery(deps: ConnectorDeps, connector: ConnectorRow, delivery: DeliveryRow): Promise<ItemsReport> {
  const pageId = eventPageId(delivery.payload as NotionEvent);
  if (!pageId) return emptyReport();
  const scope = await notionScope(deps, connector);
  const known = (await knownItems(deps, scope, [pageId])).get(pageId);
  return syncPage(deps.sql, requireNotion(deps), scope, pageId, known, `notion ${delivery.event} event ${delivery.delivery_id}`, Date.now);
}
