// The Notion connector end to end: a real graphile-worker, real Postgres, the HTTP app in
// process and the fake Notion API on loopback (test/helpers/fake-notion.ts says which documented
// behaviour each part stands for). The first tick copies the shared pages in; the subscription
// handshake keeps its token for the operator; a page edited in Notion and announced by a signed
// event is a new version in the graph and its text in a brief; a bad signature is 401 with
// nothing stored; the tick alone (webhooks lost) catches an edit; a tick with nothing new makes
// one search request and writes nothing; a deleted page retires its record; an outage is a
// recorded warning with the cursor kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { NotionClient } from '../../src/connectors/notion/client.js';
import type { RunningWorker } from '../../src/jobs/worker.js';
import { makeLog } from '../../src/lib/log.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { connectorHarness, until } from '../helpers/connector-e2e.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { startConnectorWorker } from '../helpers/connector-worker.js';
import { block, FakeNotion, para, text, type FakeNotionPage } from '../helpers/fake-notion.js';
import { localProviders } from '../helpers/search.js';

const providers = localProviders();
const lines: string[] = [];
const log = makeLog('debug', (l) => lines.push(l));
let t: TestDb;
let ws: TestWorkspace;
let fake: FakeNotion;
let worker: RunningWorker;
let app: ReturnType<typeof buildApp>;
let h: ReturnType<typeof connectorHarness>;
let connectorId: string;
let refunds: FakeNotionPage;
let runbook: FakeNotionPage;

const items = () =>
  t.sql<
    {
      external_id: string;
      node_id: string;
      version: number;
      lifecycle: string;
      title: string;
      prose: string;
      pointer: Record<string, any>;
    }[]
  >`
    select i.external_id, i.node_id, n.version, n.lifecycle::text as lifecycle, n.title, n.prose, n.body->'pointer' as pointer
      from doco.connector_items i join doco.nodes n on n.id = i.node_id where i.kind = 'notion' order by n.title`;
const item = async (id: string) => (await items()).find((i) => i.external_id === id);
const tick = () => h.sweep('notion', connectorId, ws.writeToken);
const contentRequests = () => fake.requests.filter((r) => !r.path.startsWith('/v1/search'));

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'docs');
  fake = new FakeNotion();
  const origin = await fake.start();
  refunds = fake.addPage({
    title: 'Refund policy',
    parent: { type: 'database_id', database_id: '0f0f0f0f-1111-4222-8333-444455556666' },
    blocks: [
      block('heading_2', { rich_text: [text('Partial refunds')] }),
      block('paragraph', {
        rich_text: [
          text('Partial refunds post through '),
          text('app/ledger/refund.ts', { code: true }),
          text(', see '),
          text('the spec', { href: 'https://example.com/refund-spec' }),
        ],
      }),
      block('toggle', { rich_text: [text('Why a ledger?')] }, [para('Every refund must balance against its charge.')]),
    ],
  });
  runbook = fake.addPage({
    title: 'On-call runbook',
    blocks: [block('to_do', { rich_text: [text('page the payments lead')], checked: false })],
  });
  app = buildApp(makeApp(t, undefined, providers).deps);
  // The pacer's real rate is 3/s; the tests raise it so they do not wait on it (notion-client.test.ts checks the pacing).
  const notion = new NotionClient({
    apiUrl: origin,
    token: fake.token,
    requestsPerSecond: 1000,
    retry: { maxAttempts: 2, baseDelayMs: 1 },
  });
  worker = await startConnectorWorker(t, providers, log, { notion });
  h = connectorHarness(t, app, () => worker);
});
afterAll(async () => {
  await worker.stop();
  await fake.stop();
  await t.drop();
});

describe('adding the connector', () => {
  it('refuses bad input and read tokens with nothing stored, then adds it and its first tick copies the pages in', async () => {
    expect((await h.api('POST', '/api/v1/connectors', ws.readToken, { kind: 'notion' })).status).toBe(403);
    const bad = await h.api('POST', '/api/v1/connectors', ws.writeToken, { kind: 'notion', collection: 'Not A Slug' });
    expect(bad).toMatchObject({ status: 400, body: { error: { code: 'validation_failed' } } });
    expect((await h.api('POST', '/api/v1/connectors', ws.writeToken, { kind: 'notion', token: 'x' })).status).toBe(400);
    expect(await t.sql`select 1 from doco.connectors`).toHaveLength(0);

    const added = await h.api('POST', '/api/v1/connectors', ws.writeToken, { kind: 'notion' });
    expect(added.status).toBe(201);
    expect(added.body.connector).toMatchObject({ kind: 'notion', workspace: 'docs', config: { collection: 'notion' }, status: 'active' });
    connectorId = added.body.connector.id;
    expect((await h.api('POST', '/api/v1/connectors', ws.writeToken, { kind: 'notion' })).status).toBe(409);

    const rows = await until(async () => ((await items()).length === 2 ? items() : undefined));
    const page = rows.find((r) => r.external_id === refunds.id)!;
    expect(page).toMatchObject({ version: 1, lifecycle: 'active', title: 'Refund policy' });
    expect(page.pointer).toEqual({
      page_id: refunds.id,
      url: fake.url(refunds),
      parent: { type: 'database', id: '0f0f0f0f-1111-4222-8333-444455556666' },
    });
    expect(page.prose).toContain('## Partial refunds');
    expect(page.prose).toContain('[the spec](https://example.com/refund-spec)');
    expect(page.prose).toContain('Every refund must balance against its charge.');
    const touches = (await t.sql<{ value: string }[]>`select value from doco.touches where node_id = ${page.node_id}`).map((r) => r.value);
    expect(touches).toEqual(expect.arrayContaining(['app/ledger/refund.ts', 'https://example.com/refund-spec']));
    const [written] = await t.sql<{ source: string; collection: string }[]>`
      select cs.source, c.slug as collection from doco.nodes n join doco.node_versions v on v.node_id = n.id and v.version = 1
        join doco.changesets cs on cs.id = v.changeset_id join doco.collections c on c.id = n.collection_id where n.id = ${page.node_id}`;
    expect(written).toEqual({ source: 'connector', collection: 'notion' });
    const s = await h.status(connectorId, ws.readToken);
    expect(s.state.search_since).toBe(new Date(refunds.lastEdited).toISOString());
    expect(s.last_error).toBeNull();
  });
});

describe('the webhook', () => {
  it('an unsigned body that is not the handshake is 401, nothing stored', async () => {
    await h.idle(); // a job left by the test before must not finish between the two counts
    const before = await h.counts();
    const e = fake.event('page.content_updated', refunds.id);
    const res = await h.post('/webhooks/notion', { body: e.body, headers: { 'content-type': 'application/json' } });
    expect(res).toMatchObject({ status: 401, body: { error: { code: 'unauthorized' } } });
    expect(await h.counts()).toEqual(before);
  });

  it('keeps the handshake token, shows it to write tokens and the operator only, and refuses a second handshake', async () => {
    const res = await h.post('/webhooks/notion', fake.handshake());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true });
    expect(JSON.stringify(res.body)).not.toContain(connectorId);
    expect((await h.status(connectorId, ws.writeToken)).state.webhook_verification_token.token).toBe(fake.verificationToken);
    expect(JSON.stringify(await h.status(connectorId, ws.readToken))).not.toContain(fake.verificationToken);
    const forged = await h.post('/webhooks/notion', {
      body: JSON.stringify({ verification_token: 'secret_forged_by_someone_else' }),
      headers: { 'content-type': 'application/json' },
    });
    expect(forged.status).toBe(401); // as if no connector were there (notion-handshake.test.ts)
    expect((await h.status(connectorId, ws.writeToken)).state.webhook_verification_token.token).toBe(fake.verificationToken);
    expect(lines.join('\n')).not.toContain(fake.verificationToken);
  });

  it('a bad signature is 401 and stores nothing: no delivery, no job, no record', async () => {
    await h.idle(); // a job left by the test before must not finish between the two counts
    const before = await h.counts();
    const good = fake.event('page.content_updated', refunds.id);
    for (const signature of [
      'sha256=' + '0'.repeat(64),
      'sha256=abc',
      good.headers['x-notion-signature'].slice(7),
      'v0=' + good.headers['x-notion-signature'].slice(7),
    ]) {
      const res = await h.post('/webhooks/notion', { body: good.body, headers: { ...good.headers, 'x-notion-signature': signature } });
      expect(res.status).toBe(401);
    }
    expect(
      (await h.post('/webhooks/notion', { body: good.body.replace('page.content_updated', 'page.deleted'), headers: good.headers })).status,
    ).toBe(401);
    expect((await h.post('/webhooks/notion', fake.event('page.deleted', refunds.id, { token: 'secret_not_the_token' }))).status).toBe(401);
    expect(await h.counts()).toEqual(before);
  });

  it('a signed body that is not an event is a 400 naming the problem, nothing stored', async () => {
    const { createHmac } = await import('node:crypto');
    const signed = (body: string) => ({
      body,
      headers: {
        'content-type': 'application/json',
        'x-notion-signature': `sha256=${createHmac('sha256', fake.verificationToken).update(body).digest('hex')}`,
      },
    });
    await h.idle(); // a job left by the test before must not finish between the two counts
    const before = await h.counts();
    expect(await h.post('/webhooks/notion', signed('not json'))).toMatchObject({
      status: 400,
      body: { error: { code: 'validation_failed', message: 'the webhook body is not a JSON object' } },
    });
    expect(
      await h.post('/webhooks/notion', signed(JSON.stringify({ type: 'page.created', entity: { id: refunds.id, type: 'page' } }))),
    ).toMatchObject({ status: 400, body: { error: { message: 'a Notion event needs an id and a type' } } });
    expect((await h.post('/webhooks/notion?connector=nope', fake.event('page.created', refunds.id))).status).toBe(400);
    expect(await h.counts()).toEqual(before);
  });

  it('a page edited in Notion and announced by a signed event is a new version, and its text is in a brief', async () => {
    fake.edit(refunds.id, {
      blocks: [
        block('heading_2', { rich_text: [text('Partial refunds')] }),
        block('paragraph', { rich_text: [text('Partial refunds now need a second approver in the ledger console.')] }),
      ],
    });
    const e = fake.event('page.content_updated', refunds.id, { id: 'evt-edit-1' });
    const res = await h.post('/webhooks/notion', e);
    expect(res).toMatchObject({ status: 202, body: { queued: true, duplicate: false } });
    const edited = await until(async () => ((await item(refunds.id))?.version === 2 ? item(refunds.id) : undefined));
    expect(edited!.prose).toContain('second approver');
    expect(edited!.prose).not.toContain('Why a ledger?');
    const found = await until(async () => {
      const brief = await h.api('POST', '/api/v1/brief', ws.readToken, { about: 'who approves partial refunds in the ledger console' });
      return (Object.values(brief.body.tiers).flat() as { id: string; text: string; source: { kind: string } }[]).find(
        (i) => i.id === edited!.node_id,
      );
    });
    expect(found.source.kind).toBe('notion');
    expect(found.text).toContain('second approver');
  });

  it('a redelivery (same event id) is acknowledged and changes nothing', async () => {
    await h.idle();
    await h.idle(); // a job left by the test before must not finish between the two counts
    const before = await h.counts();
    const res = await h.post('/webhooks/notion', fake.event('page.content_updated', refunds.id, { id: 'evt-edit-1' }));
    expect(res).toMatchObject({ status: 200, body: { queued: false, duplicate: true } });
    expect(await h.counts()).toEqual(before);
  });

  it('an event that names no page is acknowledged and not stored', async () => {
    await h.idle(); // a job left by the test before must not finish between the two counts
    const before = await h.counts();
    const res = await h.post('/webhooks/notion', fake.event('database.schema_updated', 'd1', { entityType: 'database' }));
    expect(res).toMatchObject({ status: 200, body: { ignored: true } });
    expect(await h.counts()).toEqual(before);
  });
});

describe('the minute tick', () => {
  it('with nothing new makes one search request, reads no content and writes nothing', async () => {
    await tick(); // the webhook's edit moved last_edited_time past the cursor: this tick takes the cursor there
    await h.idle(); // a job left by the test before must not finish between the two counts
    const before = await h.counts();
    fake.requests.length = 0;
    const s = await tick();
    expect(s.last_error).toBeNull();
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/search']);
    expect(await h.counts()).toEqual(before);
  });

  it('alone (the webhook lost) catches an edit within two ticks', async () => {
    fake.edit(runbook.id, {
      title: 'On-call runbook (payments)',
      blocks: [block('to_do', { rich_text: [text('page the payments lead')], checked: true }), para('Escalate after 15 minutes.')],
    });
    let ticks = 0;
    while (ticks < 2 && (await item(runbook.id))!.version < 2) {
      expect((await tick()).last_error).toBeNull();
      ticks++;
    }
    const r = (await item(runbook.id))!;
    expect(r).toMatchObject({ version: 2, title: 'On-call runbook (payments)' });
    expect(r.prose).toContain('- [x] page the payments lead');
    // Only the edited page's content was read; the other page stayed behind the cursor.
    expect(contentRequests().every((q) => q.path.includes(runbook.id))).toBe(true);
  });

  it('a new page shared later is created; the boundary minute is re-read without re-reading content', async () => {
    const fresh = fake.addPage({ title: 'Dispute handling', blocks: [para('Disputes freeze the payout.')] });
    fake.requests.length = 0;
    await tick();
    expect(await item(fresh.id)).toMatchObject({ version: 1, title: 'Dispute handling' });
    fake.requests.length = 0;
    await h.idle(); // a job left by the test before must not finish between the two counts
    const before = await h.counts();
    await tick();
    expect(contentRequests()).toEqual([]);
    expect(await h.counts()).toEqual(before);
  });

  it('a 429 with Retry-After is waited out and the tick completes', async () => {
    fake.edit(runbook.id, { blocks: [para('Escalate after 10 minutes.')] });
    fake.failures.push({ status: 429, code: 'rate_limited', headers: { 'retry-after': '1' } });
    const s = await tick();
    expect(s.last_error).toBeNull();
    expect(fake.requests.some((r) => r.status === 429)).toBe(true);
    expect((await item(runbook.id))!.prose).toContain('10 minutes');
  });

  it('an outage is a recorded error and a warning; the cursor stays; the next tick catches up', async () => {
    const cursor = (await h.status(connectorId, ws.readToken)).state.search_since;
    fake.edit(runbook.id, { blocks: [para('Escalate after 5 minutes.')] });
    fake.failures.push(...Array.from({ length: 4 }, () => ({ status: 503, code: 'service_unavailable' })));
    lines.length = 0;
    const failed = await tick();
    expect(failed.last_error).toMatch(/503/);
    expect(failed.state.search_since).toBe(cursor);
    expect(lines.some((l) => / warn .*notion connector.*sweep failed, will retry/.test(l))).toBe(true);
    fake.failures.length = 0;
    const ok = await tick();
    expect(ok.last_error).toBeNull();
    expect(ok.state.search_since).not.toBe(cursor);
    expect((await item(runbook.id))!.prose).toContain('5 minutes');
  });

  it('a search that gives the same cursor twice stops with a recorded error, what it read kept; the next tick completes', async () => {
    const cursor = (await h.status(connectorId, ws.readToken)).state.search_since;
    fake.edit(refunds.id, { blocks: [para('Refunds over 500 need a second approver.')] });
    fake.replaySearch = true;
    const searches = () => fake.requests.filter((r) => r.path.startsWith('/v1/search')).length;
    const before = searches();
    const failed = await tick();
    fake.replaySearch = false;
    expect(failed.last_error).toMatch(/notion search: the API gave the page cursor "[^"]+" a second time/);
    expect(searches() - before).toBe(2);
    expect(failed.state.search_since).toBe(cursor);
    expect((await item(refunds.id))!.prose).toContain('second approver');
    const ok = await tick();
    expect(ok.last_error).toBeNull();
    expect(ok.state.search_since).not.toBe(cursor);
  });
});

describe('deletion', () => {
  it('a page deleted in Notion retires its record on its event; later events do not bring it back', async () => {
    fake.archive(runbook.id);
    await h.post('/webhooks/notion', fake.event('page.deleted', runbook.id));
    const gone = await until(async () => ((await item(runbook.id))?.lifecycle === 'retired' ? item(runbook.id) : undefined));
    const nodes = (await h.counts()).nodes;
    await h.post('/webhooks/notion', fake.event('page.content_updated', runbook.id));
    await h.idle();
    await tick();
    expect((await h.counts()).nodes).toBe(nodes);
    expect(await item(runbook.id)).toMatchObject({ node_id: gone!.node_id, lifecycle: 'retired' });
  });

  it('a page Notion no longer has (404) retires its record too', async () => {
    const page = fake.pages.get(refunds.id)!;
    page.deleted = true;
    await h.post('/webhooks/notion', fake.event('page.deleted', refunds.id));
    await until(async () => (await item(refunds.id))?.lifecycle === 'retired');
  });

  it('no log line or status carries the integration token', async () => {
    const all = lines.join('\n') + JSON.stringify(await h.api('GET', '/api/v1/connectors', ws.writeToken));
    expect(all).not.toContain(fake.token);
  });
});
