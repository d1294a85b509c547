// The Notion connector kind: one per Doco deployment's integration (NOTION_TOKEN), its pages in
// one collection of the workspace it was added to; webhooks plus a paced tick every minute.
import * as v from 'valibot';
import { parseInput } from '../../lib/validate.js';
import type { ConnectorKind } from '../kind.js';
import { handleNotionDelivery } from './events.js';
import { sweepNotion } from './sweep.js';

/** One integration token per deployment, so one route: the webhook's signature picks the connector. */
export const NOTION_ROUTING_KEY = 'integration';

const AddSchema = v.strictObject({
  kind: v.literal('notion'),
  collection: v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be a collection slug'))),
});

export const notionKind: ConnectorKind = {
  kind: 'notion',
  sweepSchedule: '* * * * *',
  parseAdd(raw) {
    const input = parseInput(AddSchema, raw, 'notion connector');
    return { kind: 'notion', routingKey: NOTION_ROUTING_KEY, target: '', config: { collection: input.collection ?? 'notion' } };
  },
  sweep: (deps, connector) => sweepNotion(deps, connector),
  handleDelivery: handleNotionDelivery,
};
