// POST /webhooks/slack/events (docs/connectors.md, Slack): the timestamp window and the signature are
// checked on the raw bytes before anything is parsed (401, nothing stored, when either fails);
// url_verification is answered with its challenge; a message event for a configured team and
// channel is recorded by its event_id and its job queued (one queue per channel, so a channel's
// events apply in order) in the same transaction, then answered at once. A Slack retry keeps
// the event_id: it is acknowledged and changes nothing. Noise (bots, joins) is acknowledged and dropped.
import { Hono } from 'hono';
import { recordDelivery } from '../../connectors/deliveries.js';
import { slackRequestValid } from '../../connectors/signature.js';
import { eventAction } from '../../connectors/slack/messages.js';
import { routeConnector } from '../../connectors/store.js';
import { AppError } from '../../errors.js';
import { queueDelivery } from '../../connectors/queue.js';
import { signedBySource } from '../admits.js';
import type { AppDeps } from '../deps.js';
import { parseJsonObject, readRawBody } from '../raw-body.js';

/** Slack's event envelopes are small; this is far above any of them. */
const MAX_BYTES = 1024 * 1024;

const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);

export function slackEventRoutes(deps: AppDeps) {
  const app = new Hono();
  app.post('/webhooks/slack/events', signedBySource(), async (c) => {
    const secret = deps.slackSigningSecret;
    if (!secret) throw new AppError('unavailable', 'Slack events are not configured here: set SLACK_SIGNING_SECRET');
    const raw = await readRawBody(c, MAX_BYTES, deps.bodyBudget);
    const verdict = slackRequestValid(
      secret,
      raw,
      c.req.header('x-slack-request-timestamp'),
      c.req.header('x-slack-signature'),
      Math.floor((deps.now?.() ?? Date.now()) / 1000),
    );
    if (!verdict.ok) throw new AppError('unauthorized', verdict.reason);
    const envelope = parseJsonObject(Buffer.from(raw).toString('utf8'), 'the event body');
    if (envelope.type === 'url_verification') {
      const challenge = text(envelope.challenge);
      if (!challenge) throw new AppError('validation_failed', 'url_verification carries no challenge');
      return c.json({ challenge });
    }
    if (envelope.type !== 'event_callback')
      return c.json({ ok: true, ignored: true, reason: `a ${String(envelope.type)} envelope is not consumed` });
    const eventId = text(envelope.event_id);
    const teamId = text(envelope.team_id);
    if (!eventId || eventId.length > 200 || !teamId)
      throw new AppError('validation_failed', 'an event_callback needs its event_id and team_id');
    const action = eventAction(envelope.event);
    if (action.op === 'skip') return c.json({ ok: true, ignored: true, reason: `${action.reason} is not copied` });
    const connector = await routeConnector(deps.sql, 'slack', teamId, action.channel);
    const channelType = (envelope.event as { channel_type?: unknown }).channel_type;
    // A team-wide connector copies public channels only (an app subscribed to more sends more).
    if (!connector || (!connector.target && channelType !== undefined && channelType !== 'channel')) {
      return c.json({ ok: true, ignored: true, reason: 'no Slack connector is configured for this team and channel' });
    }
    const fresh = await deps.sql.begin(async (tx) => {
      const recorded = await recordDelivery(tx, {
        kind: 'slack',
        deliveryId: eventId,
        connectorId: connector.id,
        event: 'message',
        payload: envelope,
        jobQueue: `slack:${connector.id}:${action.channel}`,
      });
      if (recorded) await queueDelivery(tx, 'slack', eventId);
      return recorded;
    });
    const retry = c.req.header('x-slack-retry-num');
    return c.json({
      ok: true,
      queued: fresh,
      duplicate: !fresh,
      event_id: eventId,
      ...(retry ? { retry_num: Number(retry) || retry } : {}),
    });
  });
  return app;
}
