// Supersede carries over (docs/writes.md), over REST: the replacement keeps the body fields of the
// record it replaces that the operation does not restate, and inherits its touches, which no
// later edit drops; title and prose are the operation's. Then the brief: a touch of the old
// record's file finds the replacement, because it touches that file, and reports no gap for it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../../helpers/app.js';
import { expectError } from '../../helpers/expect-error.js';
import { drainAll, localProviders } from '../../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
const providers = localProviders();

let token = () => ws.writeToken;
const post = (path: string, body: unknown) => api.call('POST', `/api/v1${path}`, token(), body);
const ok = async (path: string, body: unknown) => {
  const res = await post(path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};
const node = async (id: string) => (await api.call('GET', `/api/v1/nodes/${id}`, ws.readToken)).body.node;
const touches = (id: string) => t.sql<{ kind: string; value: string; inherited_from: string | null }[]>`
  select kind, value, inherited_from from doco.touches where node_id = ${id} order by kind, value`;

const QUESTION = 'How do customers get their money back?';
const ALTERNATIVES = [{ option: 'Store credit', rejected_because: 'Customers read it as us keeping their money.' }];
/** The seed's example operation: a supersede that gives only body.prose. */
const SEED_PROSE = 'Refunds, partial ones included, go back to the card that paid.';

/** A decision in the adrs collection, whose template requires body.question, naming the billing route. */
const decision = async () =>
  (
    await ok('/capture', {
      collection: 'acme-adrs',
      node_type: 'decision',
      prose: 'Refunds go back to the card that paid, never as store credit. The refund flow lives in app/routes/billing.tsx.',
      body: { question: QUESTION, alternatives: ALTERNATIVES, owner: 'payments' },
    })
  ).node.id as string;
const supersede = (target: string, op: Record<string, unknown>) =>
  post('/changeset', { collection: 'acme-adrs', operations: [{ op: 'supersede', target, node_type: 'decision', alias: 'next', ...op }] });

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'acme');
  api = makeApp(t, undefined, providers);
  await ok('/collections', { slug: 'acme-adrs', template: 'adrs', goal: 'How the product handles money' });
});
afterAll(async () => t.drop());

describe('supersede carries over the body', () => {
  it("takes the seed's example (only body.prose) on a template that requires body.question", async () => {
    const old = await decision();
    const res = await supersede(old, { body: { prose: SEED_PROSE } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const next = await node(res.body.aliases.next);
    expect(next).toMatchObject({
      title: SEED_PROSE,
      prose: SEED_PROSE,
      body: { question: QUESTION, alternatives: ALTERNATIVES, owner: 'payments' },
    });
    expect(res.body.verdicts).toContainEqual(expect.objectContaining({ policy: 'adr-has-question', outcome: 'pass' }));
    expect((await node(old)).lifecycle).toBe('retired');
  });

  it('uses what the operation restates, and drops a field restated as null', async () => {
    const old = await decision();
    const res = await supersede(old, {
      title: 'Refunds go to the card',
      prose: SEED_PROSE,
      body: { alternatives: [], owner: null, region: 'EU' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await node(res.body.aliases.next)).toMatchObject({
      title: 'Refunds go to the card',
      body: { question: QUESTION, alternatives: [], region: 'EU' },
    });
    expect((await node(res.body.aliases.next)).body).not.toHaveProperty('owner');
  });

  it('carries over from a record created earlier in the same changeset, which it retires', async () => {
    const res = await post('/changeset', {
      collection: 'acme-adrs',
      operations: [
        {
          op: 'create',
          alias: 'first',
          node_type: 'decision',
          prose: 'Refunds go back as store credit.',
          body: { question: QUESTION, owner: 'payments' },
        },
        { op: 'supersede', target: '$first', alias: 'next', node_type: 'decision', prose: SEED_PROSE, body: { region: 'EU' } },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [first, next] = [res.body.aliases.first as string, res.body.aliases.next as string];
    expect(await node(next)).toMatchObject({
      prose: SEED_PROSE,
      lifecycle: 'active',
      body: { question: QUESTION, owner: 'payments', region: 'EU' },
    });
    expect(await node(first)).toMatchObject({ lifecycle: 'retired', changeset_id: res.body.changeset_id });
    const edges = (await api.call('GET', `/api/v1/nodes/${first}`, ws.readToken)).body.edges as {
      edge_type: string;
      from: string;
      lifecycle: string;
    }[];
    expect(edges).toContainEqual(expect.objectContaining({ edge_type: 'replaces', from: next, lifecycle: 'active' }));
  });

  it('refuses a carried-over body over the size limit (400), and writes nothing', async () => {
    const big = 'x'.repeat(150 * 1024);
    const old = (
      await ok('/capture', { collection: 'acme-adrs', node_type: 'decision', prose: 'Big.', body: { question: QUESTION, notes: big } })
    ).node.id;
    const err = expectError(await supersede(old, { prose: 'Bigger.', body: { more: big } }), 400, 'validation_failed');
    expect(err.message).toMatch(/^operations\[0\] \(supersede\): the body carried over .* at most 262144 bytes$/);
    expect((await node(old)).lifecycle).toBe('active');
  });

  it('still blocks a supersede that removes a required field, and writes nothing', async () => {
    const old = await decision();
    const err = expectError(await supersede(old, { body: { prose: SEED_PROSE, question: null } }), 422, 'policy_blocked');
    expect(err.message).toBe('blocked by policy adr-has-question: a decision in acme-adrs needs body.question');
    expect((await node(old)).lifecycle).toBe('active');
  });
});

describe('supersede carries over the touches', () => {
  it('gives the replacement the old touches, kept through later edits, and down a chain', async () => {
    const old = await decision();
    const res = await supersede(old, { body: { prose: SEED_PROSE } });
    const next = res.body.aliases.next as string;
    expect(await touches(next)).toEqual([{ kind: 'path', value: 'app/routes/billing.tsx', inherited_from: old }]);

    // An edit re-extracts the record's own touches and leaves the inherited one alone.
    await ok('/changeset', { operations: [{ op: 'append', target: next, prose: 'Tracked in #212.' }] });
    expect(await touches(next)).toEqual([
      { kind: 'issue', value: '#212', inherited_from: null },
      { kind: 'path', value: 'app/routes/billing.tsx', inherited_from: old },
    ]);
    // A psql edit too (the trigger keeps touches, whoever writes).
    await t.sql`update doco.nodes set prose = 'Refunds go back to the card.', body = body || '{"see": "docs/refunds.md"}' where id = ${next}`;
    expect(await touches(next)).toEqual([
      { kind: 'path', value: 'app/routes/billing.tsx', inherited_from: old },
      { kind: 'path', value: 'docs/refunds.md', inherited_from: null },
    ]);

    // Superseded again: the third record governs all the second did, inherited or its own.
    const third = (await supersede(next, { body: { prose: 'Refunds go back to the card, within 30 days.' } })).body.aliases.next as string;
    expect(await touches(third)).toEqual([
      { kind: 'path', value: 'app/routes/billing.tsx', inherited_from: next },
      { kind: 'path', value: 'docs/refunds.md', inherited_from: next },
    ]);
  });
});

describe('the edges a supersede does not carry', () => {
  it("lists the old record's retired edges in the response, and says when nothing else was retired", async () => {
    const rule = (
      await ok('/capture', {
        collection: 'constitution',
        node_type: 'rule',
        title: 'Refunds over 500 EUR need an owner',
        prose: 'Any refund over 500 EUR must be approved by an account owner.',
      })
    ).node.id as string;
    const old = await decision();
    const edge = (await ok('/relate', { from: old, to: rule, edge_type: 'constrained_by' })).edge.id as string;
    const res = await supersede(old, { body: { prose: SEED_PROSE } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.retired_edges).toEqual([{ id: edge, edge_type: 'constrained_by', from: old, to: rule }]);
    // Superseding the replacement retires its own replaces edge (to the first record) with it; the
    // new one's replaces edge to it stays live.
    const next = res.body.aliases.next as string;
    const again = await supersede(next, { body: { prose: 'Refunds go back to the card, always.' } });
    expect(again.body.retired_edges).toEqual([expect.objectContaining({ edge_type: 'replaces', from: next, to: old })]);
    const capture = await ok('/capture', {
      collection: 'constitution',
      node_type: 'rule',
      title: 'Invoices are immutable once sent',
      prose: 'An invoice must never change once it is sent.',
    });
    expect(capture).not.toHaveProperty('retired_edges');
  });
});

describe('the brief after a supersede', () => {
  it('finds the replacement by the touched file, says so, and reports no billing gap', async () => {
    // A workspace of its own: nothing else in it names billing.
    const fresh = await makeWorkspace(t, 'fresh');
    token = () => fresh.writeToken;
    await ok('/collections', { slug: 'acme-adrs', template: 'adrs', goal: 'How the product handles money' });
    const old = await decision();
    const next = (await supersede(old, { body: { prose: SEED_PROSE } })).body.aliases.next as string;
    await drainAll(t.sql, providers);
    const res = await api.call('POST', '/api/v1/brief', fresh.readToken, {
      about: 'Add partial refunds to the billing page',
      touching: ['app/routes/billing.tsx'],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const items = Object.values(res.body.tiers as Record<string, { id: string; because: string }[]>).flat();
    expect(items.map((i) => i.id)).not.toContain(old);
    expect(res.body.tiers.already_decided.find((i: { id: string }) => i.id === next)).toMatchObject({
      because: 'touches app/routes/billing.tsx',
    });
    expect((res.body.gaps as string[]).filter((g) => g.includes('billing'))).toEqual([]);
  });
});
