import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../../helpers/app.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'acme');
  api = makeApp(t);
  const res = await api.call('POST', '/api/v1/collections', ws.writeToken, {
    slug: 'acme-product-decisions',
    template: 'product-decisions',
    goal: 'How billing works',
  });
  expect(res.status).toBe(201);
});
afterAll(async () => t.drop());

describe('REST write path', () => {
  it('captures, relates, supersedes and reads history', async () => {
    const rule = await api.call('POST', '/api/v1/capture', ws.writeToken, {
      collection: 'constitution',
      node_type: 'rule',
      title: 'Refunds over $500 need an owner approval',
      prose: 'Any refund over $500 needs the approval of an account owner.',
    });
    expect(rule.status).toBe(201);
    expect(rule.body.node.id).toMatch(/^rule_[0-9A-Z]{26}$/);
    expect(rule.body.version).toBe(1);
    expect(rule.body.changeset_id).toMatch(/^changeset_/);

    const decision = await api.call('POST', '/api/v1/capture', ws.writeToken, {
      collection: 'acme-product-decisions',
      node_type: 'decision',
      body: {
        prose: 'Refunds go back to the card that paid, never as store credit. See app/routes/billing.tsx.',
        question: 'How do customers get their money back?',
      },
    });
    expect(decision.status).toBe(201);
    expect(decision.body.node.title).toBe('Refunds go back to the card that paid, never as store credit.');
    expect(decision.body.node.body).toEqual({ question: 'How do customers get their money back?' });

    // What a write answers is the record as a later read sees it.
    const read = await api.call('GET', `/api/v1/nodes/${decision.body.node.id}`, ws.readToken);
    expect(decision.body.node).toEqual(read.body.node);

    const rel = await api.call('POST', '/api/v1/relate', ws.writeToken, {
      from: decision.body.node.id,
      to: rule.body.node.id,
      edge_type: 'constrained_by',
    });
    expect(rel.status).toBe(201);
    expect(rel.body.edge.edge_type).toBe('constrained_by');
    const ruleEdges = (await api.call('GET', `/api/v1/nodes/${rule.body.node.id}`, ws.readToken)).body.edges as { id: string }[];
    expect(ruleEdges.find((e) => e.id === rel.body.edge.id)).toEqual(rel.body.edge);

    const sup = await api.call('POST', '/api/v1/changeset', ws.writeToken, {
      collection: 'acme-product-decisions',
      operations: [
        {
          op: 'supersede',
          target: decision.body.node.id,
          node_type: 'decision',
          alias: 'next',
          body: { prose: 'Refunds, partial ones included, go back to the card that paid.' },
        },
      ],
    });
    expect(sup.status).toBe(201);
    const newId = sup.body.aliases.next;
    const old = await api.call('GET', `/api/v1/nodes/${decision.body.node.id}`, ws.readToken);
    expect(old.body.node.lifecycle).toBe('retired');
    expect(old.body.node.version).toBe(2);
    const edges = old.body.edges as { edge_type: string; lifecycle: string; from: string }[];
    expect(edges.find((e) => e.edge_type === 'constrained_by')?.lifecycle).toBe('retired');
    expect(edges.find((e) => e.edge_type === 'replaces')).toMatchObject({ lifecycle: 'active', from: newId });

    const versions = await api.call('GET', `/api/v1/nodes/${decision.body.node.id}/versions`, ws.readToken);
    expect(versions.body.versions.map((v: { lifecycle: string }) => v.lifecycle)).toEqual(['active', 'retired']);
    expect(versions.body.versions[1].prev_hash).toBe(versions.body.versions[0].hash);
    const v1 = await api.call('GET', `/api/v1/nodes/${decision.body.node.id}/versions/1`, ws.readToken);
    expect(v1.body.version.lifecycle).toBe('active');

    const touches = await t.sql`select kind, value from doco.touches where node_id = ${decision.body.node.id}`;
    expect(touches).toContainEqual({ kind: 'path', value: 'app/routes/billing.tsx' });
  });

  it('a move naming a version past what Postgres holds is a 400 naming it, not a 500, and changes nothing', async () => {
    const rule = await api.call('POST', '/api/v1/capture', ws.writeToken, {
      collection: 'constitution',
      node_type: 'rule',
      title: 'Ledger entries are never edited',
      prose: 'A ledger entry is written once.',
    });
    expect(rule.status).toBe(201);
    for (const version of [2147483648, 1e300]) {
      const res = await api.call('POST', '/api/v1/changeset', ws.writeToken, {
        operations: [{ op: 'retire', target: rule.body.node.id, version }],
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(JSON.stringify(res.body.error)).toMatch(/at most 2147483647/);
    }
    const after = await api.call('GET', `/api/v1/nodes/${rule.body.node.id}`, ws.readToken);
    expect(after.body.node.lifecycle).toBe('active');
  });
});
