// Agents' writes through the real app: the tokens `doco hooks install` asks for
// (POST /hooks/tokens, a person's write token only), then doco_capture, doco_changeset,
// doco_relate and doco_log over MCP and capture over REST with the agent's MCP token land as
// queued; the collection setting (PATCH /collections/:slug, a person only) lets them go live; a
// person's write token is unchanged.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApp, makeWorkspace, type TestWorkspace } from '../../helpers/app.js';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { callTool, callToolOk, connectMcp } from '../../helpers/mcp.js';

let t: TestDb;
let ws: TestWorkspace;
let http: ReturnType<typeof makeApp>;
let agent: { mcp_token: string; hook_token: string; principal: string };
let client: Client;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'agent-review');
  http = makeApp(t);
  const minted = await http.call('POST', '/api/v1/hooks/tokens', ws.writeToken, { agent: 'codex', checkout: 'shop' });
  expect(minted.status, JSON.stringify(minted.body)).toBe(201);
  agent = minted.body;
  expect(
    (
      await http.call('POST', '/api/v1/collections', ws.writeToken, {
        slug: 'notes',
        template: 'product-decisions',
        goal: 'What we decided.',
      })
    ).status,
  ).toBe(201);
  client = await connectMcp(http.app, agent.mcp_token);
});
afterAll(async () => {
  await client.close();
  await t.drop();
});

const decision = (title: string) => ({ collection: 'notes', node_type: 'decision', title, prose: `${title}, as decided.` });

describe('minting the hook tokens', () => {
  it('gives a read token for the hooks and a write token, both bound to agent:<agent>@<checkout>', async () => {
    expect(agent.principal).toBe('agent:codex@shop');
    // The hooks ask as the agent, so a brief they ask for says which agent asked.
    expect((await http.call('GET', '/api/v1/whoami', agent.hook_token)).body).toEqual({
      workspace: 'agent-review',
      scope: 'read',
      principal: 'agent:codex@shop',
    });
    expect((await http.call('GET', '/api/v1/whoami', agent.mcp_token)).body).toEqual({
      workspace: 'agent-review',
      scope: 'write',
      principal: 'agent:codex@shop',
    });
  });

  it("refuses a read token, an agent's token, no token and bad input, minting nothing", async () => {
    const [before] = await t.sql`select count(*)::int as n from doco.tokens`;
    expect((await http.call('POST', '/api/v1/hooks/tokens', ws.readToken, { agent: 'codex', checkout: 'shop' })).status).toBe(403);
    expect((await http.call('POST', '/api/v1/hooks/tokens', agent.mcp_token, { agent: 'codex', checkout: 'shop' })).body.error.code).toBe(
      'forbidden',
    );
    expect((await http.call('POST', '/api/v1/hooks/tokens', undefined, { agent: 'codex', checkout: 'shop' })).status).toBe(401);
    const bad = await http.call('POST', '/api/v1/hooks/tokens', ws.writeToken, { agent: 'vim', checkout: '../x' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
    const [after] = await t.sql`select count(*)::int as n from doco.tokens`;
    expect(after!.n).toBe(before!.n);
  });
});

describe("agents' writes land as queued", () => {
  it("doco_capture over MCP and POST /capture with the agent token: queued; a person's write token: active", async () => {
    const mcp = await callToolOk(client, 'doco_capture', decision('Ship on Fridays'));
    expect(mcp.node.lifecycle).toBe('queued');
    const rest = await http.call('POST', '/api/v1/capture', agent.mcp_token, decision('Freeze in December'));
    expect(rest.status).toBe(201);
    expect(rest.body.node.lifecycle).toBe('queued');
    const person = await http.call('POST', '/api/v1/capture', ws.writeToken, decision('Refunds go to the card'));
    expect(person.body.node.lifecycle).toBe('active');
  });

  it('doco_changeset creates and relates as queued; doco_relate too; activate is refused (forbidden) and changes nothing', async () => {
    const cs = await callToolOk(client, 'doco_changeset', {
      collection: 'notes',
      operations: [
        { op: 'create', alias: 'a', node_type: 'decision', title: 'Cache for a day', prose: 'Cache for a day.' },
        { op: 'create', alias: 'b', node_type: 'decision', title: 'Purge on deploy', prose: 'Purge on deploy.' },
        { op: 'relate', from: '$a', to: '$b', edge_type: 'relates_to' },
      ],
    });
    expect(cs.nodes.map((n: { lifecycle: string }) => n.lifecycle)).toEqual(['queued', 'queued']);
    expect(cs.edges[0].lifecycle).toBe('queued');
    const rel = await callToolOk(client, 'doco_relate', { from: cs.aliases.b, to: cs.aliases.a, edge_type: 'supports' });
    expect(rel.edge.lifecycle).toBe('queued');
    const refused = await callTool(client, 'doco_changeset', {
      collection: 'notes',
      operations: [{ op: 'activate', target: cs.aliases.a }],
    });
    expect(refused.isError).toBe(true);
    expect((refused.structuredContent as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'forbidden',
      message: expect.stringMatching(/review/),
    });
    expect((await http.call('GET', `/api/v1/nodes/${cs.aliases.a}`, ws.readToken)).body.node.lifecycle).toBe('queued');
  });

  it('doco_log: the chat log is queued for review too', async () => {
    const log = await callToolOk(client, 'doco_log', { summary: 'Decided to ship on Fridays.' });
    expect(log.node.lifecycle).toBe('queued');
  });

  it("an agent's pending edges never block a person's relate or supersede: the person's live edge takes their place", async () => {
    const capture = async (title: string) =>
      (await http.call('POST', '/api/v1/capture', ws.writeToken, decision(title))).body.node.id as string;
    const edgeLifecycle = async (id: string) => (await t.sql`select lifecycle from doco.edges where id = ${id}`)[0]!.lifecycle;
    const [a, b] = [await capture('Refunds within 30 days'), await capture('Refunds within 14 days')];
    // The agent proposes that a replaces b, and that a is constrained by b: both wait for review.
    const proposed = [];
    for (const edge_type of ['replaces', 'constrained_by']) {
      const res = await http.call('POST', '/api/v1/relate', agent.mcp_token, { from: a, to: b, edge_type });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.edge.lifecycle).toBe('queued');
      proposed.push(res.body.edge.id as string);
    }
    // Counted as live, they refused the person's own relate (409) and supersede (lifecycle_violation).
    const related = await http.call('POST', '/api/v1/relate', ws.writeToken, { from: a, to: b, edge_type: 'constrained_by' });
    expect(related.status, JSON.stringify(related.body)).toBe(201);
    expect(related.body.edge.lifecycle).toBe('active');
    const superseded = await http.call('POST', '/api/v1/changeset', ws.writeToken, {
      collection: 'notes',
      operations: [{ op: 'supersede', target: b, node_type: 'decision', alias: 'next', prose: 'Refunds within 21 days.' }],
    });
    expect(superseded.status, JSON.stringify(superseded.body)).toBe(201);
    expect(await Promise.all(proposed.map(edgeLifecycle))).toEqual(['retired', 'retired']);
    // An agent's pending edge still meets another pending one of the same kind as a conflict.
    const c = await capture('Refunds need a receipt');
    expect((await http.call('POST', '/api/v1/relate', agent.mcp_token, { from: a, to: c, edge_type: 'supports' })).status).toBe(201);
    expect((await http.call('POST', '/api/v1/relate', agent.mcp_token, { from: a, to: c, edge_type: 'supports' })).status).toBe(409);
  });

  it('the collection setting lets agents activate; only a person may change it', async () => {
    expect((await http.call('PATCH', '/api/v1/collections/notes', agent.mcp_token, { agents_may_activate: true })).status).toBe(403);
    expect((await http.call('PATCH', '/api/v1/collections/notes', ws.readToken, { agents_may_activate: true })).status).toBe(403);
    expect((await http.call('PATCH', '/api/v1/collections/notes', ws.writeToken, { agents_may_activate: 'yes' })).status).toBe(400);
    const set = await http.call('PATCH', '/api/v1/collections/notes', ws.writeToken, { agents_may_activate: true });
    expect(set.status).toBe(200);
    expect(set.body.collection.agents_may_activate).toBe(true);
    expect((await callToolOk(client, 'doco_capture', decision('Deploy twice a day'))).node.lifecycle).toBe('active');
    await http.call('PATCH', '/api/v1/collections/notes', ws.writeToken, { agents_may_activate: null });
    expect((await callToolOk(client, 'doco_capture', decision('Deploy at noon'))).node.lifecycle).toBe('queued');
  });

  it('the workspace setting covers collections that do not say', async () => {
    expect((await http.call('GET', '/api/v1/workspace', ws.readToken)).body.workspace).toEqual({
      slug: 'agent-review',
      agents_may_activate: false,
    });
    expect((await http.call('PATCH', '/api/v1/workspace', agent.mcp_token, { agents_may_activate: true })).status).toBe(403);
    expect(
      (await http.call('PATCH', '/api/v1/workspace', ws.writeToken, { agents_may_activate: true })).body.workspace.agents_may_activate,
    ).toBe(true);
    expect((await callToolOk(client, 'doco_capture', decision('Deploy on Mondays'))).node.lifecycle).toBe('active');
    await http.call('PATCH', '/api/v1/workspace', ws.writeToken, { agents_may_activate: false });
  });
});
