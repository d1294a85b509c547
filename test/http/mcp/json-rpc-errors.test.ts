// MCP requests malformed at the JSON-RPC level, sent raw (the SDK client never sends them): the
// params of a known method that do not fit it answer -32602 (Invalid params), an unknown method
// -32601, and none of them writes anything or answers -32603 (Internal error), which says the
// server failed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { graphCounts, makeApp, makeWorkspace, type TestWorkspace } from '../../helpers/app.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'mcp-rpc');
  api = makeApp(t);
});
afterAll(async () => t.drop());

async function post(body: string, method = 'POST'): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await api.app.request('/mcp', {
    method,
    headers: {
      authorization: `Bearer ${ws.writeToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    ...(method === 'POST' ? { body } : {}),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

async function rpc(method: string, params: unknown): Promise<{ status: number; body: any }> {
  const res = await api.app.request('/mcp', {
    method: 'POST',
    headers: {
      authorization: `Bearer ${ws.writeToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, ...(params === undefined ? {} : { params }) }),
  });
  return { status: res.status, body: await res.json() };
}

describe('MCP JSON-RPC errors', () => {
  it.each([
    ['tools/call', { arguments: {} }, /name/],
    ['tools/call', { name: 42 }, /name/],
    ['tools/call', { name: 'doco_capture', arguments: 'not an object' }, /arguments/],

    ['tools/list', { cursor: 5 }, /cursor/],
    ['initialize', { protocolVersion: 5, capabilities: {}, clientInfo: { name: 'x', version: '1' } }, /protocolVersion/],
  ])('%s with params %j answers -32602 naming what is wrong, and writes nothing', async (method, params, names) => {
    const before = await graphCounts(t);
    const { status, body } = await rpc(method, params);
    expect(status).toBe(200);
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).toMatch(names);
    expect(body.error.message).toMatch(/^Invalid params: [^\n]+$/);
    expect(await graphCounts(t)).toEqual(before);
  });

  it('params that are neither an object nor an array are no JSON-RPC request: 400, nothing written', async () => {
    const before = await graphCounts(t);
    const { status, body } = await rpc('tools/call', 'doco_capture');
    expect(status).toBe(400);
    expect(body.error.code).toBeLessThan(-32000);
    expect(await graphCounts(t)).toEqual(before);
  });

  it('a batch is refused whole, before any of it runs: 400, -32600, nothing written', async () => {
    const before = await graphCounts(t);
    const call = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'doco_capture', arguments: { collection: 'constitution', node_type: 'rule', title: `Batched ${id}`, prose: 'x' } },
    });
    for (const batch of [[call(1), call(2)], [call(3)], []]) {
      const { status, body } = await post(JSON.stringify(batch));
      expect(status).toBe(400);
      expect(body.error.code).toBe(-32600);
      expect(body.error.message).toMatch(/batch is not accepted/);
    }
    expect(await graphCounts(t)).toEqual(before);
  });

  it('JSON that is no JSON-RPC message is an invalid request (-32600), text that is no JSON a parse error (-32700)', async () => {
    for (const text of ['{}', '42', '{"jsonrpc":"1.0","id":1,"method":"tools/list"}', '{"jsonrpc":"2.0","id":{},"method":"tools/list"}']) {
      const { status, body } = await post(text);
      expect(status, text).toBe(400);
      expect(body.error.code, text).toBe(-32600);
    }
    const { status, body } = await post('{"jsonrpc":');
    expect(status).toBe(400);
    expect(body.error.code).toBe(-32700);
  });

  it('a __proto__ field or a NUL anywhere in a call is refused as the REST API refuses it (-32602), nothing written', async () => {
    const before = await graphCounts(t);
    const args = (extra: string) =>
      `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"doco_capture","arguments":{"collection":"constitution","node_type":"rule","title":"Sneaky","prose":"x"${extra}}}}`;
    const proto = await post(args(',"__proto__":{"lifecycle":"active"}'));
    expect(proto.status).toBe(200);
    expect(proto.body).toMatchObject({ id: 9, error: { code: -32602 } });
    expect(proto.body.error.message).toBe('Invalid params: params.arguments.__proto__ is a field name (__proto__) that cannot be stored');
    const nul = await post(args(',"body":{"note":"a\\u0000b"}'));
    expect(nul.body.error).toEqual({
      code: -32602,
      message: 'Invalid params: params.arguments.body.note must not contain a NUL character (\\u0000)',
    });
    expect(await graphCounts(t)).toEqual(before);
  });

  it('GET and DELETE answer 405 naming POST (no event stream, no session)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const { status, headers, body } = await post('', method);
      expect(status).toBe(405);
      expect(headers.get('allow')).toBe('POST');
      expect(body.error.message).toMatch(/stateless: POST one JSON-RPC message/);
    }
  });

  it('an unknown method answers -32601', async () => {
    const { body } = await rpc('tools/destroy', {});
    expect(body.error.code).toBe(-32601);
  });

  it('a well-formed call still answers its result', async () => {
    const { body } = await rpc('tools/list', {});
    expect(body.error).toBeUndefined();
    expect(body.result.tools.map((tool: { name: string }) => tool.name)).toContain('doco_brief');
  });
});
