// Who may call what (docs/security.md): an agent's token never becomes a person's, and an agent
// cannot reach past review through the routes that change what every brief says (collections,
// docs packs, connectors, settings, tokens). Each refusal is the 403 error shape and leaves the
// database exactly as it was. The write path stays open to agents: their writes wait for review.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintSignInCode } from '../../src/auth/console-sessions.js';
import { authenticate } from '../../src/auth/tokens.js';
import { ensurePrincipal } from '../../src/auth/workspaces.js';
import { admits } from '../../src/http/admits.js';
import { buildMcpServer } from '../../src/http/mcp/server.js';
import type { McpTool } from '../../src/http/mcp/tool.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { consoleClient, sessionFor, signedIn, textOf } from '../helpers/console.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { expectError } from '../helpers/expect-error.js';
import { stateDigest } from '../helpers/state.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
let agentToken: string;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'admits');
  api = makeApp(t);
  const minted = await api.call('POST', '/api/v1/hooks/tokens', ws.writeToken, { agent: 'codex', checkout: 'shop' });
  expect(minted.status).toBe(201);
  agentToken = minted.body.mcp_token;
});
afterAll(async () => t.drop());

/** Runs fn and checks the database is exactly as it was before. */
async function unchanged<T>(fn: () => Promise<T>): Promise<T> {
  const before = await stateDigest(t);
  const result = await fn();
  expect(await stateDigest(t)).toEqual(before);
  return result;
}

const refused = (method: string, path: string, token: string, body?: unknown) =>
  unchanged(async () => {
    const res = await api.call(method, path, token, body);
    return expectError(res, 403, 'forbidden');
  });

describe("an agent's token never becomes a person's", () => {
  it('an agent token pasted at /sign-in is refused: no session, no cookie', async () => {
    const client = consoleClient(api.app);
    await client.get('/sign-in');
    const res = await unchanged(() => client.post('/sign-in', { token: agentToken }));
    expect(res.status).toBe(403);
    expect(textOf(res.html)).toMatch(/agent/);
    expect(client.jar.has('doco_session')).toBe(false);
    // An API client gets the one error shape.
    const json = await unchanged(() => client.post('/sign-in', { token: agentToken }, { accept: 'application/json' }));
    expectError({ status: json.status, body: JSON.parse(json.html) }, 403, 'forbidden');
  });

  it("a one-time link made for an agent's principal is refused", async () => {
    const agentId = await ensurePrincipal(t.db, ws.id, 'agent:codex@shop', 'api');
    const code = await mintSignInCode(t.sql, { workspaceId: ws.id, principalId: agentId, scope: 'write' });
    const client = consoleClient(api.app);
    const res = await client.get(`/sign-in?code=${code}`);
    expect(res.status).toBe(403);
    expect(client.jar.has('doco_session')).toBe(false);
    // Posted straight to the form that spends a code (a CSRF token from the plain sign-in page).
    await client.get('/sign-in');
    const posted = await client.post('/sign-in', { code });
    expect(posted.status).toBe(403);
    expect(client.jar.has('doco_session')).toBe(false);
  });

  it('a console session an agent already holds opens no page and mints no token', async () => {
    const agentId = await ensurePrincipal(t.db, ws.id, 'agent:codex@shop', 'api');
    // A session opened before agents were refused at sign-in, with its own valid CSRF token.
    const { cookie, csrf } = await sessionFor(t, { workspaceId: ws.id, principalId: agentId, scope: 'write' });
    const asAgent = (path: string, init: RequestInit = {}) =>
      api.app.request(path, { ...init, headers: { accept: 'application/json', cookie, ...(init.headers as Record<string, string>) } });
    for (const path of ['/tokens', '/review', '/docs']) {
      const res = await asAgent(path);
      expectError({ status: res.status, body: await res.json() }, 403, 'forbidden');
    }
    const res = await unchanged(async () =>
      asAgent('/tokens', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, scope: 'write', principal: 'cli:root' }).toString(),
      }),
    );
    expectError({ status: res.status, body: await res.json() }, 403, 'forbidden');
  });

  it("a person mints console tokens for themselves or an agent, never in another person's name", async () => {
    const client = await signedIn(t, api.app, ws);
    await client.get('/tokens');
    const other = await unchanged(() => client.post('/tokens', { scope: 'write', principal: 'cli:root' }, { accept: 'application/json' }));
    expectError({ status: other.status, body: JSON.parse(other.html) }, 403, 'forbidden');
    const page = await unchanged(() => client.post('/tokens', { scope: 'write', principal: 'cli:root' }));
    expect(page.status).toBe(403);
    expect(textOf(page.html)).toMatch(/cli:root/);

    const mine = await client.post('/tokens', { scope: 'read', principal: `tester-${ws.slug}` });
    expect(mine.status).toBe(200);
    const agents = await client.post('/tokens', { scope: 'write', principal: 'agent:claude-code@docs' });
    expect(agents.status).toBe(200);
    const token = agents.html.match(/id="new-token">\s*(doco_[A-Za-z0-9_-]+)/)![1]!;
    expect((await api.call('GET', '/api/v1/whoami', token)).body.principal).toBe('agent:claude-code@docs');
  });
});

describe('an agent cannot change what every brief says, or who may do what', () => {
  it('cannot create a collection', async () => {
    await refused('POST', '/api/v1/collections', agentToken, { slug: 'agent-goals', template: 'runbooks', goal: 'Obey the agent' });
  });

  it('cannot register a docs pack, or delete one a person registered', async () => {
    await refused('POST', '/api/v1/system/docs/packs', agentToken, { code: 'rules', base_url: 'https://packs.example.com' });
    const registered = await api.call('POST', '/api/v1/system/docs/packs', ws.writeToken, {
      code: 'billing',
      base_url: 'https://billing.example.com',
    });
    expect(registered.status).toBe(202);
    await refused('DELETE', '/api/v1/system/docs/packs/billing', agentToken);
    expect((await api.call('GET', '/api/v1/system/docs/packs', ws.readToken)).body.packs.map((p: { code: string }) => p.code)).toEqual([
      'billing',
    ]);
  });

  it("cannot add a connector, re-arm a Notion connector's handshake, or remove one a person added", async () => {
    await refused('POST', '/api/v1/connectors', agentToken, { kind: 'notion' });
    const added = await api.call('POST', '/api/v1/connectors', ws.writeToken, { kind: 'notion' });
    expect(added.status).toBe(201);
    await refused('POST', `/api/v1/connectors/${added.body.connector.id}/rearm`, agentToken);
    await refused('DELETE', `/api/v1/connectors/${added.body.connector.id}`, agentToken);
    expect((await api.call('GET', `/api/v1/connectors/${added.body.connector.id}`, ws.readToken)).status).toBe(200);
  });

  it("cannot read a connector's operator-only state (a webhook's verification token signs its events)", async () => {
    const [row] = await t.sql<{ id: string }[]>`select id from doco.connectors where workspace_id = ${ws.id} and kind = 'notion'`;
    await t.sql`insert into doco.connector_state (connector_id, key, value)
                values (${row!.id}, 'webhook_verification_token', '"secret_verify"'::jsonb)
                on conflict (connector_id, key) do update set value = excluded.value`;
    const asPerson = await api.call('GET', `/api/v1/connectors/${row!.id}`, ws.writeToken);
    expect(asPerson.body.connector.state.webhook_verification_token).toBe('secret_verify');
    for (const res of [
      await api.call('GET', `/api/v1/connectors/${row!.id}`, agentToken),
      { status: 200, body: { connector: (await api.call('GET', '/api/v1/connectors', agentToken)).body.connectors[0] } },
    ]) {
      expect(res.status).toBe(200);
      expect(JSON.stringify(res.body)).not.toContain('secret_verify');
    }
  });

  it('cannot change workspace or collection settings, or mint tokens', async () => {
    await refused('PATCH', '/api/v1/workspace', agentToken, { agents_may_activate: true });
    await refused('PATCH', '/api/v1/collections/constitution', agentToken, { agents_may_activate: true });
    await refused('POST', '/api/v1/hooks/tokens', agentToken, { agent: 'codex', checkout: 'elsewhere' });
  });

  it('still proposes through the write path: its capture waits for review', async () => {
    const res = await api.call('POST', '/api/v1/capture', agentToken, {
      collection: 'constitution',
      node_type: 'rule',
      title: 'Agents propose',
      prose: 'An agent proposes rules; a person approves them.',
    });
    expect(res.status).toBe(201);
    expect(res.body.node.lifecycle).toBe('queued');
  });
});

describe('a route or tool that declares nothing admits only a person’s write token', () => {
  it('REST: an undeclared route behind the token refuses agents and read tokens; a declared one admits whom it names', async () => {
    const { app } = makeApp(t);
    app.post('/api/v1/undeclared', (c) => c.json({ ok: true }));
    app.post('/api/v1/declared', admits({ principals: ['person', 'agent'], scope: 'read' }), (c) => c.json({ ok: true }));
    const call = async (path: string, token?: string) => {
      const res = await app.request(path, { method: 'POST', headers: token ? { authorization: `Bearer ${token}` } : {} });
      return { status: res.status, body: await res.json() };
    };
    expectError(await call('/api/v1/undeclared'), 401, 'unauthorized');
    expectError(await call('/api/v1/undeclared', agentToken), 403, 'forbidden');
    expectError(await call('/api/v1/undeclared', ws.readToken), 403, 'forbidden');
    expect((await call('/api/v1/undeclared', ws.writeToken)).status).toBe(200);
    expect((await call('/api/v1/declared', agentToken)).status).toBe(200);
    expect((await call('/api/v1/declared', ws.readToken)).status).toBe(200);
    expectError(await call('/api/v1/no-such-route', agentToken), 404, 'not_found');
  });

  it('MCP: a tool admits whom it declares, and one without a declaration only a person’s write token', async () => {
    const tool = (name: string, admitsWhom?: McpTool['admits']): McpTool =>
      ({
        name,
        description: name,
        inputSchema: v.strictObject({}),
        ...(admitsWhom ? { admits: admitsWhom } : {}),
        handle: async () => ({ ok: true }),
      }) as McpTool;
    const tools = [tool('people_only', { principals: ['person'], scope: 'read' }), tool('undeclared')];
    const call = async (token: string, name: string) => {
      const server = buildMcpServer(api.deps, (await authenticate(t.sql, token))!, tools);
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      const client = new Client({ name: 'doco-test', version: '0.0.0' });
      await client.connect(clientSide);
      try {
        return (await client.callTool({ name, arguments: {} })) as { isError?: boolean; structuredContent?: { error?: { code: string } } };
      } finally {
        await client.close();
      }
    };
    expect((await call(agentToken, 'people_only')).structuredContent?.error?.code).toBe('forbidden');
    expect((await call(ws.readToken, 'people_only')).isError).toBeFalsy();
    expect((await call(agentToken, 'undeclared')).structuredContent?.error?.code).toBe('forbidden');
    expect((await call(ws.readToken, 'undeclared')).structuredContent?.error?.code).toBe('forbidden');
    expect((await call(ws.writeToken, 'undeclared')).isError).toBeFalsy();
  });
});
