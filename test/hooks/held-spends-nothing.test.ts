// What a session already holds spends none of a hook brief's budget. Every brief carries the
// constitution's orders as one line each, and a session is given them at its start; the hook
// used to compose the 1,500-token brief with those lines in it and only then drop them as held,
// so a dozen one-line orders left the ask's own items a little over half the budget.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { drainAll, localProviders } from '../helpers/search.js';
import { hookSession } from '../helpers/hook-session.js';

const ASK = 'How are refunds to a customer card settled and reconciled with the ledger?';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
const providers = localProviders();
const orders: string[] = [];
const decisions: string[] = [];

// Set in beforeAll, once the app is made.
let post: ReturnType<typeof hookSession>['post'];
let start: ReturnType<typeof hookSession>['start'];
let prompt: ReturnType<typeof hookSession>['prompt'];
const named = (text: string, ids: string[]) => ids.filter((id) => text.includes(id));

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'held-spends-nothing');
  api = makeApp(t, undefined, providers);
  ({ post, start, prompt } = hookSession(api, ws));
  await post('/collections', { slug: 'payments', template: 'engineering-conventions', goal: 'How payments code is written' });
  for (let i = 0; i < 12; i++)
    orders.push(
      (
        await post('/capture', {
          collection: 'constitution',
          node_type: 'rule',
          title: `Working agreement ${i}: reviews and releases`,
          prose: `Agreement ${i}: every pull request names its reviewer, and a release tag is signed by the person who cut it.`,
        })
      ).node.id,
    );
  for (let i = 0; i < 26; i++)
    decisions.push(
      (
        await post('/capture', {
          collection: 'payments',
          node_type: 'decision',
          title: `Refund settlement step ${i}`,
          prose:
            `Step ${i} of settling a refund to the customer card: the refund is written to the ledger as its own entry, ` +
            `reconciled against the card network's settlement file of day ${i}, and a mismatch opens a reconciliation task. ` +
            `Partial refunds settle the same way; the ledger entry names the original charge.`,
        })
      ).node.id,
    );
  await drainAll(t.sql, providers);
});
afterAll(async () => t.drop());

describe('a hook brief after the session start', () => {
  it('spends the budget on the ask, not on the orders the session was given', async () => {
    // The same ask over REST, where nothing is held: the orders take their lines of the 1,500 tokens.
    const rest = await api.call('POST', '/api/v1/brief', ws.readToken, { about: ASK, budget: 1500 });
    expect(rest.status).toBe(200);
    const restText = JSON.stringify(rest.body);
    expect(named(restText, orders)).toHaveLength(orders.length);
    const restDecisions = named(restText, decisions).length;
    expect(restDecisions).toBeGreaterThan(0);
    expect(restDecisions).toBeLessThan(decisions.length);

    const given = await start('s-held');
    expect(named(given, orders)).toHaveLength(orders.length);
    const brief = await prompt('s-held', ASK);
    expect(named(brief, orders)).toEqual([]);
    // The orders' share went to the ask's items.
    expect(named(brief, decisions).length).toBeGreaterThan(restDecisions);
    expect(brief).toContain(`(${orders.length} items unchanged since the last brief in this session: not repeated)`);
  });

  it('reaches no further down for the items the session holds, and sends one again once it changes', async () => {
    await start('s-again');
    const first = await prompt('s-again', ASK);
    // What reached the session whole (an item cut to a "…" line comes again in full).
    const held = (await t.sql<{ node_id: string }[]>`select node_id from doco.hook_sent where session_id = 's-again'`).map(
      (r) => r.node_id,
    );
    const sentFirst = named(first, decisions).filter((id) => held.includes(id));
    expect(sentFirst.length).toBeGreaterThan(0);
    const second = await prompt('s-again', ASK);
    // The items the first brief sent whole, and the orders, are counted, not repeated.
    const repeated = named(second, sentFirst);
    expect(repeated).toEqual([]);
    // Items the ask chose keep their places: what the first brief did not reach, the second does not either.
    const unreached = decisions.filter((id) => !first.includes(id));
    expect(unreached.length).toBeGreaterThan(0);
    expect(named(second, unreached)).toEqual([]);
    const count = Number(/\((\d+) items? unchanged since the last brief/.exec(second)?.[1]);
    expect(count).toBeGreaterThanOrEqual(orders.length + sentFirst.length);

    const changed = sentFirst[0]!;
    await post('/changeset', {
      collection: 'payments',
      operations: [
        {
          op: 'append',
          target: changed,
          prose: 'Refunds to a customer card are now settled and reconciled with the ledger automatically, every night.',
        },
      ],
    });
    await drainAll(t.sql, providers);
    expect(await prompt('s-again', ASK)).toContain(changed);
  });
});
