// A relation an agent proposes waits for a person (sql/agent_review.sql), and a person can now
// approve or reject it: activate, queue and retire take an edge's id (src/graph/plan-changeset.ts),
// so an agent's `relate` between two records already in force is not left pending for ever
// (the console's review queue lists it: test/http/console/review-edges.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApp, makeWorkspace, type TestWorkspace } from '../../helpers/app.js';
import { createTestDb, type TestDb } from '../../helpers/db.js';

let t: TestDb;
let ws: TestWorkspace;
let other: TestWorkspace;
let http: ReturnType<typeof makeApp>;
let agentToken: string;
let a: string;
let b: string;
let c: string;

const capture = async (token: string, title: string) => {
  const res = await http.call('POST', '/api/v1/capture', token, {
    collection: 'notes',
    node_type: 'decision',
    title,
    prose: `${title}, as decided by the team.`,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.node as { id: string; lifecycle: string };
};
const changeset = (token: string, operations: unknown[]) => http.call('POST', '/api/v1/changeset', token, { operations });
const relate = async (token: string, from: string, to: string, edge_type = 'supports') => {
  const res = await changeset(token, [{ op: 'relate', from, to, edge_type }]);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.edges[0] as { id: string; lifecycle: string };
};
const edgeRow = async (id: string) =>
  (await t.sql<{ lifecycle: string; version: number }[]>`select lifecycle, version from doco.edges where id = ${id}`)[0]!;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'edge-review');
  other = await makeWorkspace(t, 'edge-review-other');
  http = makeApp(t);
  const notes = await http.call('POST', '/api/v1/collections', ws.writeToken, {
    slug: 'notes',
    template: 'product-decisions',
    goal: 'Why.',
  });
  expect(notes.status, JSON.stringify(notes.body)).toBe(201);
  const minted = await http.call('POST', '/api/v1/hooks/tokens', ws.writeToken, { agent: 'codex', checkout: 'shop' });
  expect(minted.status, JSON.stringify(minted.body)).toBe(201);
  agentToken = minted.body.mcp_token;
  a = (await capture(ws.writeToken, 'Invoices are numbered per year')).id;
  b = (await capture(ws.writeToken, 'Refunds need a second approver')).id;
  c = (await capture(ws.writeToken, 'Payouts settle on Fridays')).id;
});
afterAll(async () => t.drop());

describe('an agent’s relation, reviewed by a person', () => {
  it('waits for review, and the agent cannot approve it itself', async () => {
    const edge = await relate(agentToken, a, b);
    expect(edge.lifecycle).toBe('queued');
    const self = await changeset(agentToken, [{ op: 'activate', target: edge.id }]);
    expect(self.status, JSON.stringify(self.body)).toBe(403);
    expect(self.body.error.code).toBe('forbidden');
    expect((await edgeRow(edge.id)).lifecycle).toBe('queued');
  });

  it('a person approves it: active, a new version, reported as an edge', async () => {
    const edge = await relate(agentToken, b, c);
    const approved = await changeset(ws.writeToken, [{ op: 'activate', target: edge.id }]);
    expect(approved.status, JSON.stringify(approved.body)).toBe(201);
    expect(approved.body.results).toEqual([{ op: 'activate', id: edge.id, kind: 'edge' }]);
    expect(approved.body.nodes).toEqual([]);
    expect(approved.body.edges).toMatchObject([{ id: edge.id, lifecycle: 'active', from: b, to: c, version: 2 }]);
    expect(await edgeRow(edge.id)).toEqual({ lifecycle: 'active', version: 2 });
    const [version] = await t.sql<{ lifecycle: string; changeset_id: string }[]>`
      select lifecycle, changeset_id from doco.edge_versions where edge_id = ${edge.id} and version = 2`;
    expect(version).toEqual({ lifecycle: 'active', changeset_id: approved.body.changeset_id });
    // The graph a brief hops over now holds it.
    const node = await http.call('GET', `/api/v1/nodes/${b}`, ws.readToken);
    expect(JSON.stringify(node.body)).toContain(edge.id);
  });

  it('a person rejects one (retired, final); the agent may withdraw its own', async () => {
    const rejected = await relate(agentToken, c, a);
    const res = await changeset(ws.writeToken, [{ op: 'retire', target: rejected.id }]);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // Retired by its own id: not an edge a record's retirement took with it.
    expect(res.body.retired_edges).toBeUndefined();
    expect(res.body.edges).toMatchObject([{ id: rejected.id, lifecycle: 'retired' }]);
    expect((await edgeRow(rejected.id)).lifecycle).toBe('retired');
    const again = await changeset(ws.writeToken, [{ op: 'activate', target: rejected.id }]);
    expect(again.status, JSON.stringify(again.body)).toBe(409);
    expect(again.body.error.code).toBe('lifecycle_violation');
    expect(again.body.error.message).toContain('cannot move back from retired to active');
    const withdrawn = await relate(agentToken, a, c);
    const own = await changeset(agentToken, [{ op: 'retire', target: withdrawn.id }]);
    expect(own.status, JSON.stringify(own.body)).toBe(201);
    expect((await edgeRow(withdrawn.id)).lifecycle).toBe('retired');
  });

  it('an edge needs its records in force to be approved', async () => {
    const draft = await http.call('POST', '/api/v1/changeset', ws.writeToken, {
      collection: 'notes',
      operations: [{ op: 'create', node_type: 'decision', title: 'Draft rule', prose: 'Not decided yet.', lifecycle: 'queued' }],
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(201);
    const edge = await relate(agentToken, a, draft.body.nodes[0].id);
    const res = await changeset(ws.writeToken, [{ op: 'activate', target: edge.id }]);
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body.error.code).toBe('lifecycle_violation');
    expect((await edgeRow(edge.id)).lifecycle).toBe('queued');
  });

  it('a move naming the version read is refused with 409 when the record or relation has another, and made when it has that one', async () => {
    const proposed = await capture(agentToken, 'Invoices go out on the first');
    const edge = await relate(agentToken, a, b, 'relates_to');
    const revise = await changeset(agentToken, [{ op: 'append', target: proposed.id, prose: 'And on the fifteenth.' }]);
    expect(revise.status, JSON.stringify(revise.body)).toBe(201);
    const stale = await changeset(ws.writeToken, [{ op: 'activate', target: proposed.id, version: 1 }]);
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('conflict');
    expect(stale.body.error.message).toContain(`${proposed.id} changed since version 1`);
    const [row] = await t.sql<{ lifecycle: string }[]>`select lifecycle from doco.nodes where id = ${proposed.id}`;
    expect(row!.lifecycle).toBe('queued');
    const now = await changeset(ws.writeToken, [
      { op: 'activate', target: proposed.id, version: 2 },
      { op: 'activate', target: edge.id, version: 1 },
    ]);
    expect(now.status, JSON.stringify(now.body)).toBe(201);
    expect((await edgeRow(edge.id)).lifecycle).toBe('active');
    const bad = await changeset(ws.writeToken, [{ op: 'retire', target: edge.id, version: 0 }]);
    expect(bad.status).toBe(400);
  });

  it('refuses an edge anywhere but a lifecycle move, and one of another workspace, changing nothing', async () => {
    const edge = await relate(agentToken, a, b, 'flows_to');
    const before = await edgeRow(edge.id);
    const cases: [unknown[], number, string, string][] = [
      [[{ op: 'append', target: edge.id, prose: 'More.' }], 400, 'validation_failed', 'only activate, queue and retire take an edge'],
      [[{ op: 'relate', from: edge.id, to: a, edge_type: 'supports' }], 400, 'validation_failed', 'is an edge'],
      [[{ op: 'supersede', target: edge.id, node_type: 'decision', title: 'X', prose: 'Y.' }], 400, 'validation_failed', 'is an edge'],
      [
        [{ op: 'activate', target: 'edge_01K8Z3QH4V6X9M2T7R5B3N8P1D' }],
        404,
        'not_found',
        'edge edge_01K8Z3QH4V6X9M2T7R5B3N8P1D does not exist',
      ],
    ];
    for (const [operations, status, code, message] of cases) {
      const res = await changeset(ws.writeToken, operations);
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.body.error.code).toBe(code);
      expect(res.body.error.message).toContain(message);
    }
    const foreign = await http.call('POST', '/api/v1/changeset', other.writeToken, { operations: [{ op: 'activate', target: edge.id }] });
    expect(foreign.status, JSON.stringify(foreign.body)).toBe(404);
    expect(await edgeRow(edge.id)).toEqual(before);
  });
});
