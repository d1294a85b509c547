// One Slack Events API delivery → its thread: a new message or an edit is kept and the thread
// rewritten, a deleted reply taken out, a deleted root retires the thread; noise is skipped.
import type { DeliveryRow } from '../deliveries.js';
import { emptyReport, type ItemsReport } from '../items.js';
import type { ConnectorDeps } from '../kind.js';
import type { ConnectorRow } from '../store.js';
import { eventAction } from './messages.js';
import { slackTarget } from './scope.js';
import { applyMessages } from './threads.js';

export async function handleSlackDelivery(deps: ConnectorDeps, connector: ConnectorRow, delivery: DeliveryRow): Promise<ItemsReport> {
  const action = eventAction((delivery.payload as { event?: unknown } | null)?.event);
  if (action.op === 'skip') return emptyReport();
  const target = await slackTarget(deps, connector, action.channel);
  return applyMessages(deps.sql, target, [action], { summary: `slack event ${delivery.delivery_id}` });
}
