// The Slack connector end to end: a real graphile-worker, real Postgres, the HTTP app in
// process, the fake Slack Web API on loopback and Events API requests signed in the test. A
// signed message event becomes its thread's record, which a brief shows; a redelivery or a
// Slack retry changes nothing; a bad signature or a stale timestamp is 401 with nothing
// stored; url_verification is answered; a reply and an edit are new versions; a deleted reply
// leaves the record, a deleted root retires it; the sync after an outage picks up exactly what
// events missed; a 429 with Retry-After is waited out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { SlackClient } from '../../src/connectors/slack/client.js';
import { SWEEP_TASK } from '../../src/connectors/queue.js';
import { SLACK_MAX_SKEW_S } from '../../src/connectors/signature.js';
import type { RunningWorker } from '../../src/jobs/worker.js';
import { makeLog } from '../../src/lib/log.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { startConnectorWorker } from '../helpers/connector-worker.js';
import type { FakeSlack } from '../helpers/fake-slack.js';
import { instantSleep } from '../helpers/retry.js';
import { localProviders } from '../helpers/search.js';
import { callApi, jsonOf, until } from '../helpers/until.js';
import { BOT_TOKEN, fakeSlack, SIGNING_SECRET, slackEvent, TEAM_ID } from '../helpers/slack-app.js';

const CHANNEL = 'C0BILLING';
const providers = localProviders();
const lines: string[] = [];
const log = makeLog('info', (l) => lines.push(l));
const waits = instantSleep();
let t: TestDb;
let ws: TestWorkspace;
let slack: FakeSlack;
let worker: RunningWorker;
let app: ReturnType<typeof buildApp>;
let connectorId: string;

const api = (method: string, path: string, token: string | undefined, body?: unknown) => callApi(app, method, path, token, body);
const send = async (e: { headers: Record<string, string>; body: string }) =>
  jsonOf(await app.request('/webhooks/slack/events', { method: 'POST', headers: e.headers, body: e.body }));

interface ItemRow {
  external_id: string;
  node_id: string;
  version: number;
  lifecycle: string;
  title: string;
  prose: string;
  body: Record<string, any>;
}
const items = () =>
  t.sql<ItemRow[]>`
    select i.external_id, i.node_id, n.version, n.lifecycle::text as lifecycle, n.title, n.prose, n.body
      from doco.connector_items i join doco.nodes n on n.id = i.node_id where i.kind = 'slack' order by i.external_id`;
const item = async (thread: string) => (await items()).find((i) => i.external_id === `${CHANNEL}:${thread}`);
/** What a webhook writes; its jobs are deliveries (a cron sweep or an index drain may come and go meanwhile). */
const counts = async () =>
  (
    await t.sql<{ nodes: number; versions: number; changesets: number; deliveries: number; jobs: number; comments: number }[]>`
    select (select count(*) from doco.nodes)::int as nodes, (select count(*) from doco.node_versions)::int as versions,
           (select count(*) from doco.changesets)::int as changesets, (select count(*) from doco.connector_deliveries)::int as deliveries,
           (select count(*) from graphile_worker.jobs where task_identifier = 'connectors__delivery')::int as jobs, (select count(*) from doco.connector_item_comments)::int as comments`
  )[0]!;
const status = async () => (await api('GET', `/api/v1/connectors/${connectorId}`, ws.readToken)).body.connector;
const idle = () => until(async () => (await t.sql<{ n: number }[]>`select count(*)::int as n from graphile_worker.jobs`)[0]!.n === 0);

async function sweep() {
  const before = await status();
  await worker.runner.addJob(SWEEP_TASK, { kind: 'slack' });
  await until(async () => {
    const s = await status();
    return (s.last_sync_at ?? '') !== (before.last_sync_at ?? '') || (s.last_error_at ?? '') !== (before.last_error_at ?? '');
  });
  return status();
}

/** A ts `n` seconds after two hours ago: inside the sync's reply window, before the fake's own posts. */
const BASE = Math.floor(Date.now() / 1000) - 7200;
const at = (n: number, micro = 100) => `${BASE + n}.${String(micro).padStart(6, '0')}`;
const message = (ts: string, text: string, over: Record<string, unknown> = {}) => ({
  type: 'message',
  channel: CHANNEL,
  channel_type: 'channel',
  user: 'U0ALICE',
  text,
  ts,
  event_ts: ts,
  ...over,
});

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'sl');
  slack = fakeSlack();
  const apiUrl = await slack.start();
  slack.addChannel(CHANNEL, 'billing');
  app = buildApp({ ...makeApp(t, undefined, providers).deps, slackSigningSecret: SIGNING_SECRET });
  const client = new SlackClient({ apiUrl, token: BOT_TOKEN, retry: { sleep: waits.sleep, maxAttempts: 3 } });
  worker = await startConnectorWorker(t, providers, log, { slack: client });
});
afterAll(async () => {
  await worker.stop();
  await slack.stop();
  await t.drop();
});

describe('the connectors API for Slack', () => {
  it('refuses bad input with a clear error and stores nothing', async () => {
    for (const body of [
      { kind: 'slack' },
      { kind: 'slack', team_id: 'acme' },
      { kind: 'slack', team_id: TEAM_ID, channel: '#billing' },
      { kind: 'slack', team_id: TEAM_ID, channel: CHANNEL, repo: 'a/b' },
    ]) {
      const res = await api('POST', '/api/v1/connectors', ws.writeToken, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
    expect((await api('POST', '/api/v1/connectors', ws.writeToken, { kind: 'slack', team_id: 'acme' })).body.error.message).toMatch(
      /team_id.*Slack team id/,
    );
    expect((await api('POST', '/api/v1/connectors', ws.readToken, { kind: 'slack', team_id: TEAM_ID, channel: CHANNEL })).status).toBe(403);
    expect(await t.sql`select 1 from doco.connectors`).toHaveLength(0);
  });

  it('adds a Slack connector for a team and channel, syncs it once, and shows its status without secrets', async () => {
    const welcome = slack.post(CHANNEL, 'Welcome to #billing: money questions here.', { at: BASE - 60 });
    const added = await api('POST', '/api/v1/connectors', ws.writeToken, { kind: 'slack', team_id: TEAM_ID, channel: CHANNEL });
    expect(added.status).toBe(201);
    expect(added.body.connector).toMatchObject({ kind: 'slack', workspace: 'sl', routing_key: TEAM_ID, target: CHANNEL, status: 'active' });
    connectorId = added.body.connector.id;
    expect((await api('POST', '/api/v1/connectors', ws.writeToken, { kind: 'slack', team_id: TEAM_ID, channel: CHANNEL })).status).toBe(
      409,
    );
    await until(async () => (await status()).last_sync_at);
    const listed = await api('GET', '/api/v1/connectors', ws.readToken);
    expect(listed.body.connectors).toHaveLength(1);
    for (const secret of [SIGNING_SECRET, BOT_TOKEN]) expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect(slack.requests.filter((r) => r.method === 'conversations.history')).toHaveLength(1);
    expect((await status()).state).toEqual({ [`${CHANNEL}_since`]: welcome });
    expect(await item(welcome)).toMatchObject({ version: 1, title: 'Welcome to #billing: money questions here.' });
  });
});

describe('Slack events', () => {
  const root = at(0, 100);

  it('answers url_verification with its challenge; an unsigned one is 401', async () => {
    const envelope = { token: 'x', challenge: 'chal-3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P', type: 'url_verification' };
    const ok = await send(slackEvent({}, { envelope }));
    expect(ok).toEqual({ status: 200, body: { challenge: envelope.challenge } });
    const unsigned = await send({ ...slackEvent({}, { envelope }), headers: { 'content-type': 'application/json' } });
    expect(unsigned.status).toBe(401);
  });

  it('a bad signature, a stale or future timestamp is 401 and stores nothing: no delivery, no job, no record', async () => {
    const before = await counts();
    const e = slackEvent(message(root, 'Refunds over 500 EUR need a second approver.'));
    // Stamped as each is sent, a minute past the window: stamped once at the start, one
    // second past it, the future one was inside the window by the time a busy machine sent it
    // (the window's edge is test/connectors/signature.test.ts's, on a clock of its own).
    const skewed = (by: number) => () => slackEvent(message(root, 'x'), { timestamp: Math.floor(Date.now() / 1000) + by });
    const cases = [
      () => ({ ...e, headers: { ...e.headers, 'x-slack-signature': `v0=${'0'.repeat(64)}` } }),
      () => ({ ...e, headers: { ...e.headers, 'x-slack-signature': e.headers['x-slack-signature'].slice(3) } }),
      () => ({ ...e, headers: { ...e.headers, 'x-slack-signature': 'v0=abc' } }),
      () => ({ ...e, body: e.body.replace('500', '900') }),
      () => slackEvent(message(root, 'x'), { secret: 'not the secret' }),
      skewed(-(SLACK_MAX_SKEW_S + 60)),
      skewed(SLACK_MAX_SKEW_S + 60),
      () => ({ ...e, headers: { ...e.headers, 'x-slack-request-timestamp': 'soon' } }),
    ];
    for (const c of cases) {
      const res = await send(c());
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
    expect(await counts()).toEqual(before);
  });

  it("a signed message event becomes its thread's record, which a brief shows", async () => {
    const res = await send(
      slackEvent(message(root, 'Refunds over 500 EUR need a second approver, see <https://wiki.test/refunds|the refunds page>.'), {
        eventId: 'Ev0ROOT',
      }),
    );
    expect(res).toMatchObject({ status: 200, body: { queued: true, duplicate: false, event_id: 'Ev0ROOT' } });
    const rec = await until(() => item(root));
    expect(rec).toMatchObject({
      version: 1,
      lifecycle: 'active',
      title: 'Refunds over 500 EUR need a second approver, see the refunds page (https://wiki.test/refunds).',
    });
    expect(rec.body).toEqual({
      source_kind: 'slack',
      shape: 'slackThread',
      reply_count: 0,
      pointer: { channel: CHANNEL, ts: root, permalink: `https://acme-test.slack.com/archives/${CHANNEL}/p${root.replace('.', '')}` },
    });
    const [meta] = await t.sql<{ source: string; collection: string }[]>`
      select cs.source, c.slug as collection from doco.nodes n join doco.node_versions v on v.node_id = n.id and v.version = 1
        join doco.changesets cs on cs.id = v.changeset_id join doco.collections c on c.id = n.collection_id where n.id = ${rec.node_id}`;
    expect(meta).toEqual({ source: 'connector', collection: 'slack-c0billing' });
    const brief = await api('POST', '/api/v1/brief', ws.readToken, { about: 'who approves refunds over 500 EUR' });
    expect(brief.status).toBe(200);
    const shown = Object.values(brief.body.tiers)
      .flat()
      .find((i: any) => i.id === rec.node_id) as any;
    expect(shown).toMatchObject({ source: { kind: 'slack', pointer: { channel: CHANNEL, ts: root } } });
  });

  it('a redelivery or a Slack retry (same event_id, X-Slack-Retry-Num) is acknowledged and changes nothing', async () => {
    await idle();
    const before = await counts();
    const itemsBefore = await items();
    for (const retryNum of [undefined, 1, 2]) {
      const res = await send(
        slackEvent(message(root, 'Refunds over 500 EUR need a second approver, see <https://wiki.test/refunds|the refunds page>.'), {
          eventId: 'Ev0ROOT',
          ...(retryNum ? { retryNum } : {}),
        }),
      );
      expect(res).toMatchObject({ status: 200, body: { queued: false, duplicate: true } });
    }
    expect(await counts()).toEqual(before);
    expect(await items()).toEqual(itemsBefore);
  });

  it('a reply and an edit are new versions of the same record; bot messages and joins are skipped', async () => {
    await send(slackEvent(message(at(100, 200), 'Agreed, and log who approved.', { user: 'U0BOB', thread_ts: root })));
    const v2 = await until(async () => ((await item(root))?.version === 2 ? item(root) : undefined));
    expect(v2!.prose).toContain('- @U0BOB: Agreed, and log who approved.');
    expect(v2!.body.reply_count).toBe(1);
    await send(
      slackEvent({
        type: 'message',
        subtype: 'message_changed',
        channel: CHANNEL,
        hidden: true,
        ts: at(200, 1),
        message: {
          type: 'message',
          user: 'U0BOB',
          text: 'Agreed, and log who approved and when.',
          ts: at(100, 200),
          thread_ts: root,
          edited: { user: 'U0BOB', ts: at(200, 0) },
        },
      }),
    );
    const v3 = await until(async () => ((await item(root))?.version === 3 ? item(root) : undefined));
    expect(v3!.prose).toContain('- @U0BOB: Agreed, and log who approved and when.');
    expect(v3!.prose).not.toContain('approved.\n');
    await idle();
    const before = await counts();
    for (const noise of [
      message(at(300, 300), 'Deploy finished.', { bot_id: 'B0CI', subtype: 'bot_message', user: undefined }),
      message(at(301, 300), 'I am a bot reply', { bot_id: 'B0CI', thread_ts: root }),
      message(at(302, 300), '<@U0CAROL> has joined the channel', { subtype: 'channel_join', user: 'U0CAROL' }),
      message(at(303, 300), 'set the channel topic: refunds', { subtype: 'channel_topic' }),
    ]) {
      const res = await send(slackEvent(noise));
      expect(res.body).toMatchObject({ ignored: true });
    }
    expect(await counts()).toEqual(before);
    expect((await item(root))!.version).toBe(3);
  });

  it('a secret in a message never reaches the graph: the record keeps its last clean version', async () => {
    const token = 'xoxb-123456789012-123456789012-Zq8xW3vLp0Kd7Tn2Rb5Yc9Hs';
    await send(slackEvent(message(at(400, 400), `use ${token} for the bot`, { thread_ts: root })));
    await idle();
    expect((await item(root))!.version).toBe(3);
    expect((await t.sql`select 1 from doco.nodes where prose like ${`%${token}%`}`).length).toBe(0);
    expect((await t.sql`select 1 from doco.connector_item_comments where body like ${`%${token}%`}`).length).toBe(0);
  });

  it('a deleted reply is a new version without it; a deleted root retires the thread, for good', async () => {
    await send(
      slackEvent({
        type: 'message',
        subtype: 'message_deleted',
        channel: CHANNEL,
        hidden: true,
        ts: at(500, 1),
        deleted_ts: at(100, 200),
        previous_message: { type: 'message', user: 'U0BOB', text: 'Agreed…', ts: at(100, 200), thread_ts: root },
      }),
    );
    const v4 = await until(async () => ((await item(root))?.version === 4 ? item(root) : undefined));
    expect(v4!.prose).not.toContain('U0BOB');
    const other = at(600, 600);
    await send(slackEvent(message(other, 'Should chargebacks go through the same approval?')));
    const rec = await until(() => item(other));
    await send(
      slackEvent({
        type: 'message',
        subtype: 'message_deleted',
        channel: CHANNEL,
        hidden: true,
        ts: at(700, 1),
        deleted_ts: other,
        previous_message: { type: 'message', user: 'U0ALICE', text: 'Should…', ts: other },
      }),
    );
    const retired = await until(async () => ((await item(other))?.lifecycle === 'retired' ? item(other) : undefined));
    expect(retired).toMatchObject({ node_id: rec.node_id, version: 2 });
    // A late reply to the deleted thread does not bring it back.
    const nodes = (await counts()).nodes;
    await send(slackEvent(message(at(800, 800), 'late reply', { thread_ts: other })));
    await idle();
    expect((await counts()).nodes).toBe(nodes);
    expect(await item(other)).toMatchObject({ lifecycle: 'retired', version: 2 });
  });

  it('an event for a team or channel with no connector is acknowledged and not stored', async () => {
    const before = await counts();
    for (const e of [
      slackEvent(message(at(900, 900), 'elsewhere'), { team: 'T0OTHER' }),
      slackEvent({ ...message(at(901, 900), 'elsewhere'), channel: 'C0OTHER' }),
    ]) {
      const res = await send(e);
      expect(res).toMatchObject({ status: 200, body: { ignored: true } });
    }
    expect(await counts()).toEqual(before);
  });
});

describe('the Slack sync', () => {
  it('after an outage picks up exactly what events missed: new threads, new replies in old threads, no duplicate', async () => {
    await idle();
    // What the events already brought, also on Slack: the first thread (its root), as it is now.
    const root = at(0, 100);
    slack.channel(CHANNEL).messages.set(root, {
      ts: root,
      user: 'U0ALICE',
      text: 'Refunds over 500 EUR need a second approver, see <https://wiki.test/refunds|the refunds page>.',
    });
    const before = await items();
    // Missed while events were down: a new thread with two replies, and a reply in the old thread.
    const fresh = slack.post(CHANNEL, 'Chargebacks: do we hold the payout?', { user: 'U0CAROL' });
    slack.post(CHANNEL, 'Yes, for 30 days.', { user: 'U0DAN', threadTs: fresh });
    slack.post(CHANNEL, 'Unless the merchant is verified.', { user: 'U0ERIN', threadTs: fresh });
    slack.post(CHANNEL, 'Second approvers are listed in the runbook.', { user: 'U0DAN', threadTs: root });
    const newest = slack.post(CHANNEL, 'ci deploy ok', { botId: 'B0CI', subtype: 'bot_message' });

    const cursorBefore = (await status()).state;
    slack.failures.push(...Array.from({ length: 10 }, () => ({ status: 503, error: 'service_unavailable' })));
    lines.length = 0;
    const failed = await sweep();
    expect(failed.last_error).toMatch(/503/);
    expect(failed.state).toEqual(cursorBefore);
    expect(lines.some((l) => / warn .*sweep failed, will retry/.test(l))).toBe(true);
    expect(await items()).toEqual(before);

    slack.failures.length = 0;
    const ok = await sweep();
    expect(ok.last_error).toBeNull();
    const after = await items();
    const byId = new Map(after.map((i) => [i.external_id, i]));
    expect(after.map((i) => i.external_id).sort()).toEqual([...before.map((i) => i.external_id), `${CHANNEL}:${fresh}`].sort());
    expect(byId.get(`${CHANNEL}:${fresh}`)).toMatchObject({
      version: 1,
      title: 'Chargebacks: do we hold the payout?',
      body: { reply_count: 2 },
    });
    expect(byId.get(`${CHANNEL}:${fresh}`)!.prose).toMatch(/@U0DAN: Yes, for 30 days\.\n- @U0ERIN: Unless the merchant is verified\./);
    const old = byId.get(`${CHANNEL}:${root}`)!;
    const oldBefore = before.find((i) => i.external_id === old.external_id)!;
    expect(old).toMatchObject({ node_id: oldBefore.node_id, version: oldBefore.version + 1 });
    expect(old.prose).toContain('- @U0DAN: Second approvers are listed in the runbook.');
    for (const b of before.filter((i) => i.external_id !== old.external_id))
      expect(byId.get(b.external_id)).toMatchObject({ node_id: b.node_id, version: b.version });
    expect(after.some((i) => i.prose.includes('ci deploy ok'))).toBe(false);
    // The cursor is the newest message seen, skipped ones included: they are not read again.
    expect(ok.state[`${CHANNEL}_since`]).toBe(newest);
  });

  it('a sync with nothing new writes nothing and reads no thread', async () => {
    const before = await counts();
    slack.requests.length = 0;
    expect((await sweep()).last_error).toBeNull();
    expect(slack.requests.map((r) => r.method)).toEqual(['conversations.history']);
    const { nodes, versions, changesets, comments } = await counts();
    expect({ nodes, versions, changesets, comments }).toEqual({
      nodes: before.nodes,
      versions: before.versions,
      changesets: before.changesets,
      comments: before.comments,
    });
  });

  it('a 429 with Retry-After is waited out, then the sync completes', async () => {
    const ts = slack.post(CHANNEL, 'Dunning emails go out on day 3.', { user: 'U0FRED' });
    waits.waits.length = 0;
    slack.failures.push({ status: 429, retryAfter: 7, error: 'ratelimited' });
    const s = await sweep();
    expect(s.last_error).toBeNull();
    expect(slack.requests.some((r) => r.status === 429)).toBe(true);
    expect(waits.waits).toContain(7000);
    expect(await item(ts)).toMatchObject({ version: 1, title: 'Dunning emails go out on day 3.' });
  });

  it('a rate limit longer than the cap, or a bad token, is a recorded error; the cursor stays', async () => {
    const cursor = (await status()).state;
    slack.post(CHANNEL, 'Will wait.', { user: 'U0FRED' });
    slack.failures.push({ status: 429, retryAfter: 3600, error: 'ratelimited' });
    const limited = await sweep();
    expect(limited.last_error).toMatch(/rate limited for 3600 s/);
    expect(limited.state).toEqual(cursor);
    slack.failures.push({ status: 200, error: 'invalid_auth' });
    const refused = await sweep();
    expect(refused.last_error).toMatch(/invalid_auth/);
    expect(refused.last_error).not.toContain(BOT_TOKEN);
    expect(lines.join('\n')).not.toContain(BOT_TOKEN);
  });
});
