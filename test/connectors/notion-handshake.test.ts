// Notion's webhook handshake belongs to a person (docs/connectors.md, Notion). Notion's
// subscription handshake is an unsigned POST {"verification_token"}, so Doco takes one only while
// a person has armed it: adding the Notion connector, or re-arming it, opens an hour for it. The
// token is kept for that person to paste into Notion and shown to them alone. Anything else — no
// connector, a token already kept, the hour gone, another connector named — is one refusal that
// names no connector. Before, an unsigned handshake from anyone was taken whenever the connector
// held no token (and named the connector), the real one then got 409, and events signed with the
// attacker's token were queued.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/auth/tokens.js';
import { HANDSHAKE_MAX_BYTES } from '../../src/connectors/notion/webhook.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
let ws: TestWorkspace;
let other: TestWorkspace;
let api: ReturnType<typeof makeApp>;
let agentToken: string;
let connectorId = '';
let refusal: { status: number; body: unknown };

const NOTION_TOKEN = 'secret_from_notion_0123456789abcdef';
const ATTACKER_TOKEN = 'secret_from_an_attacker_0123456789';

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'handshake');
  other = await makeWorkspace(t, 'handshake-other');
  api = makeApp(t);
  agentToken = (await api.call('POST', '/api/v1/hooks/tokens', ws.writeToken, { agent: 'codex', checkout: 'hs' })).body.mcp_token;
  expect(await authenticate(t.sql, agentToken)).toBeDefined();
});
afterAll(async () => t.drop());

const post = async (path: string, body: string, headers: Record<string, string> = {}) => {
  const res = await api.app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { status: res.status, body: (await res.json()) as any };
};
const handshake = (token: string, query = '') => post(`/webhooks/notion${query}`, JSON.stringify({ verification_token: token }));
const signedEvent = (token: string, id: string) => {
  const body = JSON.stringify({
    id,
    timestamp: '2026-05-01T10:00:00.000Z',
    type: 'page.content_updated',
    entity: { id: '11111111-2222-4333-8444-555566667777', type: 'page' },
    data: {},
  });
  return post('/webhooks/notion', body, { 'x-notion-signature': `sha256=${createHmac('sha256', token).update(body).digest('hex')}` });
};
const status = async (token = ws.writeToken) =>
  (await api.call('GET', `/api/v1/connectors/${connectorId}`, token)).body.connector as Record<string, any>;
const stored = async () =>
  (
    await t.sql<{ token: string | null }[]>`
    select value->>'token' as token from doco.connector_state where connector_id = ${connectorId} and key = 'webhook_verification_token'`
  )[0]?.token ?? null;
const counts = async () =>
  (
    await t.sql`select (select count(*) from doco.connector_deliveries)::int as deliveries, (select count(*) from doco.connector_state)::int as state,
                       (select count(*) from graphile_worker.jobs where task_identifier = 'connectors__delivery')::int as jobs`
  )[0];
/** Moves the open hour into the past, as if the person had armed it two hours ago. */
const age = async () => {
  await t.sql`update doco.connectors set created_at = created_at - interval '2 hours' where id = ${connectorId}`;
  await t.sql`update doco.connector_state set value = to_jsonb((value #>> '{}')::timestamptz - interval '2 hours')
               where connector_id = ${connectorId} and key = 'webhook_armed_at'`;
};

describe('with no Notion connector', () => {
  it('an unsigned handshake is refused, naming no connector', async () => {
    refusal = await handshake(ATTACKER_TOKEN);
    expect(refusal).toMatchObject({ status: 401, body: { error: { code: 'unauthorized' } } });
    expect(JSON.stringify(refusal.body)).not.toMatch(/connector_|doco connector add notion/);
    expect(await t.sql`select 1 from doco.connector_state`).toHaveLength(0);
  });
});

describe('a connector a person added', () => {
  it('awaits the handshake for an hour from its adding, and says so', async () => {
    const added = await api.call('POST', '/api/v1/connectors', ws.writeToken, { kind: 'notion' });
    expect(added.status).toBe(201);
    connectorId = added.body.connector.id;
    const s = await status();
    const until = new Date(s.webhook.until).getTime() - new Date(s.created_at).getTime();
    expect(s.webhook).toMatchObject({ handshake: 'awaiting' });
    expect(until).toBe(60 * 60 * 1000);
  });

  it('an unsigned body longer than a handshake is not read as one (nor parsed): 401, nothing kept', async () => {
    // A megabyte of nested arrays cost ~0.6 s to parse before the answer; a handshake is ~50 bytes.
    const padded = `{"verification_token": ${JSON.stringify(ATTACKER_TOKEN)}${' '.repeat(HANDSHAKE_MAX_BYTES)}}`;
    expect(await post('/webhooks/notion', padded)).toMatchObject({ status: 401, body: { error: { code: 'unauthorized' } } });
    expect(await post('/webhooks/notion', '['.repeat(200_000))).toMatchObject({ status: 401 });
    expect(await stored()).toBeNull();
  });

  it("takes Notion's handshake without naming the connector, and shows the token to that person only", async () => {
    const res = await handshake(NOTION_TOKEN);
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    expect(JSON.stringify(res.body)).not.toContain(connectorId);
    expect(await stored()).toBe(NOTION_TOKEN);
    const s = await status();
    expect(s.webhook).toMatchObject({ handshake: 'received', verification_token: NOTION_TOKEN });
    expect(s.state.webhook_verification_token.token).toBe(NOTION_TOKEN);
    for (const token of [ws.readToken, agentToken]) expect(JSON.stringify(await status(token))).not.toContain(NOTION_TOKEN);
    expect((await signedEvent(NOTION_TOKEN, 'evt-real-1')).status).toBe(202);
  });

  it("a second unsigned handshake (an attacker's) is the same refusal as with no connector, and changes nothing", async () => {
    const before = await counts();
    expect(await handshake(ATTACKER_TOKEN)).toEqual(refusal);
    expect(await handshake(ATTACKER_TOKEN, `?connector=${connectorId}`)).toEqual(refusal);
    expect(await handshake(ATTACKER_TOKEN, '?connector=connector_01K8Z3QH0000000000000000AA')).toEqual(refusal);
    expect(await stored()).toBe(NOTION_TOKEN);
    expect((await signedEvent(ATTACKER_TOKEN, 'evt-forged-1')).status).toBe(401);
    expect(await counts()).toEqual(before);
  });
});

describe('the hour gone', () => {
  it("an attacker's handshake on a connector added two hours ago and never verified is refused", async () => {
    await t.sql`delete from doco.connector_state where connector_id = ${connectorId} and key = 'webhook_verification_token'`;
    await age();
    const before = await counts();
    expect(await handshake(ATTACKER_TOKEN)).toEqual(refusal);
    expect(await stored()).toBeNull();
    expect((await status()).webhook).toMatchObject({ handshake: 'expired' });
    expect((await signedEvent(ATTACKER_TOKEN, 'evt-forged-2')).status).toBe(401);
    expect(await counts()).toEqual(before);
  });

  it("the person re-arms it (REST): the kept token goes, another hour opens, and Notion's next handshake is taken", async () => {
    await handshake(NOTION_TOKEN); // refused: the hour is gone
    expect(await stored()).toBeNull();
    const rearmed = await api.call('POST', `/api/v1/connectors/${connectorId}/rearm`, ws.writeToken);
    expect(rearmed.status).toBe(200);
    expect(rearmed.body.connector.webhook).toMatchObject({ handshake: 'awaiting' });
    expect((await handshake(NOTION_TOKEN)).status).toBe(200);
    expect(await stored()).toBe(NOTION_TOKEN);
    // Re-arming a verified connector drops its token until Notion sends the next one.
    expect((await api.call('POST', `/api/v1/connectors/${connectorId}/rearm`, ws.writeToken)).status).toBe(200);
    expect(await stored()).toBeNull();
    expect((await signedEvent(NOTION_TOKEN, 'evt-real-2')).status).toBe(401);
    await age();
    expect(await handshake(NOTION_TOKEN)).toEqual(refusal);
  });

  it("re-arming is a person's write: agents and read tokens are refused, another workspace finds no such connector", async () => {
    const before = await counts();
    for (const token of [agentToken, ws.readToken]) {
      expect((await api.call('POST', `/api/v1/connectors/${connectorId}/rearm`, token)).status).toBe(403);
    }
    expect((await api.call('POST', `/api/v1/connectors/${connectorId}/rearm`, other.writeToken)).status).toBe(404);
    expect(await counts()).toEqual(before);
    expect((await status()).webhook).toMatchObject({ handshake: 'expired' });
  });

  it('only a Notion connector has a handshake to re-arm', async () => {
    const gh = await api.call('POST', '/api/v1/connectors', ws.writeToken, { kind: 'github', installation_id: 7, repo: 'octo/hs' });
    const res = await api.call('POST', `/api/v1/connectors/${gh.body.connector.id}/rearm`, ws.writeToken);
    expect(res).toMatchObject({ status: 400, body: { error: { code: 'validation_failed' } } });
  });
});
