// The MCP endpoint driven by the real MCP SDK client: in process (a fetch that calls app.fetch)
// for most tests, and once over a real HTTP socket.
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callTool, callToolOk, connectMcp } from '../../helpers/mcp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { graphCounts, makeApp, makeWorkspace, type TestWorkspace } from '../../helpers/app.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
const clients: Client[] = [];

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'mcp');
  api = makeApp(t);
  const res = await api.call('POST', '/api/v1/collections', ws.writeToken, {
    slug: 'arch',
    template: 'adrs',
    goal: 'Architecture decisions',
  });
  expect(res.status).toBe(201);
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => t.drop());

async function connect(token: string | undefined, url?: string): Promise<Client> {
  const client = await connectMcp(api.app, token, url);
  clients.push(client);
  return client;
}

const ok = callToolOk;

/** Calls a tool that must fail with this error code, and checks it wrote nothing. */
async function failsWith(client: Client, name: string, args: Record<string, unknown>, code: string) {
  const before = await graphCounts(t);
  const res = await callTool(client, name, args);
  expect(res.isError).toBe(true);
  const body = res.structuredContent as { error: { code: string; message: string; details?: unknown } };
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(body.error.message).toEqual(expect.any(String));
  expect(await graphCounts(t)).toEqual(before);
  return body.error;
}

describe('MCP over the in-process app', () => {
  it('lists the tools with object input schemas', async () => {
    const client = await connect(ws.readToken);
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of ['doco_capture', 'doco_changeset', 'doco_relate', 'doco_get']) expect(names).toContain(name);
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.description, tool.name).toEqual(expect.any(String));
    }
    const capture = tools.find((tool) => tool.name === 'doco_capture')!;
    expect(Object.keys(capture.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['collection', 'node_type', 'title', 'prose', 'body', 'lifecycle']),
    );
    expect(capture.inputSchema.required).toEqual(expect.arrayContaining(['collection', 'node_type']));
    const changeset = tools.find((tool) => tool.name === 'doco_changeset')!;
    expect(changeset.inputSchema.required).toContain('operations');
    expect(tools.find((tool) => tool.name === 'doco_get')!.inputSchema.required).toEqual(['id']);
  });

  it('capture, relate, supersede by changeset, then doco_get shows the history', async () => {
    const client = await connect(ws.writeToken);
    const rule = await ok(client, 'doco_capture', {
      collection: 'constitution',
      node_type: 'rule',
      title: 'Every service exposes /healthz',
      prose: 'Each service answers GET /healthz without a token.',
    });
    expect(rule.node.id).toMatch(/^rule_[0-9A-Z]{26}$/);
    expect(rule.version).toBe(1);
    expect(rule.changeset_id).toMatch(/^changeset_/);
    expect(rule.verdicts).toContainEqual(expect.objectContaining({ policy: 'allowed-types', outcome: 'pass' }));
    // Verdicts of a successful write name the record by its new id.
    expect(rule.verdicts.map((v: { target: string }) => v.target)).toEqual(rule.verdicts.map(() => rule.node.id));

    const adr = await ok(client, 'doco_capture', {
      collection: 'arch',
      node_type: 'decision',
      prose: 'Health checks are plain HTTP.',
      body: { question: 'How do we check health?' },
    });
    const rel = await ok(client, 'doco_relate', { from: adr.node.id, to: rule.node.id, edge_type: 'constrained_by' });
    expect(rel.edge).toMatchObject({ edge_type: 'constrained_by', from: adr.node.id, to: rule.node.id, lifecycle: 'active' });

    const sup = await ok(client, 'doco_changeset', {
      collection: 'arch',
      operations: [
        {
          op: 'supersede',
          target: adr.node.id,
          alias: 'next',
          node_type: 'decision',
          prose: 'Health checks are plain HTTP, and /readyz checks the database.',
          body: { question: 'How do we check health?' },
        },
      ],
    });
    const newId = sup.aliases.next as string;
    expect(newId).toMatch(/^decision_/);

    const old = await ok(client, 'doco_get', { id: adr.node.id });
    expect(old.node).toMatchObject({ id: adr.node.id, lifecycle: 'retired', version: 2 });
    expect(old.versions.map((v: { version: number; lifecycle: string }) => [v.version, v.lifecycle])).toEqual([
      [1, 'active'],
      [2, 'retired'],
    ]);
    expect(old.versions[1].prev_hash).toBe(old.versions[0].hash);
    expect(old.versions[0].source).toBe('mcp');
    expect(old.versions[1].changeset_id).toBe(sup.changeset_id);
    expect(old.edges).toContainEqual(expect.objectContaining({ edge_type: 'replaces', from: newId, to: adr.node.id, lifecycle: 'active' }));
    expect(old.edges).toContainEqual(expect.objectContaining({ edge_type: 'constrained_by', lifecycle: 'retired' }));

    const next = await ok(client, 'doco_get', { id: newId });
    expect(next.node).toMatchObject({ lifecycle: 'active', version: 1 });
  });

  it('an invalid call is an error result with validation_failed and writes nothing', async () => {
    const client = await connect(ws.writeToken);
    const err = await failsWith(client, 'doco_capture', { collection: 'constitution', node_type: 'memo', prose: 'x' }, 'validation_failed');
    expect(err.details).toMatchObject({ issues: [{ path: 'node_type' }] });
    await failsWith(
      client,
      'doco_changeset',
      {
        collection: 'arch',
        operations: [
          { op: 'create', alias: 'a', node_type: 'idea', prose: 'x' },
          { op: 'relate', from: '$a', to: '$b', edge_type: 'supports' },
        ],
      },
      'validation_failed',
    );
    await failsWith(client, 'doco_capture', { collection: 'arch', node_type: 'decision', prose: 'No question.' }, 'policy_blocked');
    await failsWith(client, 'doco_get', { id: 'not-an-id' }, 'validation_failed');
    await failsWith(client, 'doco_get', { id: 'rule_01ARZ3NDEKTSV4RRFFQ69G5FAV' }, 'not_found');
    // A version past what a record can hold is refused as REST's ?before= is, not sent to Postgres (it answered `internal`).
    for (const before of [1e300, 2 ** 31, 1_000_000_000])
      await failsWith(client, 'doco_get', { id: 'rule_01ARZ3NDEKTSV4RRFFQ69G5FAV', before }, 'validation_failed');
  });

  it('an unknown tool is an error result', async () => {
    const client = await connect(ws.writeToken);
    await failsWith(client, 'doco_delete_everything', {}, 'not_found');
  });

  it('a read token can doco_get but gets forbidden on every write tool', async () => {
    const writer = await connect(ws.writeToken);
    const rule = await ok(writer, 'doco_capture', { collection: 'constitution', node_type: 'rule', prose: 'Readers read.' });
    const reader = await connect(ws.readToken);
    expect((await ok(reader, 'doco_get', { id: rule.node.id })).node.id).toBe(rule.node.id);
    await failsWith(reader, 'doco_capture', { collection: 'constitution', node_type: 'rule', prose: 'Readers cannot write.' }, 'forbidden');
    await failsWith(reader, 'doco_relate', { from: rule.node.id, to: ws.principalId, edge_type: 'attributed_to' }, 'forbidden');
    await failsWith(reader, 'doco_changeset', { operations: [{ op: 'retire', target: rule.node.id }] }, 'forbidden');
  });

  it("a token of another workspace cannot read this workspace's record", async () => {
    const writer = await connect(ws.writeToken);
    const rule = await ok(writer, 'doco_capture', {
      collection: 'constitution',
      node_type: 'rule',
      prose: 'Only mcp workspace sees this.',
    });
    const other = await makeWorkspace(t, 'mcp-other');
    const stranger = await connect(other.writeToken);
    const err = await failsWith(stranger, 'doco_get', { id: rule.node.id }, 'not_found');
    expect(JSON.stringify(err)).not.toContain('Only mcp workspace sees this.');
    await failsWith(stranger, 'doco_changeset', { operations: [{ op: 'retire', target: rule.node.id }] }, 'not_found');
  });

  it('without a token (or with a bogus one) the connection fails with 401', async () => {
    await expect(connect(undefined)).rejects.toThrow(/401|unauthorized/i);
    await expect(connect('doco_bogus')).rejects.toThrow(/401|unauthorized/i);
    // The raw answer is our error shape.
    const res = await api.app.request('/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe('unauthorized');
  });
});

describe('MCP over a real HTTP socket', () => {
  let server: ServerType;
  let url: string;

  beforeAll(async () => {
    await new Promise<void>((resolve) => {
      server = serve({ fetch: api.app.fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) => {
        url = `http://127.0.0.1:${info.port}/mcp`;
        resolve();
      });
    });
  });
  afterAll(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
  });

  it('lists tools, captures and reads back over TCP', async () => {
    const client = await connect(ws.writeToken, url);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('doco_capture');
    const idea = await ok(client, 'doco_capture', { collection: 'arch', node_type: 'idea', prose: 'Sent over a real socket.' });
    const got = await ok(client, 'doco_get', { id: idea.node.id });
    expect(got.node.prose).toBe('Sent over a real socket.');
    expect(got.versions).toHaveLength(1);
    await expect(connect(undefined, url)).rejects.toThrow(/401|unauthorized/i);
  });
});
