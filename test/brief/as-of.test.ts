// Briefs as of a time (docs/brief.md): `as_of` answers from the records' versions and
// lifecycles as they stood then — the text and tier each had, nothing created later, what was
// retired later present as it was — over REST (GET and POST), MCP and the CLI; a future or
// malformed as_of is a clear 400 storing nothing; without it nothing changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Brief, Item } from '../../src/brief/types.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { runDoco } from '../helpers/cli.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { expectError } from '../helpers/expect-error.js';
import { callTool, callToolOk, connectMcp } from '../helpers/mcp.js';
import { drainAll, localProviders } from '../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
const providers = localProviders();
const ids = {} as Record<
  'constitutionRule' | 'constitutionRuleNow' | 'decision' | 'superseded' | 'retired' | 'rule' | 'runbook' | 'later' | 'replacement',
  string
>;
let asOf: string;

const ASK = 'How do we handle refunds and chargebacks for card payments?';
const OLD_RULE = 'Refunds over 500 euros need the approval of an account owner before they are paid out.';
const NEW_RULE = 'Refunds over 200 euros need the approval of an account owner and a second approver before they are paid out.';

const post = async (path: string, body: unknown) => {
  const res = await api.call('POST', `/api/v1${path}`, ws.writeToken, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};
const brief = async (body: Record<string, unknown>): Promise<Brief> => {
  const res = await api.call('POST', '/api/v1/brief', ws.readToken, { about: ASK, budget: 20_000, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const items = (b: Brief) => Object.values(b.tiers).flat();
const item = (b: Brief, id: string): Item | undefined => items(b).find((i) => i.id === id);
const tierOf = (b: Brief, id: string) => Object.entries(b.tiers).find(([, list]) => list.some((i) => i.id === id))?.[0];
const briefCount = async () => (await t.sql<{ n: number }[]>`select count(*)::int as n from doco.briefs`)[0]!.n;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'asof');
  api = makeApp(t, undefined, providers);
  await post('/collections', { slug: 'payments', template: 'architecture-principles', goal: 'How payments work' });
  // Before T.
  ids.constitutionRule = (
    await post('/capture', { collection: 'constitution', node_type: 'rule', title: 'Refund approvals', prose: OLD_RULE })
  ).node.id;
  ids.decision = (
    await post('/capture', {
      collection: 'payments',
      node_type: 'decision',
      title: 'Chargebacks are contested',
      prose: 'Chargebacks on card payments are contested when the order shipped with tracking; refunds are never automatic.',
    })
  ).node.id;
  ids.superseded = (
    await post('/capture', {
      collection: 'payments',
      node_type: 'decision',
      title: 'Refunds to store credit',
      prose: 'Refunds for card payments are paid as store credit, never back to the card.',
    })
  ).node.id;
  ids.retired = (
    await post('/capture', {
      collection: 'payments',
      node_type: 'rule',
      title: 'Refund log',
      prose: 'Every refund and chargeback of a card payment is logged in services/payments/refunds.go before it is paid.',
    })
  ).node.id;
  ids.rule = (
    await post('/capture', {
      collection: 'payments',
      node_type: 'rule',
      title: 'Card refunds are idempotent',
      prose: 'A card refund request carries an idempotency key, so a retried refund is never paid twice.',
    })
  ).node.id;
  ids.runbook = (
    await post('/capture', {
      collection: 'payments',
      node_type: 'reference',
      title: 'Refund runbook',
      prose: 'The runbook for refunds and chargebacks of card payments: who to call and what to check.',
    })
  ).node.id;
  await drainAll(t.sql, providers);
  asOf = (await t.sql<{ t: Date }[]>`select clock_timestamp() as t`)[0]!.t.toISOString();
  await new Promise((r) => setTimeout(r, 5));

  // After T: an edit, a new record, a supersede and a plain retire.
  await post('/changeset', {
    operations: [
      { op: 'supersede', target: ids.constitutionRule, node_type: 'rule', title: 'Refund approvals', prose: NEW_RULE, alias: 'newRule' },
    ],
  }).then((b) => (ids.constitutionRuleNow = b.aliases.newRule));
  await post('/changeset', { operations: [{ op: 'append', target: ids.rule, prose: 'Keys expire after 24 hours for card refunds.' }] });
  ids.later = (
    await post('/capture', {
      collection: 'payments',
      node_type: 'decision',
      title: 'Refunds for chargebacks',
      prose: 'Card payment refunds are blocked while a chargeback on the same payment is open.',
    })
  ).node.id;
  ids.replacement = (
    await post('/changeset', {
      operations: [
        {
          op: 'supersede',
          target: ids.superseded,
          node_type: 'decision',
          title: 'Refunds to the card',
          prose: 'Refunds for card payments go back to the card that paid, never as store credit.',
          alias: 'r',
        },
      ],
    })
  ).aliases.r;
  await post('/changeset', { operations: [{ op: 'retire', target: ids.retired }] });
  await post('/changeset', { operations: [{ op: 'append', target: ids.runbook, prose: 'Call the payments on-call first.' }] });
  await drainAll(t.sql, providers);
});
afterAll(async () => {
  await t?.drop();
});

describe('brief as_of .happy', () => {
  it('a record edited after T shows the text and version it had at T', async () => {
    const now = await brief({});
    const then = await brief({ as_of: asOf });
    expect(item(now, ids.rule)!.text).toContain('Keys expire after 24 hours');
    const old = item(then, ids.rule)!;
    expect(old.text).not.toContain('Keys expire');
    expect(old.text).toContain('idempotency key');
    expect(new Date(old.updated_at).getTime()).toBeLessThanOrEqual(new Date(asOf).getTime());
    expect(tierOf(then, ids.rule)).toBe('must_obey');
  });

  it('the constitution is read as it stood at T: the rule later superseded, with its old text', async () => {
    const now = await brief({});
    const then = await brief({ as_of: asOf });
    expect(item(now, ids.constitutionRuleNow)?.text).toContain('200 euros');
    expect(item(now, ids.constitutionRule)).toBeUndefined();
    expect(item(then, ids.constitutionRule)).toMatchObject({ lifecycle: 'active', text: OLD_RULE });
    expect(tierOf(then, ids.constitutionRule)).toBe('must_obey');
    expect(item(then, ids.constitutionRuleNow)).toBeUndefined();
  });

  it('a record created after T is absent', async () => {
    expect(item(await brief({}), ids.later)).toBeDefined();
    expect(item(await brief({ as_of: asOf }), ids.later)).toBeUndefined();
  });

  it('a record retired after T is present as it was; its later replacement is not', async () => {
    const now = await brief({ touching: ['services/payments/refunds.go'] });
    const then = await brief({ touching: ['services/payments/refunds.go'], as_of: asOf });
    for (const id of [ids.retired, ids.superseded]) expect(item(now, id)).toBeUndefined();
    expect(item(now, ids.replacement)).toBeDefined();
    expect(item(then, ids.retired)).toMatchObject({ lifecycle: 'active', title: 'Refund log' });
    expect(tierOf(then, ids.retired)).toBe('must_obey');
    // The index no longer holds the superseded decision; its replacement, found today, stands for it.
    expect(item(then, ids.superseded)).toMatchObject({ lifecycle: 'active', title: 'Refunds to store credit' });
    expect(tierOf(then, ids.superseded)).toBe('already_decided');
    expect(item(then, ids.replacement)).toBeUndefined();
  });

  it('"in motion" is judged by when each record last changed by T', async () => {
    // Edited after T: in motion since T today; as of T its last change was before T.
    expect(tierOf(await brief({ since: asOf }), ids.runbook)).toBe('in_motion');
    expect(tierOf(await brief({ as_of: asOf, since: asOf }), ids.runbook)).toBe('background');
    expect(tierOf(await brief({ as_of: asOf, since: '1h' }), ids.runbook)).toBe('in_motion');
  });

  it('the brief says what time it answers for, and is stored with it', async () => {
    const then = await brief({ as_of: asOf });
    expect(then.as_of).toBe(asOf);
    const stored = await api.call('GET', `/api/v1/briefs/${then.brief_id}`, ws.readToken);
    expect(stored.body.as_of).toBe(asOf);
    const text = await api.app.request(
      `/api/v1/brief.json?about=${encodeURIComponent(ASK)}&as_of=${encodeURIComponent(asOf)}&format=text`,
      { headers: { authorization: `Bearer ${ws.readToken}` } },
    );
    expect(await text.text()).toContain(`As of ${asOf}`);
  });

  it("without as_of the brief is unchanged: no as_of key, today's text", async () => {
    const now = await brief({});
    expect(Object.keys(now)).not.toContain('as_of');
    expect(item(now, ids.rule)!.text).toContain('Keys expire');
  });

  it('GET /brief.json and doco_brief take as_of too', async () => {
    const res = await api.call(
      'GET',
      `/api/v1/brief.json?about=${encodeURIComponent(ASK)}&as_of=${encodeURIComponent(asOf)}&budget=20000`,
      ws.readToken,
    );
    expect(res.status).toBe(200);
    expect(item(res.body, ids.later)).toBeUndefined();
    expect(item(res.body, ids.rule)!.text).not.toContain('Keys expire');
    const client = await connectMcp(api.app, ws.readToken);
    try {
      const viaMcp = await callToolOk(client, 'doco_brief', { about: ASK, as_of: asOf, budget: 20_000 });
      expect(viaMcp.as_of).toBe(asOf);
      expect(item(viaMcp, ids.later)).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});

describe('brief as_of .error', () => {
  const BAD: [string, string][] = [
    ['2999-01-01T00:00:00Z', 'future'],
    ['yesterday', 'ISO'],
    ['2025-13-45', 'real date'],
    ['2025-06-01T09:30', 'zone'],
    ['', 'ISO'],
    // JavaScript reads these as dates; Postgres has no year 0 (it failed in the query: a 500).
    ['0000-01-01', '0001 to 9999'],
    ['0001-01-01T00:30+02:00', '0001 to 9999'],
  ];

  it('a future or malformed as_of is a 400 naming as_of, over POST and GET, storing nothing', async () => {
    const before = await briefCount();
    for (const [value, says] of BAD) {
      const res = await api.call('POST', '/api/v1/brief', ws.readToken, { about: ASK, as_of: value });
      const error = expectError(res, 400, 'validation_failed');
      expect(error.message).toContain('as_of');
      expect(error.message).toContain(says);
      const { issues } = error.details as { issues: { path: string }[] };
      // One reason: a value that is no date is not also "in the future".
      expect(issues.map((i) => i.path)).toEqual(['as_of']);
      expectError(
        await api.call('GET', `/api/v1/brief.json?about=x&as_of=${encodeURIComponent(value)}`, ws.readToken),
        400,
        'validation_failed',
      );
    }
    expect(await briefCount()).toBe(before);
  });

  it('a since in a year Postgres cannot read is a 400 naming since, storing nothing', async () => {
    const before = await briefCount();
    for (const since of ['0000-06-01', '-000001-01-01T00:00:00Z', '+010000-01-01T00:00:00Z']) {
      const error = expectError(await api.call('POST', '/api/v1/brief', ws.readToken, { about: ASK, since }), 400, 'validation_failed');
      expect(error.message).toContain('since');
      expect(error.message).toContain('0001 to 9999');
    }
    expect(await briefCount()).toBe(before);
  });

  it('over MCP a bad as_of is an error result with code validation_failed', async () => {
    const client = await connectMcp(api.app, ws.readToken);
    try {
      const res = await callTool(client, 'doco_brief', { about: ASK, as_of: '2999-01-01' });
      expect(res.isError).toBe(true);
      expect(res.structuredContent).toMatchObject({ error: { code: 'validation_failed' } });
    } finally {
      await client.close();
    }
  });

  it('doco brief --as-of with a future time exits non-zero with the reason, before any database starts', async () => {
    const res = await runDoco(['brief', ASK, '--as-of', '2999-01-01T00:00:00Z'], {
      env: { ...process.env, DOCO_HOME: '/nonexistent/doco-as-of-test', DATABASE_URL: '' },
      timeoutMs: 30_000,
    });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('as_of');
    expect(res.stderr).toContain('future');
  });
});
