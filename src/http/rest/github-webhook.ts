// POST /webhooks/github (docs/connectors.md, GitHub): the signature is checked on the raw bytes before
// anything is parsed (401, nothing stored, when it fails); `ping` is answered; a body that is not
// the event X-GitHub-Event names is refused (400); a delivery for a configured repository is
// recorded by its X-GitHub-Delivery id and by the hash of its event and body, and its job queued
// in the same transaction, then answered at once; a redelivery, or the same body sent again under
// a new delivery id, is acknowledged and changes nothing.
import { Hono } from 'hono';
import { deliveryBodyHash, recordDelivery } from '../../connectors/deliveries.js';
import { payloadMismatch } from '../../connectors/github/payload-fit.js';
import { githubSignatureValid } from '../../connectors/signature.js';
import { routeConnector } from '../../connectors/store.js';
import { AppError } from '../../errors.js';
import { queueDelivery } from '../../connectors/queue.js';
import { parseJsonObject, readRawBody } from '../raw-body.js';
import { signedBySource } from '../admits.js';
import type { AppDeps } from '../deps.js';

/**
 * GitHub caps a delivery at 25 MB, but real ones (a push lists at most 20 commits, a PR body
 * 65,536 characters) stay far below 8 MB; one larger is refused and the 5-minute sweep reads
 * the same items from the API. The cap keeps what unauthenticated uploads can make the process
 * hold small (../body.ts).
 */
const MAX_BYTES = 8 * 1024 * 1024;
const HANDLED = new Set(['pull_request', 'issues', 'push', 'issue_comment', 'pull_request_review', 'pull_request_review_comment']);

/**
 * The event's JSON: sent as is, or as the `payload` field of a form when the hook was set up that
 * way. GitHub's form is that one field and nothing else. The signature does not cover the
 * Content-Type, so a signed JSON body sent again as a form must not be read for a `payload=` some
 * text inside it spells out (an issue body holding `&payload=…` made up an event for another
 * repository): a JSON body never starts with `payload=`.
 */
function parsePayload(raw: Uint8Array, contentType: string): Record<string, unknown> {
  const text = Buffer.from(raw).toString('utf8');
  if (!/^application\/x-www-form-urlencoded/i.test(contentType)) return parseJsonObject(text, 'the webhook body');
  const form = new URLSearchParams(text);
  if (!text.startsWith('payload=') || [...form.keys()].length !== 1)
    throw new AppError('validation_failed', 'a form-encoded delivery must be the one field payload=, as GitHub sends it');
  return parseJsonObject(form.get('payload')!, 'the webhook body');
}

export function githubWebhookRoutes(deps: AppDeps) {
  const app = new Hono();
  app.post('/webhooks/github', signedBySource(), async (c) => {
    const secret = deps.githubWebhookSecret;
    if (!secret) throw new AppError('unavailable', 'GitHub webhooks are not configured here: set GITHUB_WEBHOOK_SECRET');
    const raw = await readRawBody(c, MAX_BYTES, deps.bodyBudget);
    if (!githubSignatureValid(secret, raw, c.req.header('x-hub-signature-256'))) {
      throw new AppError('unauthorized', 'the X-Hub-Signature-256 signature does not match this body and the webhook secret');
    }
    const event = c.req.header('x-github-event') ?? '';
    const deliveryId = c.req.header('x-github-delivery') ?? '';
    if (!event || !deliveryId || deliveryId.length > 200)
      throw new AppError('validation_failed', 'send X-GitHub-Event and X-GitHub-Delivery');
    if (event === 'ping') return c.json({ ok: true, event });
    if (!HANDLED.has(event)) return c.json({ ignored: true, reason: `the ${event} event is not consumed` });
    const payload = parsePayload(raw, c.req.header('content-type') ?? '');
    const mismatch = payloadMismatch(event, payload);
    if (mismatch) throw new AppError('validation_failed', mismatch);
    const installation = (payload.installation as { id?: unknown } | undefined)?.id;
    const repo = (payload.repository as { full_name?: unknown } | undefined)?.full_name;
    if (installation === undefined || typeof repo !== 'string')
      return c.json({ ignored: true, reason: 'the delivery names no installation and repository' });
    const connector = await routeConnector(deps.sql, 'github', String(installation), repo.toLowerCase());
    if (!connector) return c.json({ ignored: true, reason: 'no GitHub connector is configured for this installation and repository' });
    const fresh = await deps.sql.begin(async (tx) => {
      const bodyHash = deliveryBodyHash(event, raw);
      const recorded = await recordDelivery(tx, { kind: 'github', deliveryId, connectorId: connector.id, event, payload, bodyHash });
      if (recorded) await queueDelivery(tx, 'github', deliveryId);
      return recorded;
    });
    return c.json({ queued: fresh, duplicate: !fresh, delivery: deliveryId }, fresh ? 202 : 200);
  });
  return app;
}
