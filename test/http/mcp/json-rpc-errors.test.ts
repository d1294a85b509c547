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
