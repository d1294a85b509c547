// The seed's refund scenario, end to end over REST on the embedded defaults: the $500 rule
// must be obeyed, the card-refund decision is already decided because it touches
// app/routes/billing.tsx, #212 is in motion, "partial refunds" is a gap; after the seed's
// supersede the brief shows the new decision, by the file it inherited, and not the retired one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { drainAll, localProviders } from '../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
const providers = localProviders();
const ids: Record<string, string> = {};

const post = async (path: string, body: unknown) => {
  const res = await api.call('POST', `/api/v1${path}`, ws.writeToken, body);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body;
};
const brief = async () => {
  const res = await api.call('POST', '/api/v1/brief', ws.readToken, {
    about: 'Add partial refunds to the billing page',
    touching: ['app/routes/billing.tsx', '#212'],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const tierIds = (b: any, tier: string) => (b.tiers[tier] as { id: string }[]).map((i) => i.id);

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'acme');
  api = makeApp(t, undefined, providers);
  await post('/collections', { slug: 'acme-product-decisions', template: 'product-decisions', goal: 'How the product handles money' });
  await post('/collections', { slug: 'acme-work', template: 'backlog', goal: 'Work in flight' });
  await post('/collections', { slug: 'acme-docs', template: 'documentation', goal: 'Reference' });
  ids.rule = (
    await post('/capture', {
      collection: 'constitution',
      node_type: 'rule',
      title: "Refunds over $500 need an owner's approval",
      prose: "Refunds over $500 need an owner's approval before they are issued.",
    })
  ).node.id;
  ids.decision = (
    await post('/capture', {
      collection: 'acme-product-decisions',
      node_type: 'decision',
      prose: 'Refunds go back to the card that paid, never as store credit. The refund flow lives in app/routes/billing.tsx.',
      body: {
        question: 'How do customers get their money back?',
        alternatives: [{ option: 'Store credit', rejected_because: 'Customers read it as us keeping their money.' }],
      },
    })
  ).node.id;
  ids.pr = (
    await post('/capture', {
      collection: 'acme-work',
      node_type: 'state',
      title: '#212 Move billing to the new layout',
      prose: 'Pull request #212 moves the billing page to the new layout (opened yesterday).',
    })
  ).node.id;
  // Noise the brief must rank below the records above (created now, so "in motion" too).
  for (let i = 0; i < 30; i++) {
    await post('/capture', {
      collection: 'acme-docs',
      node_type: 'reference',
      title: `Runbook ${i}: rotating database credentials`,
      prose: `Step ${i} of rotating the database credentials for the reporting cluster; unrelated to payments.`,
    });
  }
  await post('/relate', { from: ids.decision, to: ids.rule, edge_type: 'constrained_by' });
  await drainAll(t.sql, providers);
});
afterAll(async () => t.drop());

describe('the refund brief', () => {
  it('puts each record in its tier with the reason it is there', async () => {
    const b = await brief();
    expect(tierIds(b, 'must_obey')).toContain(ids.rule);
    expect(b.tiers.must_obey.find((i: any) => i.id === ids.rule).because).toBe('standing rule');
    expect(tierIds(b, 'already_decided')[0]).toBe(ids.decision);
    expect(b.tiers.already_decided[0].because).toBe('touches app/routes/billing.tsx');
    expect(tierIds(b, 'in_motion')).toContain(ids.pr);
    expect(b.tiers.in_motion.find((i: any) => i.id === ids.pr).because).toBe('touches #212');
    expect(b.gaps).toContain('partial refunds');
    expect(b.receipt).toMatch(
      /^\[🔮 Doco\] briefed: \d+ items, \d+ held back · searched [\d.]+[KMB]? tokens, sent [\d.]+[KMB]? \([\d.]+s\)$/,
    );
    expect(b.brief_id).toMatch(/^brief_/);
    expect(b.warnings).toEqual([]);
    // Every item says why it is there.
    for (const tier of Object.values(b.tiers) as { because: string }[][]) for (const item of tier) expect(item.because).toBeTruthy();
  });

  it('is stored and renders as plain text in the seed layout', async () => {
    const b = await brief();
    const stored = await api.call('GET', `/api/v1/briefs/${b.brief_id}`, ws.readToken);
    expect(stored.body.brief_id).toBe(b.brief_id);
    const res = await api.app.request(`/api/v1/briefs/${b.brief_id}?format=text`, { headers: { authorization: `Bearer ${ws.readToken}` } });
    const text = await res.text();
    expect(text).toContain('Must obey');
    expect(text).toContain(`${ids.rule}  Refunds over $500 need an owner's approval`);
    expect(text).toContain('    because: touches app/routes/billing.tsx');
    expect(text).toContain('No record covers "partial refunds".');
    expect(text.trim().split('\n').at(-1)).toBe(b.receipt);
  });

  it('shows the new decision and not the retired one after a supersede', async () => {
    const sup = await post('/changeset', {
      collection: 'acme-product-decisions',
      // The seed's operation, word for word: only body.prose. The question, alternatives and the
      // touch of app/routes/billing.tsx carry over from the decision it replaces.
      operations: [
        {
          op: 'supersede',
          target: ids.decision,
          node_type: 'decision',
          alias: 'next',
          body: { prose: 'Refunds, partial ones included, go back to the card that paid.' },
        },
      ],
    });
    await drainAll(t.sql, providers);
    const b = await brief();
    const all = Object.values(b.tiers).flatMap((tier: any) => tier.map((i: any) => i.id));
    expect(all).not.toContain(ids.decision);
    expect(tierIds(b, 'already_decided')[0]).toBe(sup.aliases.next);
    expect(b.tiers.already_decided[0].because).toBe('touches app/routes/billing.tsx');
    expect(b.gaps).not.toContain('partial refunds');
  });
});
