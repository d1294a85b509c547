// A record's history and its edges are read a page at a time on REST, MCP and the console: each version carries
// the whole text and body (up to 256 KiB), so a record an agent rewrote a thousand times made one
// unpaged read answer 249 MB (REST) and 500 MB (doco_get) and stall the server for seconds (a
// hostile review). The newest 20 by default, at most 100; `before` reads older ones; bad paging
// input is a 400 that changes nothing.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApp, makeWorkspace, graphCounts, type TestWorkspace } from '../helpers/app.js';
import { signedIn, textOf, type ConsoleClient } from '../helpers/console.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { callTool, callToolOk, connectMcp } from '../helpers/mcp.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
let id: string;
let mcp: Client;
let consoleClient: ConsoleClient;
const VERSIONS = 25;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'history');
  api = makeApp(t);
  const captured = await api.call('POST', '/api/v1/capture', ws.writeToken, {
    collection: 'constitution',
    node_type: 'rule',
    title: 'Refunds go back to the card',
    prose: 'Edit 1.',
  });
  expect(captured.status).toBe(201);
  id = captured.body.node.id;
  for (let n = 2; n <= VERSIONS; n++) await t.sql`update doco.nodes set prose = ${`Edit ${n}.`} where id = ${id}`;
  mcp = await connectMcp(api.app, ws.readToken);
  consoleClient = await signedIn(t, api.app, ws, 'read');
});
afterAll(async () => {
  await mcp.close();
  await t.drop();
});

const numbers = (versions: { version: number }[]) => versions.map((v) => v.version);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('REST GET /nodes/:id/versions', () => {
  it('answers the newest 20, oldest first, with the count and the `before` that reads the rest', async () => {
    const first = await api.call('GET', `/api/v1/nodes/${id}/versions`, ws.readToken);
    expect(first.status).toBe(200);
    expect(numbers(first.body.versions)).toEqual(range(6, 25));
    expect(first.body).toMatchObject({ version_count: VERSIONS, before: 6 });
    expect(first.body.versions.at(-1).prose).toBe('Edit 25.');
    const older = await api.call('GET', `/api/v1/nodes/${id}/versions?before=6`, ws.readToken);
    expect(numbers(older.body.versions)).toEqual(range(1, 5));
    expect(older.body.before).toBeNull();
    const few = await api.call('GET', `/api/v1/nodes/${id}/versions?limit=3&before=10`, ws.readToken);
    expect(numbers(few.body.versions)).toEqual([7, 8, 9]);
    expect(few.body.before).toBe(7);
    const most = await api.call('GET', `/api/v1/nodes/${id}/versions?limit=100`, ws.readToken);
    expect(numbers(most.body.versions)).toEqual(range(1, 25));
    expect(most.body.before).toBeNull();
  });

  it('stops a page once its text passes 2 MiB, always holding one version, the cursor reading on', async () => {
    const big = await api.call('POST', '/api/v1/capture', ws.writeToken, {
      collection: 'constitution',
      node_type: 'rule',
      title: 'A rule with a long body',
      prose: 'v1',
    });
    const bigId = big.body.node.id as string;
    // Nine more versions with bodies of 600,000 characters (written behind the API's own body limit): three fit in 2 MiB.
    for (let n = 2; n <= 10; n++)
      await t.sql`update doco.nodes set prose = ${`v${n}`}, body = ${t.sql.json({ note: 'x'.repeat(600_000) })} where id = ${bigId}`;
    const page = await api.call('GET', `/api/v1/nodes/${bigId}/versions?limit=100`, ws.readToken);
    expect(numbers(page.body.versions)).toEqual([8, 9, 10]);
    expect(page.body).toMatchObject({ version_count: 10, before: 8 });
    const next = await api.call('GET', `/api/v1/nodes/${bigId}/versions?limit=100&before=8`, ws.readToken);
    expect(numbers(next.body.versions)).toEqual([5, 6, 7]);
    const seen = [...numbers(page.body.versions)];
    let before: number | null = 8;
    while (before !== null) {
      const more = await api.call('GET', `/api/v1/nodes/${bigId}/versions?limit=100&before=${before}`, ws.readToken);
      seen.unshift(...numbers(more.body.versions));
      before = more.body.before;
    }
    expect(seen).toEqual(range(1, 10));
    // A page of one, asked for, holds one.
    const one = await api.call('GET', `/api/v1/nodes/${bigId}/versions?limit=1`, ws.readToken);
    expect(numbers(one.body.versions)).toEqual([10]);
  });

  it('refuses a limit outside 1–100, a before that is no version number and any other parameter, changing nothing', async () => {
    const before = await graphCounts(t);
    for (const query of ['limit=0', 'limit=101', 'limit=abc', 'limit=1e2', 'before=0', 'before=-1', 'before=x', 'page=2']) {
      const res = await api.call('GET', `/api/v1/nodes/${id}/versions?${query}`, ws.readToken);
      expect(res, query).toMatchObject({ status: 400, body: { error: { code: 'validation_failed' } } });
    }
    expect(await graphCounts(t)).toEqual(before);
  });
});

describe('MCP doco_get', () => {
  it('returns the record with its newest 20 versions, and older ones through limit and before', async () => {
    const got = await callToolOk(mcp, 'doco_get', { id });
    expect(got.node.id).toBe(id);
    expect(numbers(got.versions)).toEqual(range(6, 25));
    expect(got).toMatchObject({ version_count: VERSIONS, before: 6 });
    const older = await callToolOk(mcp, 'doco_get', { id, limit: 2, before: 3 });
    expect(numbers(older.versions)).toEqual([1, 2]);
    expect(older.before).toBeNull();
  });

  it('refuses a limit past 100 or below 1, and a before that is not a whole number above 0', async () => {
    for (const args of [{ limit: 101 }, { limit: 0 }, { limit: 2.5 }, { before: 0 }, { before: '3' }]) {
      const res = await callTool(mcp, 'doco_get', { id, ...args });
      expect(res.isError, JSON.stringify(args)).toBe(true);
      expect((res.structuredContent as { error: { code: string } }).error.code).toBe('validation_failed');
    }
  });
});

describe("a record's edges", () => {
  let hub: string;
  let edges: string[];
  beforeAll(async () => {
    hub = (
      await api.call('POST', '/api/v1/capture', ws.writeToken, {
        collection: 'constitution',
        node_type: 'rule',
        title: 'Hub',
        prose: 'A hub.',
      })
    ).body.node.id;
    edges = [];
    for (let i = 0; i < 7; i++) {
      const other = (
        await api.call('POST', '/api/v1/capture', ws.writeToken, {
          collection: 'constitution',
          node_type: 'rule',
          title: `Spoke ${i}`,
          prose: `Spoke ${i}.`,
        })
      ).body.node.id;
      const rel = await api.call(
        'POST',
        '/api/v1/relate',
        ws.writeToken,
        i % 2 ? { from: hub, to: other, edge_type: 'relates_to' } : { from: other, to: hub, edge_type: 'supports' },
      );
      expect(rel.status).toBe(201);
      edges.push(rel.body.edge.id);
    }
  });

  it('REST answers them in the order they were made, a page at a time, with the count and the cursor', async () => {
    const all = await api.call('GET', `/api/v1/nodes/${hub}`, ws.readToken);
    expect(all.body.edges.map((e: { id: string }) => e.id)).toEqual(edges);
    expect(all.body).toMatchObject({ edge_count: 7, edges_after: null });
    const first = await api.call('GET', `/api/v1/nodes/${hub}?edges_limit=3`, ws.readToken);
    expect(first.body.edges.map((e: { id: string }) => e.id)).toEqual(edges.slice(0, 3));
    expect(first.body).toMatchObject({ edge_count: 7, edges_after: edges[2] });
    const next = await api.call('GET', `/api/v1/nodes/${hub}?edges_limit=3&edges_after=${edges[2]}`, ws.readToken);
    expect(next.body.edges.map((e: { id: string }) => e.id)).toEqual(edges.slice(3, 6));
    const last = await api.call('GET', `/api/v1/nodes/${hub}?edges_limit=3&edges_after=${edges[5]}`, ws.readToken);
    expect(last.body.edges.map((e: { id: string }) => e.id)).toEqual(edges.slice(6));
    expect(last.body.edges_after).toBeNull();
    for (const query of [
      'edges_limit=0',
      'edges_limit=501',
      'edges_limit=x',
      'edges_after=rule_01K8Z3QH4N7W2X5Y6Z7A8B9C0D',
      'edges_after=x',
      'limit=3',
    ]) {
      const res = await api.call('GET', `/api/v1/nodes/${hub}?${query}`, ws.readToken);
      expect(res, query).toMatchObject({ status: 400, body: { error: { code: 'validation_failed' } } });
    }
  });

  it('doco_get pages them the same way', async () => {
    const got = await callToolOk(mcp, 'doco_get', { id: hub, edges_limit: 2, edges_after: edges[3] });
    expect(got.edges.map((e: { id: string }) => e.id)).toEqual(edges.slice(4, 6));
    expect(got).toMatchObject({ edge_count: 7, edges_after: edges[5] });
    const res = await callTool(mcp, 'doco_get', { id: hub, edges_limit: 501 });
    expect(res.isError).toBe(true);
  });

  it('the console shows the first 500 and says how many there are', async () => {
    await t.sql`
      insert into doco.edges (id, workspace_id, from_id, to_id, edge_type)
      select doco.new_id('edge'), ${ws.id}, ${hub}, n.id, 'relates_to' from doco.nodes n
       where n.workspace_id = ${ws.id} and n.node_type = 'principal' is not true and n.id <> ${hub}
         and not exists (select 1 from doco.edges e where e.from_id = ${hub} and e.to_id = n.id)`;
    const { n } = (await t.sql<{ n: number }[]>`select count(*)::int as n from doco.edges where from_id = ${hub} or to_id = ${hub}`)[0]!;
    for (let i = n; i <= 500; i++) {
      const spoke = await t.sql<{ id: string }[]>`
        insert into doco.nodes (id, workspace_id, collection_id, node_type, title, prose)
        select doco.new_id('rule'), ${ws.id}, c.id, 'rule', ${`Extra ${i}`}, 'Extra.' from doco.collections c
         where c.workspace_id = ${ws.id} and c.slug = 'constitution' returning id`;
      await t.sql`insert into doco.edges (id, workspace_id, from_id, to_id, edge_type) values (doco.new_id('edge'), ${ws.id}, ${hub}, ${spoke[0]!.id}, 'relates_to')`;
    }
    const { total } = (
      await t.sql<{ total: number }[]>`select count(*)::int as total from doco.edges where from_id = ${hub} or to_id = ${hub}`
    )[0]!;
    expect(total).toBeGreaterThan(500);
    const page = await consoleClient.get(`/records/${hub}`);
    expect(page.status).toBe(200);
    expect(textOf(page.html)).toContain(`The first 500 of ${total} links`);
  });
});

describe('the console record page', () => {
  it('shows the newest hundred versions at most, and links the older ones', async () => {
    for (let n = VERSIONS + 1; n <= 105; n++) await t.sql`update doco.nodes set prose = ${`Edit ${n}.`} where id = ${id}`;
    const page = await consoleClient.get(`/records/${id}`);
    expect(page.status).toBe(200);
    const text = textOf(page.html);
    expect(text).toContain('History (105 versions, v6–v105 shown)');
    expect(text).toContain('105 version hashes recomputed now');
    expect(page.html).toContain(`href="/records/${id}?before=6#history"`);
    // v6 shows what it changed from v5, which is not on the page.
    expect(page.html).toMatch(/id="v6"[\s\S]*?Edit <del>5\.<\/del><ins>6\.<\/ins>/);
    expect(page.html).not.toContain('id="v5"');
    const older = await consoleClient.get(`/records/${id}?before=6`);
    const olderText = textOf(older.html);
    expect(olderText).toContain('History (105 versions, v1–v5 shown)');
    expect(older.html).toContain('id="v1"');
    expect(older.html).not.toContain('id="v6"');
    expect(older.html).toContain(`href="/records/${id}#history"`);
    expect(older.html).not.toContain('?before=');
  });

  it('answers a bad before with 400', async () => {
    expect((await consoleClient.get(`/records/${id}?before=zero`)).status).toBe(400);
  });
});
