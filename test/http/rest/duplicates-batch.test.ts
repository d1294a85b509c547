// The duplicate guard on a whole changeset (docs/writes.md, "Near-duplicates"): one candidate query for all its
// creates gives each create the verdict a capture of it alone would get, creates are compared
// with earlier creates of the same changeset, and a blocking one refuses the whole changeset.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApp, makeWorkspace, type TestWorkspace } from '../../helpers/app.js';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { expectError, expectNoWrite } from '../../helpers/expect-error.js';
import { drainAll, localProviders } from '../../helpers/search.js';
import { capture } from '../../../src/graph/writes.js';
import { noJudge } from '../../../src/providers/judge.js';
import { embeddedStore } from '../../../src/providers/vector/embedded/store.js';
import type { VectorStore } from '../../../src/providers/vector/port.js';

let t: TestDb;
let api: ReturnType<typeof makeApp>;
const providers = localProviders();

const REFUNDS =
  'Refunds go back to the card that paid, never as store credit. Support may not override this for any customer, however large the order.';
const PAYOUTS = 'Payouts to sellers run every Monday morning and never on a public holiday in the seller country.';
const RETRIES = 'Retries of webhooks back off exponentially up to one hour, see services/webhooks/retry.go for the schedule.';
const CACHING = 'Every price is cached for five minutes at the edge, and purged when the catalogue changes.';
const INVOICES = 'Invoices are numbered per calendar year without gaps, because the auditors check the sequence every spring.';

/** The drafts, in order: each is near or exactly like one seeded record, or like an earlier draft, or like nothing. */
const DRAFTS = [
  { title: 'Refunds go to the card', prose: REFUNDS.replace('any customer', 'a customer') }, // near an indexed record
  { title: 'Payouts weekly', prose: `${PAYOUTS.toUpperCase()}!` }, // exact, not yet indexed
  { title: 'Webhook retries', prose: RETRIES }, // exact, in another collection, tied by the touched path
  { title: 'Invoices', prose: INVOICES }, // like nothing
  { title: 'Caching', prose: CACHING }, // the same text as a rule: another type, no verdict
  { title: 'Invoices', prose: INVOICES.replace('every spring', 'each spring') }, // near draft 3
];

const send = (ws: TestWorkspace, path: string, body: unknown) => api.call('POST', `/api/v1${path}`, ws.writeToken, body);
const created = async (ws: TestWorkspace, path: string, body: unknown) => {
  const res = await send(ws, path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};
const duplicateVerdicts = (body: { verdicts: { policy: string }[] }): any[] =>
  body.verdicts.filter((v) => v.policy === 'possible_duplicate');

/** The same collections and records in each workspace: some indexed, one not yet. */
async function seed(ws: TestWorkspace, indexed: boolean) {
  if (indexed) {
    await created(ws, '/collections', { slug: 'money', template: 'product-decisions', goal: 'How the shop handles money' });
    await created(ws, '/collections', { slug: 'ops', template: 'product-decisions', goal: 'How the shop is run' });
    await created(ws, '/collections', { slug: 'rules', template: 'architecture-principles', goal: 'Rules' });
    await created(ws, '/capture', { collection: 'money', node_type: 'decision', title: 'Refunds go to the card', prose: REFUNDS });
    await created(ws, '/capture', { collection: 'ops', node_type: 'decision', title: 'Webhook retries', prose: RETRIES });
    await created(ws, '/capture', { collection: 'rules', node_type: 'rule', title: 'Caching', prose: CACHING });
  } else {
    await created(ws, '/capture', { collection: 'money', node_type: 'decision', title: 'Payouts weekly', prose: PAYOUTS });
  }
}

/** A verdict without what necessarily differs between the two paths (ids, wording, the in-changeset marker). */
function summary(v: any, idToDraft: Map<string, number>) {
  if (!v) return 'none';
  const d = v.duplicate_of;
  return {
    of: idToDraft.has(d.id) ? `draft ${idToDraft.get(d.id)}` : d.title,
    similarity: d.similarity,
    match: d.match,
    same_collection: d.same_collection,
    shared_touches: d.shared_touches,
  };
}

beforeAll(async () => {
  t = await createTestDb();
  api = makeApp(t, undefined, providers);
});
afterAll(async () => {
  await t?.drop();
});

describe('duplicate guard on a changeset .happy', () => {
  let single: TestWorkspace;
  let batch: TestWorkspace;
  beforeAll(async () => {
    single = await makeWorkspace(t, 'dup-single');
    batch = await makeWorkspace(t, 'dup-batch');
    for (const ws of [single, batch]) await seed(ws, true);
    await drainAll(t.sql, providers);
    for (const ws of [single, batch]) await seed(ws, false);
  });

  it('one changeset gives each create the verdict a capture of it alone gets', async () => {
    const singleIds = new Map<string, number>();
    const alone = [];
    for (const [i, d] of DRAFTS.entries()) {
      const body = await created(single, '/capture', { collection: 'money', node_type: 'decision', ...d });
      singleIds.set(body.node.id, i);
      const verdicts = duplicateVerdicts(body);
      expect(verdicts.length).toBeLessThanOrEqual(1);
      alone.push(summary(verdicts[0], singleIds));
    }
    const body = await created(batch, '/changeset', {
      collection: 'money',
      operations: [
        ...DRAFTS.map((d, i) => ({ op: 'create', alias: `d${i}`, node_type: 'decision', ...d })),
        { op: 'relate', from: '$d5', to: '$d3', edge_type: 'relates_to' },
      ],
    });
    const batchIds = new Map(DRAFTS.map((_, i) => [body.aliases[`d${i}`] as string, i]));
    const verdicts = duplicateVerdicts(body);
    const together = DRAFTS.map((_, i) =>
      summary(
        verdicts.find((v) => v.target === body.aliases[`d${i}`]),
        batchIds,
      ),
    );
    expect(together).toEqual(alone);
    // And they are the verdicts the drafts were written to get.
    expect(alone.map((s) => (s === 'none' ? s : s.match))).toEqual(['near', 'exact', 'exact', 'none', 'none', 'near']);
    expect(alone[2]).toMatchObject({ same_collection: false, shared_touches: ['services/webhooks/retry.go'] });
    expect(alone[5]).toMatchObject({ of: 'draft 3' });
  });

  it('a create near-identical to an earlier create of the changeset names its new id and operation index', async () => {
    const body = await created(batch, '/changeset', {
      collection: 'ops',
      operations: [
        {
          op: 'create',
          alias: 'first',
          node_type: 'decision',
          title: 'Deploys',
          prose: 'Deploys happen on weekdays before three in the afternoon, never on a Friday.',
        },
        {
          op: 'create',
          node_type: 'decision',
          title: 'Deploys',
          prose: 'Deploys happen on weekdays before three in the afternoon, never on Friday.',
        },
        {
          op: 'create',
          node_type: 'decision',
          title: 'Deploys',
          prose: 'DEPLOYS HAPPEN ON WEEKDAYS BEFORE THREE IN THE AFTERNOON, NEVER ON A FRIDAY!',
        },
      ],
    });
    const first = body.aliases.first;
    const [near, exact, ...more] = duplicateVerdicts(body);
    expect(more).toEqual([]);
    expect(near).toMatchObject({
      target: body.results[1].id,
      outcome: 'warn',
      duplicate_of: { id: first, operation: 0, title: 'Deploys', collection: 'ops', match: 'near', same_collection: true },
    });
    expect(near.reason).toContain(first);
    expect(near.reason).toContain('this changeset');
    // The first is written too: there is nothing to supersede, so no suggestion.
    expect(near.suggest).toBeUndefined();
    expect(exact).toMatchObject({ target: body.results[2].id, duplicate_of: { id: first, operation: 0, match: 'exact', similarity: 1 } });
    expect(body.results.map((r: { id: string }) => r.id)).toContain(first);
  });

  it('creates unlike each other in one changeset get no verdict, and none names the changeset itself', async () => {
    const body = await created(batch, '/changeset', {
      collection: 'ops',
      operations: [
        {
          op: 'create',
          alias: 'a',
          node_type: 'decision',
          prose: 'Backups are restored into a scratch database every Sunday to prove they work.',
        },
        { op: 'create', alias: 'b', node_type: 'decision', prose: 'On-call engineers get a day off after a night with a page.' },
        { op: 'relate', from: '$a', to: '$b', edge_type: 'relates_to' },
      ],
    });
    expect(duplicateVerdicts(body)).toEqual([]);
    // Written a moment ago and not indexed: a repeat of one is caught, and names it.
    const again = await created(batch, '/capture', {
      collection: 'ops',
      node_type: 'decision',
      prose: 'Backups are restored into a scratch database every Sunday to prove they work.',
    });
    expect(duplicateVerdicts(again)).toEqual([
      expect.objectContaining({ duplicate_of: expect.objectContaining({ id: body.aliases.a, match: 'exact' }) }),
    ]);
  });
});

describe('duplicate guard on a changeset .error', () => {
  let ws: TestWorkspace;
  const twins = (extra: Record<string, unknown>) => ({
    collection: 'ops',
    ...extra,
    operations: [
      {
        op: 'create',
        alias: 'first',
        node_type: 'decision',
        title: 'Alerts',
        prose: 'Alerts page the on-call engineer only when a customer is affected right now.',
      },
      {
        op: 'create',
        alias: 'fresh',
        node_type: 'decision',
        title: 'Logs',
        prose: 'Logs are kept for thirty days and then deleted for good.',
      },
      {
        op: 'create',
        alias: 'second',
        node_type: 'decision',
        title: 'Alerts',
        prose: 'Alerts page the on-call engineer only when a customer is affected right now!',
      },
      { op: 'relate', from: '$second', to: '$fresh', edge_type: 'relates_to' },
    ],
  });
  beforeAll(async () => {
    ws = await makeWorkspace(t, 'dup-block');
    await created(ws, '/collections', { slug: 'ops', template: 'product-decisions', goal: 'How the shop is run' });
    await created(ws, '/collections', { slug: 'strict', template: 'product-decisions', goal: 'No second copies', duplicates: 'block' });
  });

  it('on_duplicate "block" refuses a changeset whose creates repeat each other, writing nothing', async () => {
    const res = await expectNoWrite(t, () => send(ws, '/changeset', twins({ on_duplicate: 'block' })));
    const error = expectError(res, 409, 'conflict');
    expect(error.details).toMatchObject({ operation: 2, duplicate_of: { id: '$first', operation: 0, title: 'Alerts', match: 'exact' } });
    expect(error.message).toContain('operations[0]');
  });

  it('a collection with duplicates: block refuses it too, and a request cannot lift that', async () => {
    for (const extra of [{ collection: 'strict' }, { collection: 'strict', on_duplicate: 'warn' }]) {
      const res = await expectNoWrite(t, () => send(ws, '/changeset', twins(extra)));
      expect(expectError(res, 409, 'conflict').details).toMatchObject({ operation: 2, duplicate_of: { operation: 0 } });
    }
  });

  it('the same changeset without the block is written, with the verdict', async () => {
    const body = await created(ws, '/changeset', twins({}));
    expect(duplicateVerdicts(body)).toEqual([
      expect.objectContaining({
        target: body.aliases.second,
        outcome: 'warn',
        duplicate_of: expect.objectContaining({ id: body.aliases.first, operation: 0 }),
      }),
    ]);
  });
});

describe('duplicate guard: long candidates read as a prefix', () => {
  let ws: TestWorkspace;
  const SENTENCE = 'Retries back off exponentially and give up after five attempts.';
  const filler = Array.from({ length: 600 }, (_, i) => `term${i}`).join(' ');
  beforeAll(async () => {
    ws = await makeWorkspace(t, 'dup-long');
    await created(ws, '/collections', { slug: 'ops', template: 'product-decisions', goal: 'How the shop is run' });
  });

  it('a long record that only begins like the draft is not its duplicate', async () => {
    // Its prefix alone would look near-identical: the whole text is compared.
    await created(ws, '/capture', {
      collection: 'ops',
      node_type: 'decision',
      title: 'Retry policy',
      prose: `${Array(8).fill(SENTENCE).join(' ')} ${filler}`,
    });
    const body = await created(ws, '/capture', { collection: 'ops', node_type: 'decision', title: 'Retry policy', prose: SENTENCE });
    expect(duplicateVerdicts(body)).toEqual([]);
  });

  it('a long record that says the draft over and over is', async () => {
    const long = (
      await created(ws, '/capture', {
        collection: 'ops',
        node_type: 'reference',
        title: 'Retry log',
        prose: Array(80).fill(SENTENCE).join('\n'),
      })
    ).node.id;
    const body = await created(ws, '/capture', { collection: 'ops', node_type: 'reference', title: 'Retry log', prose: SENTENCE });
    expect(duplicateVerdicts(body)).toEqual([
      expect.objectContaining({ duplicate_of: expect.objectContaining({ id: long, match: 'near' }) }),
    ]);
  });
});

describe('duplicate guard .security (a check does not outlive its write)', () => {
  it('a capture refused by a policy answers only once its duplicate check is over', async () => {
    const ws = await makeWorkspace(t, 'dup-settle');
    await created(ws, '/collections', { slug: 'ops', template: 'product-decisions', goal: 'How the shop is run' });
    // An index whose lookups wait for the test: the check is still running when the policy refuses.
    const real = embeddedStore();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let looking!: () => void;
    const lookedUp = new Promise<void>((resolve) => (looking = resolve));
    const store: VectorStore = {
      ...real,
      kind: real.kind,
      search: async (q) => {
        looking();
        await gate;
        return real.search(q);
      },
    };
    const held = localProviders({ store });
    let settled = false;
    const answer = capture(
      { db: t.db, judge: noJudge, store, embedder: held.embedder },
      { workspaceId: ws.id, principalId: ws.principalId, source: 'api' },
      { collection: 'ops', node_type: 'log', title: 'Not allowed here', prose: 'A log in a collection of decisions.' },
    ).finally(() => (settled = true));
    await lookedUp;
    // Two round trips to the database: the policy has refused the capture by now.
    await t.sql`select 1`;
    await t.sql`select 1`;
    expect(settled).toBe(false);
    release();
    await expect(answer).rejects.toMatchObject({ code: 'policy_blocked' });
  });
});
