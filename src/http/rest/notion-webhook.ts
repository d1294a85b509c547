// POST /webhooks/notion (docs/connectors.md, Notion). Unsigned, only the subscription handshake
// {"verification_token"} is taken, and only while a person has armed it (connectors/notion/webhook.ts):
// kept for them to paste into Notion (200, naming no connector); otherwise one 401 that names
// none either. Anything else must carry X-Notion-Signature, checked on the raw bytes
// against each connector's token before anything is parsed (401, nothing stored, when none
// matches). A page event is recorded by its event id and its fetch queued in the same
// transaction, then answered at once; a redelivery is acknowledged and changes nothing. Events
// that name no page are acknowledged and left to the minute tick.
import { Hono } from 'hono';
import { recordDelivery } from '../../connectors/deliveries.js';
import { eventPageId, type NotionEvent } from '../../connectors/notion/events.js';
import { acceptVerificationToken, connectorForSignature, handshakeToken } from '../../connectors/notion/webhook.js';
import { AppError } from '../../errors.js';
import { queueDelivery } from '../../connectors/queue.js';
import { signedBySource } from '../admits.js';
import type { AppDeps } from '../deps.js';
import { parseJsonObject, readRawBody } from '../raw-body.js';

/** Notion's events are small; a megabyte is far more than any. */
const MAX_BYTES = 1024 * 1024;
const CONNECTOR_ID = /^connector_[0-9A-HJKMNP-TV-Z]{26}$/;

function parseEvent(raw: Uint8Array): NotionEvent & { id: string; type: string } {
  const e = parseJsonObject(Buffer.from(raw).toString('utf8'), 'the webhook body') as NotionEvent;
  if (typeof e.id !== 'string' || !e.id || e.id.length > 200 || typeof e.type !== 'string' || !e.type) {
    throw new AppError('validation_failed', 'a Notion event needs an id and a type');
  }
  return e as NotionEvent & { id: string; type: string };
}

export function notionWebhookRoutes(deps: AppDeps) {
  const app = new Hono();
  app.post('/webhooks/notion', signedBySource(), async (c) => {
    const only = c.req.query('connector');
    if (only !== undefined && !CONNECTOR_ID.test(only))
      throw new AppError('validation_failed', '?connector= must be a connector id such as connector_01K8Z3QH…');
    const raw = await readRawBody(c, MAX_BYTES, deps.bodyBudget);
    const signature = c.req.header('x-notion-signature');
    if (!signature) {
      const token = handshakeToken(raw);
      if (token === undefined) throw new AppError('unauthorized', 'a Notion event must carry X-Notion-Signature');
      await acceptVerificationToken(deps.sql, token, only);
      return c.json({
        ok: true,
        next: "paste the verification token (doco connector list shows it) into the Notion integration's webhook settings",
      });
    }
    const connector = await connectorForSignature(deps.sql, raw, signature, only);
    if (!connector)
      throw new AppError('unauthorized', 'the X-Notion-Signature signature does not match this body and any stored verification token');
    const event = parseEvent(raw);
    if (!eventPageId(event)) return c.json({ ignored: true, reason: `the ${event.type} event names no page: the minute tick reads it` });
    const fresh = await deps.sql.begin(async (tx) => {
      const recorded = await recordDelivery(tx, {
        kind: 'notion',
        deliveryId: event.id,
        connectorId: connector.id,
        event: event.type,
        payload: event,
      });
      if (recorded) await queueDelivery(tx, 'notion', event.id);
      return recorded;
    });
    return c.json({ queued: fresh, duplicate: !fresh, event: event.id }, fresh ? 202 : 200);
  });
  return app;
}
