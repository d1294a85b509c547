// GitHub signs only the body: no timestamp, not the X-GitHub-Delivery id, not the X-GitHub-Event
// name. Someone holding one captured signed delivery could send it again under a new delivery id,
// or under another event name. Both change nothing now (docs/connectors.md, GitHub): a body
// already recorded for the same event is a duplicate whatever its delivery id, and a body that is
// not the event its header names (a review's body sent as pull_request) is refused. Before, each
// was queued and processed again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { delivery, INSTALLATION_ID, WEBHOOK_SECRET } from '../helpers/github-app.js';
import { jsonOf } from '../helpers/until.js';

const REPO = 'octo-org/replay';
let t: TestDb;
let ws: TestWorkspace;
let app: ReturnType<typeof buildApp>;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'replay');
  app = buildApp({ ...makeApp(t).deps, githubWebhookSecret: WEBHOOK_SECRET });
  const added = await app.request('/api/v1/connectors', {
    method: 'POST',
    headers: { authorization: `Bearer ${ws.writeToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ kind: 'github', installation_id: INSTALLATION_ID, repo: REPO }),
  });
  expect(added.status).toBe(201);
});
afterAll(async () => t.drop());

const send = async (d: { headers: Record<string, string>; body: string }) =>
  jsonOf(await app.request('/webhooks/github', { method: 'POST', headers: d.headers, body: d.body }));
/** The same signed body sent again with other headers: what a replay looks like. */
const resend = (d: ReturnType<typeof delivery>, headers: Record<string, string>) => ({
  body: d.body,
  headers: { ...d.headers, ...headers },
});
const counts = async () =>
  (
    await t.sql<{ deliveries: number; jobs: number }[]>`
    select (select count(*) from doco.connector_deliveries)::int as deliveries,
           (select count(*) from graphile_worker.jobs where task_identifier = 'connectors__delivery')::int as jobs`
  )[0]!;

const where = { repository: { full_name: REPO }, installation: { id: INSTALLATION_ID } };
const pr = {
  number: 7,
  title: 'Refunds',
  body: 'Refund flow.',
  state: 'open',
  updated_at: '2026-05-01T10:00:00Z',
  head: { ref: 'f', sha: 'a1' },
};
const issue = { number: 8, title: 'Refund bug', body: 'It fails.', state: 'open', labels: [], updated_at: '2026-05-01T10:00:00Z' };
/** One body of each consumed event, as GitHub sends it (the fields docs/connectors.md lists). */
const BODIES: Record<string, Record<string, unknown>> = {
  pull_request: { action: 'edited', number: 7, pull_request: pr, ...where },
  issues: { action: 'edited', issue, ...where },
  issue_comment: { action: 'created', issue, comment: { id: 1, body: 'Same here.', user: { login: 'ana' } }, ...where },
  pull_request_review: { action: 'submitted', review: { id: 2, state: 'approved', body: 'Ship it.' }, pull_request: pr, ...where },
  pull_request_review_comment: {
    action: 'created',
    comment: { id: 3, body: 'Rename this.', path: 'src/refund.ts', user: { login: 'bo' } },
    pull_request: pr,
    ...where,
  },
  push: { ref: 'refs/heads/f', before: 'a0', after: 'a1', commits: [], ...where },
};
const captured = Object.fromEntries(
  Object.entries(BODIES).map(([event, body]) => [event, delivery(event, body, { id: `first-${event}` })]),
);

describe('a captured signed delivery', () => {
  it('each event is taken once with its own body', async () => {
    for (const [event, d] of Object.entries(captured)) {
      const res = await send(d);
      expect(res, event).toMatchObject({ status: 202, body: { queued: true, duplicate: false } });
    }
  });

  it('sent again under a new X-GitHub-Delivery is a duplicate and changes nothing', async () => {
    const before = await counts();
    for (const [event, d] of Object.entries(captured)) {
      const res = await send(resend(d, { 'x-github-delivery': `replayed-${event}` }));
      expect(res, event).toMatchObject({ status: 200, body: { queued: false, duplicate: true } });
    }
    expect(await counts()).toEqual(before);
  });

  it('sent again after its first delivery was processed (its payload cleared) is still a duplicate', async () => {
    await t.sql`update doco.connector_deliveries set processed_at = now(), payload = null where delivery_id = 'first-pull_request'`;
    const before = await counts();
    const res = await send(resend(captured.pull_request!, { 'x-github-delivery': 'replayed-later' }));
    expect(res).toMatchObject({ status: 200, body: { duplicate: true } });
    expect(await counts()).toEqual(before);
  });

  it('sent under another X-GitHub-Event it is not is refused, and stores nothing', async () => {
    const before = await counts();
    for (const [event, d] of Object.entries(captured)) {
      for (const other of Object.keys(BODIES).filter((e) => e !== event)) {
        const res = await send(resend(d, { 'x-github-event': other, 'x-github-delivery': `as-${other}-${event}` }));
        expect(res, `${event} body sent as ${other}`).toMatchObject({ status: 400, body: { error: { code: 'validation_failed' } } });
        expect(res.body.error.message).toContain(`not a ${other} event`);
      }
    }
    expect(await counts()).toEqual(before);
  });

  it('a new body for the same event is taken (the dedup is on the body, not the event)', async () => {
    const edited = delivery('pull_request', { ...BODIES.pull_request, pull_request: { ...pr, title: 'Refunds, v2' } });
    expect(await send(edited)).toMatchObject({ status: 202, body: { queued: true } });
  });
});
