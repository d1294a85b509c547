// A retried delivery never undoes a newer event for the same comment (docs/jobs.md,
// connectors__delivery): deliveries come in through the real webhook routes (signed, recorded,
// queued) and run through processDelivery, the connectors__delivery job's work, against the fake
// GitHub and Slack APIs. A GitHub delivery is retried for real: its handler keeps the comment,
// then fails reading the PR (the fake answers 503), and runs again after newer deliveries. A Slack
// delivery is one transaction, so one whose first attempt failed wrote nothing; it is run after
// the newer event, as its retry would be, and after a sync that read the newer text. The sweeps
// read the newer text too: GitHub's reads a dismissed review again, which stays out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { GithubClient } from '../../src/connectors/github/client.js';
import type { ConnectorDeps } from '../../src/connectors/kind.js';
import { processDelivery, sweepConnectors } from '../../src/connectors/run.js';
import { SlackClient } from '../../src/connectors/slack/client.js';
import { makeLog } from '../../src/lib/log.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import type { FakeGithub, FakePull } from '../helpers/fake-github.js';
import type { FakeSlack } from '../helpers/fake-slack.js';
import { APP_ID, appKeys, delivery, fakeGithub, INSTALLATION_ID, WEBHOOK_SECRET } from '../helpers/github-app.js';
import { instantSleep } from '../helpers/retry.js';
import { BOT_TOKEN, fakeSlack, SIGNING_SECRET, slackEvent, TEAM_ID } from '../helpers/slack-app.js';
import { callApi, jsonOf } from '../helpers/until.js';

const REPO = 'octo-org/ledger';
const CHANNEL = 'C0LEDGER';
const keys = appKeys();
let t: TestDb;
let ws: TestWorkspace;
let gh: FakeGithub;
let slack: FakeSlack;
let app: ReturnType<typeof buildApp>;
let deps: ConnectorDeps;
let githubConnector: string;
let slackConnector: string;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'order');
  gh = fakeGithub(keys.publicKey, REPO);
  slack = fakeSlack();
  const [ghOrigin, slackApi] = await Promise.all([gh.start(), slack.start()]);
  slack.addChannel(CHANNEL, 'ledger');
  app = buildApp({ ...makeApp(t).deps, githubWebhookSecret: WEBHOOK_SECRET, slackSigningSecret: SIGNING_SECRET });
  deps = {
    sql: t.sql,
    db: t.db,
    log: makeLog('silent'),
    github: new GithubClient({ apiUrl: ghOrigin, appId: APP_ID, privateKey: keys.pem, retry: { sleep: async () => {}, maxAttempts: 2 } }),
    slack: new SlackClient({ apiUrl: slackApi, token: BOT_TOKEN, retry: { sleep: instantSleep().sleep, maxAttempts: 2 } }),
  };
  for (const body of [
    { kind: 'github', installation_id: INSTALLATION_ID, repo: REPO },
    { kind: 'slack', team_id: TEAM_ID, channel: CHANNEL },
  ]) {
    const added = await callApi(app, 'POST', '/api/v1/connectors', ws.writeToken, body);
    expect(added.status).toBe(201);
    if (body.kind === 'slack') slackConnector = added.body.connector.id;
    else githubConnector = added.body.connector.id;
  }
});
afterAll(async () => {
  await Promise.all([gh.stop(), slack.stop()]);
  await t.drop();
});

const prose = async (externalId: string) =>
  (
    await t.sql<{ prose: string }[]>`
    select n.prose from doco.connector_items i join doco.nodes n on n.id = i.node_id where i.external_id = ${externalId}`
  )[0]?.prose;
const kept = async (externalId: string, commentId: string) =>
  (
    await t.sql<{ body: string; deleted: boolean }[]>`
    select body, deleted from doco.connector_item_comments where external_id = ${externalId} and comment_id = ${commentId}`
  )[0];

describe('GitHub comments', () => {
  const item = `${REPO}#31`;
  const pr: FakePull = {
    number: 31,
    title: 'Round ledger totals',
    body: 'Rounds the totals once, at the end.',
    state: 'open',
    merged: false,
    updated_at: '2026-05-01T09:00:00Z',
    head: { ref: 'round-totals' },
    base: { ref: 'main' },
    files: ['src/ledger/totals.ts'],
  };
  const where = { repository: { full_name: REPO }, installation: { id: INSTALLATION_ID } };
  const issueOfPr = { number: 31, title: pr.title, state: 'open', updated_at: pr.updated_at, pull_request: { url: 'x' } };
  const comment = (id: number, action: string, body: string, updatedAt: string) => ({
    action,
    issue: issueOfPr,
    comment: { id, body, user: { login: 'ana' }, created_at: '2026-05-01T10:01:00Z', updated_at: updatedAt },
    ...where,
  });

  /** Signed and sent to the webhook route, which records it and queues its job; returns its delivery id. */
  async function receive(event: string, payload: Record<string, unknown>): Promise<string> {
    const d = delivery(event, payload);
    const res = await jsonOf(await app.request('/webhooks/github', { method: 'POST', headers: d.headers, body: d.body }));
    expect(res).toMatchObject({ status: 202, body: { queued: true } });
    return d.id;
  }
  const run = (id: string) => processDelivery(deps, 'github', id);
  /** Its first attempt keeps the comment, then fails reading the PR: the job throws, to be retried. */
  async function runFailing(id: string) {
    gh.failures.push({ status: 503, message: 'unavailable' }, { status: 503, message: 'unavailable' });
    await expect(run(id)).rejects.toThrow();
  }

  beforeAll(async () => {
    gh.pulls.set(31, pr);
    expect(
      await run(await receive('pull_request', { action: 'opened', number: 31, pull_request: gh.pullJson(pr), ...where })),
    ).toMatchObject({
      outcome: 'processed',
      report: { created: 1 },
    });
  });

  it("an edit, then a retry of the comment's older delivery: the newer text stays", async () => {
    const created = await receive('issue_comment', comment(501, 'created', 'Totals are off by one.', '2026-05-01T10:01:00Z'));
    await runFailing(created);
    expect(await kept(item, 'comment-501')).toEqual({ body: 'Totals are off by one.', deleted: false });
    await run(await receive('issue_comment', comment(501, 'edited', 'Totals are off by one cent.', '2026-05-01T10:02:00Z')));
    expect(await prose(item)).toContain('@ana: Totals are off by one cent.');

    expect(await run(created)).toMatchObject({ outcome: 'processed', report: { updated: 0 } });
    expect(await kept(item, 'comment-501')).toEqual({ body: 'Totals are off by one cent.', deleted: false });
    expect(await prose(item)).toContain('@ana: Totals are off by one cent.');
    expect(await prose(item)).not.toContain('off by one.');
  });

  it('a deletion, then a retry of an older edit: the comment stays deleted, a tombstone with no text', async () => {
    const edited = await receive('issue_comment', comment(501, 'edited', 'Totals are off by two cents.', '2026-05-01T10:03:00Z'));
    await runFailing(edited);
    await run(await receive('issue_comment', comment(501, 'deleted', 'Totals are off by two cents.', '2026-05-01T10:03:00Z')));
    expect(await prose(item)).not.toContain('@ana');

    expect(await run(edited)).toMatchObject({ outcome: 'processed' });
    expect(await kept(item, 'comment-501')).toEqual({ body: '', deleted: true });
    expect(await prose(item)).not.toContain('@ana');
    expect(await prose(item)).not.toContain('Totals are off');
  });

  it('a deletion that arrives before the comment was ever kept: its late creation stays out', async () => {
    await run(await receive('issue_comment', comment(502, 'deleted', 'Never mind.', '2026-05-01T10:04:00Z')));
    expect(await run(await receive('issue_comment', comment(502, 'created', 'Never mind.', '2026-05-01T10:04:00Z')))).toMatchObject({
      outcome: 'processed',
    });
    expect(await kept(item, 'comment-502')).toEqual({ body: '', deleted: true });
    expect(await prose(item)).not.toContain('Never mind');
  });

  it('a dismissed review, then a retry of its submission, then a sweep that reads it: it stays out', async () => {
    const review = (action: string, state: string) => ({
      action,
      review: { id: 77, state, body: 'Looks right.', user: { login: 'bo' }, submitted_at: '2026-05-01T10:05:00Z' },
      pull_request: gh.pullJson(pr),
      ...where,
    });
    const submitted = await receive('pull_request_review', review('submitted', 'approved'));
    await runFailing(submitted);
    await run(await receive('pull_request_review', review('dismissed', 'dismissed')));
    expect(await prose(item)).not.toContain('Looks right.');

    await run(submitted);
    expect(await kept(item, 'review-77')).toEqual({ body: '', deleted: true });
    expect(await prose(item)).not.toContain('Looks right.');

    // The sweep reads the PR's reviews, the dismissed one with its submitted_at: it stays out.
    gh.reviews.set(77, { id: 77, pull: 31, state: 'DISMISSED', body: 'Looks right.', login: 'bo', submitted_at: '2026-05-01T10:05:00Z' });
    const [swept] = await sweepConnectors(deps, { connectorId: githubConnector });
    expect(swept).toMatchObject({ ok: true });
    expect(gh.requests.some((r) => r.path.startsWith(`/repos/${REPO}/pulls/31/reviews`) && r.status === 200)).toBe(true);
    expect(await kept(item, 'review-77')).toEqual({ body: '', deleted: true });
    expect(await prose(item)).not.toContain('Looks right.');
  });
});

describe('Slack messages', () => {
  const BASE = Math.floor(Date.now() / 1000) - 7200;
  const at = (n: number, micro = 100) => `${BASE + n}.${String(micro).padStart(6, '0')}`;
  const root = at(0);
  const item = `${CHANNEL}:${root}`;
  const message = (ts: string, text: string, over: Record<string, unknown> = {}) => ({
    type: 'message',
    channel: CHANNEL,
    channel_type: 'channel',
    user: 'U0ANA',
    text,
    ts,
    event_ts: ts,
    ...over,
  });
  const changed = (eventTs: string, m: Record<string, unknown>) => ({
    type: 'message',
    subtype: 'message_changed',
    channel: CHANNEL,
    hidden: true,
    ts: eventTs,
    message: { type: 'message', user: 'U0ANA', ...m },
  });

  async function receive(event: Record<string, unknown>): Promise<string> {
    const e = slackEvent(event);
    const res = await jsonOf(await app.request('/webhooks/slack/events', { method: 'POST', headers: e.headers, body: e.body }));
    expect(res).toMatchObject({ status: 200, body: { queued: true } });
    return e.eventId;
  }
  const run = (id: string) => processDelivery(deps, 'slack', id);

  beforeAll(async () => {
    await run(await receive(message(root, 'Ledger totals are rounded per line.')));
    expect(await prose(item)).toContain('Ledger totals are rounded per line.');
  });

  it("an edit, then the message's older event: the newer text stays; a deletion, then an older edit: it stays deleted", async () => {
    const reply = at(10);
    const posted = await receive(message(reply, 'Per line loses cents.', { thread_ts: root }));
    const laterEdit = await receive(
      changed(at(25, 1), {
        ts: reply,
        thread_ts: root,
        text: 'Per line loses up to a cent each.',
        edited: { user: 'U0ANA', ts: at(25, 0) },
      }),
    );
    await run(
      await receive(
        changed(at(20, 1), {
          ts: reply,
          thread_ts: root,
          text: 'Per line loses cents, round once.',
          edited: { user: 'U0ANA', ts: at(20, 0) },
        }),
      ),
    );
    expect(await prose(item)).toContain('@U0ANA: Per line loses cents, round once.');

    // The message's own event, run after its edit (as its retry would be): older, refused.
    await run(posted);
    expect(await prose(item)).toContain('@U0ANA: Per line loses cents, round once.');

    await run(
      await receive({
        type: 'message',
        subtype: 'message_deleted',
        channel: CHANNEL,
        hidden: true,
        ts: at(30, 1),
        deleted_ts: reply,
        previous_message: { type: 'message', user: 'U0ANA', text: 'Per line…', ts: reply, thread_ts: root },
      }),
    );
    expect(await prose(item)).not.toContain('Per line');
    // An edit made before the deletion, retried after it.
    await run(laterEdit);
    expect(await kept(item, reply)).toEqual({ body: '', deleted: true });
    expect(await prose(item)).not.toContain('Per line');
    expect(await prose(item)).toContain('Ledger totals are rounded per line.');
  });

  it("a sync that read a message's edit, then the message's older event: the edit stays", async () => {
    const root2 = slack.post(CHANNEL, 'Which rounding does the invoice use?', { user: 'U0BO' });
    const reply = slack.post(CHANNEL, 'Banker’s rounding.', { user: 'U0ANA', threadTs: root2 });
    const posted = await receive(message(reply, 'Banker’s rounding.', { thread_ts: root2 }));
    // The fake edits in the same second, a microsecond after the message: the times keep them apart.
    slack.edit(CHANNEL, reply, 'Half up, per the invoice spec.');
    const [swept] = await sweepConnectors(deps, { connectorId: slackConnector });
    expect(swept).toMatchObject({ ok: true });
    expect(await prose(`${CHANNEL}:${root2}`)).toContain('@U0ANA: Half up, per the invoice spec.');

    await run(posted);
    expect(await kept(`${CHANNEL}:${root2}`, reply)).toEqual({ body: 'Half up, per the invoice spec.', deleted: false });
    expect(await prose(`${CHANNEL}:${root2}`)).toContain('@U0ANA: Half up, per the invoice spec.');
    expect(await prose(`${CHANNEL}:${root2}`)).not.toContain('Banker');
  });
});
