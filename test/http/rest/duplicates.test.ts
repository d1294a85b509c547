// The near-duplicate guard (docs/writes.md, "Near-duplicates"): a capture or changeset create very
// close to an active record of its type (same collection or a shared touch) succeeds with a
// possible_duplicate verdict naming the record and suggesting supersede; on_duplicate "block"
// (or the collection's duplicates policy) refuses it as conflict and writes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApp, makeWorkspace, type TestWorkspace } from '../../helpers/app.js';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { expectError, expectNoWrite } from '../../helpers/expect-error.js';
import { callTool, connectMcp } from '../../helpers/mcp.js';
import { Gate, installGate } from '../../helpers/race.js';
import { drainAll, localProviders } from '../../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
const providers = localProviders();

const REFUNDS =
  'Refunds go back to the card that paid, never as store credit. Support may not override this for any customer, however large the order.';
const REFUNDS_EDITED =
  'Refunds go back to the card that paid, never as store credit. Support may not override this for a customer, however large the order.';
const UNRELATED = 'Invoices are numbered per calendar year without gaps, because the auditors check the sequence every spring.';

const post = (path: string, body: unknown, token = ws.writeToken) => api.call('POST', `/api/v1${path}`, token, body);
const created = async (path: string, body: unknown) => {
  const res = await post(path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};
const duplicateVerdicts = (body: { verdicts: { policy: string }[] }): any[] =>
  body.verdicts.filter((v) => v.policy === 'possible_duplicate');

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'dups');
  api = makeApp(t, undefined, providers);
  await created('/collections', { slug: 'money', template: 'product-decisions', goal: 'How the shop handles money' });
  await created('/collections', { slug: 'ops', template: 'product-decisions', goal: 'How the shop is run' });
  await created('/collections', { slug: 'strict', template: 'product-decisions', goal: 'No second copies', duplicates: 'block' });
});
afterAll(async () => {
  await t?.drop();
});

describe('near-duplicate guard .happy', () => {
  let original: string;
  beforeAll(async () => {
    original = (await created('/capture', { collection: 'money', node_type: 'decision', title: 'Refunds go to the card', prose: REFUNDS }))
      .node.id;
    await drainAll(t.sql, providers);
  });

  it('a near-identical capture is written, with a verdict naming the record and suggesting supersede', async () => {
    const body = await created('/capture', {
      collection: 'money',
      node_type: 'decision',
      title: 'Refunds go to the card',
      prose: REFUNDS_EDITED,
    });
    const [verdict, ...more] = duplicateVerdicts(body);
    expect(more).toEqual([]);
    expect(verdict).toMatchObject({
      policy: 'possible_duplicate',
      target: body.node.id,
      outcome: 'warn',
      duplicate_of: { id: original, title: 'Refunds go to the card', collection: 'money', match: 'near', same_collection: true },
      suggest: { op: 'supersede', target: original },
    });
    expect(verdict.duplicate_of.similarity).toBeGreaterThan(0.6);
    expect(verdict.duplicate_of.similarity).toBeLessThan(1);
    expect(verdict.reason).toContain(original);
    expect(verdict.reason).toContain('supersede');
  });

  it('an exact repeat written a moment ago is caught before the index has it', async () => {
    const first = await created('/capture', { collection: 'ops', node_type: 'decision', prose: UNRELATED });
    // No drain: the index has never seen `first`.
    const again = await created('/capture', { collection: 'ops', node_type: 'decision', prose: `  ${UNRELATED.toUpperCase()}!` });
    expect(duplicateVerdicts(again)).toEqual([
      expect.objectContaining({
        outcome: 'warn',
        duplicate_of: expect.objectContaining({ id: first.node.id, match: 'exact', similarity: 1 }),
      }),
    ]);
  });

  it('a near (not exact) repeat not yet indexed is caught from the outbox', async () => {
    const first = await created('/capture', {
      collection: 'ops',
      node_type: 'decision',
      title: 'Payouts weekly',
      prose: 'Payouts to sellers run every Monday morning and never on a public holiday in the seller country.',
    });
    const again = await created('/capture', {
      collection: 'ops',
      node_type: 'decision',
      title: 'Payouts weekly',
      prose: 'Payouts to sellers run every Monday morning and never on a public holiday in the sellers country.',
    });
    expect(duplicateVerdicts(again)).toEqual([
      expect.objectContaining({ duplicate_of: expect.objectContaining({ id: first.node.id, match: 'near' }) }),
    ]);
    await drainAll(t.sql, providers);
  });

  it('a changeset create gets the verdict under its new id', async () => {
    const body = await created('/changeset', {
      collection: 'money',
      operations: [{ op: 'create', alias: 'again', node_type: 'decision', title: 'Refunds go to the card', prose: REFUNDS }],
    });
    const id = body.aliases.again;
    expect(duplicateVerdicts(body)).toEqual([
      expect.objectContaining({ target: id, outcome: 'warn', duplicate_of: expect.objectContaining({ id: original }) }),
    ]);
  });

  it('another collection counts only through a shared touch', async () => {
    const touching = 'Retries of webhooks back off exponentially up to one hour, see services/webhooks/retry.go for the schedule.';
    const first = await created('/capture', { collection: 'money', node_type: 'decision', prose: touching });
    await drainAll(t.sql, providers);
    const elsewhere = await created('/capture', { collection: 'ops', node_type: 'decision', prose: touching });
    expect(duplicateVerdicts(elsewhere)).toEqual([
      expect.objectContaining({
        duplicate_of: expect.objectContaining({
          id: first.node.id,
          same_collection: false,
          shared_touches: ['services/webhooks/retry.go'],
        }),
      }),
    ]);
    // The same text minus the path, in another collection: nothing ties the two.
    const untied = await created('/capture', { collection: 'ops', node_type: 'decision', title: 'Refunds go to the card', prose: REFUNDS });
    expect(duplicateVerdicts(untied)).toEqual([]);
  });
});

describe('near-duplicate guard: a long record among many that share its longest words', () => {
  // Forty short records hold the target's sixteen longest words, which are common words here. Looked up
  // by those, the long target ranks below them all; by the draft's rarest words, it comes first.
  const COMMON =
    'reconciliation acknowledgement idempotency authentication authorisation synchronisation configuration infrastructure observability dependencies transactional compatibility international notifications documentation subscriptions';
  const kiln = (n: number) =>
    `Kiln ${n} fires glaze on clay pots at cone six; the potter stacks the shelves, vents the ash and logs the firing curve by hand. `.repeat(
      3,
    );
  const TARGET = `The kiln room: ${COMMON}.\n\n${[1, 2, 3, 4, 5, 6].map(kiln).join('\n\n')}`;
  let target: string;
  beforeAll(async () => {
    await created('/collections', { slug: 'studio', template: 'product-decisions', goal: 'How the studio runs' });
    const siblings = Array.from({ length: 40 }, (_, i) => ({
      op: 'create',
      node_type: 'decision',
      title: `Team note ${i}`,
      prose: `Note ${i}: ${COMMON.split(' ')
        .slice(i % 3)
        .join(' ')}.`,
    }));
    await created('/changeset', { collection: 'studio', operations: siblings });
    target = (await created('/capture', { collection: 'studio', node_type: 'decision', title: 'The kiln room', prose: TARGET })).node.id;
    await drainAll(t.sql, providers);
  });

  it('an edited copy of the long record is caught', async () => {
    const body = await created('/capture', {
      collection: 'studio',
      node_type: 'decision',
      title: 'The kiln room',
      prose: TARGET.replace('cone six', 'cone five'),
    });
    const [verdict, ...more] = duplicateVerdicts(body);
    expect(more).toEqual([]);
    expect(verdict).toMatchObject({ outcome: 'warn', duplicate_of: { id: target, match: 'near' }, suggest: { op: 'supersede', target } });
  });
});

describe('near-duplicate guard: what does not count', () => {
  let original: string;
  beforeAll(async () => {
    await created('/collections', { slug: 'quiet', template: 'architecture-principles', goal: 'Rules and decisions' });
    original = (
      await created('/capture', {
        collection: 'quiet',
        node_type: 'decision',
        title: 'Caching',
        prose: 'Every price is cached for five minutes at the edge, and purged when the catalogue changes.',
      })
    ).node.id;
    await drainAll(t.sql, providers);
  });

  it('the same text as another type gets no verdict', async () => {
    const body = await created('/capture', {
      collection: 'quiet',
      node_type: 'rule',
      title: 'Caching',
      prose: 'Every price is cached for five minutes at the edge, and purged when the catalogue changes.',
    });
    expect(duplicateVerdicts(body)).toEqual([]);
  });

  it('unrelated text of the same type gets no verdict', async () => {
    const body = await created('/capture', {
      collection: 'quiet',
      node_type: 'decision',
      title: 'Sessions',
      prose: 'Sessions expire after twelve hours of inactivity and refresh tokens rotate on every use.',
    });
    expect(duplicateVerdicts(body)).toEqual([]);
  });

  it('a retired record does not count', async () => {
    await created('/changeset', { operations: [{ op: 'retire', target: original }] });
    await drainAll(t.sql, providers);
    const body = await created('/capture', {
      collection: 'quiet',
      node_type: 'decision',
      title: 'Caching',
      prose: 'Every price is cached for five minutes at the edge, and purged when the catalogue changes.',
      on_duplicate: 'block',
    });
    expect(duplicateVerdicts(body)).toEqual([]);
  });

  it('a supersede is not a duplicate of the record it replaces', async () => {
    const target = (
      await created('/capture', {
        collection: 'quiet',
        node_type: 'decision',
        title: 'Locale',
        prose: 'Prices are shown in the customer currency, converted at the morning rate of the central bank.',
      })
    ).node.id;
    await drainAll(t.sql, providers);
    const body = await created('/changeset', {
      on_duplicate: 'block',
      operations: [
        {
          op: 'supersede',
          target,
          node_type: 'decision',
          title: 'Locale',
          prose: 'Prices are shown in the customer currency, converted at the noon rate of the central bank.',
        },
      ],
    });
    expect(duplicateVerdicts(body)).toEqual([]);
  });
});

describe('near-duplicate guard .error', () => {
  let original: string;
  beforeAll(async () => {
    original = (
      await created('/capture', {
        collection: 'strict',
        node_type: 'decision',
        title: 'Chargebacks',
        prose: 'Chargebacks are always contested when the order shipped with tracking and the customer signed for it.',
      })
    ).node.id;
    await created('/capture', {
      collection: 'money',
      node_type: 'decision',
      title: 'Tax',
      prose: 'Sales tax is charged by the destination address, never by the warehouse that ships the order.',
    });
    await drainAll(t.sql, providers);
  });

  it('on_duplicate "block" refuses a near-identical capture as conflict, with the candidate, writing nothing', async () => {
    const res = await expectNoWrite(t, () =>
      post('/capture', {
        collection: 'money',
        node_type: 'decision',
        title: 'Tax',
        prose: 'Sales tax is charged by the destination address, never by a warehouse that ships the order.',
        on_duplicate: 'block',
      }),
    );
    const error = expectError(res, 409, 'conflict');
    expect(error.details).toMatchObject({
      duplicate_of: { collection: 'money', title: 'Tax', match: 'near' },
      suggest: { op: 'supersede' },
    });
    expect(error.message).toContain('supersede');
  });

  it('on_duplicate "block" in a changeset refuses the whole changeset', async () => {
    const res = await expectNoWrite(t, () =>
      post('/changeset', {
        collection: 'money',
        on_duplicate: 'block',
        operations: [
          {
            op: 'create',
            alias: 'fresh',
            node_type: 'decision',
            prose: 'Gift cards never expire, as consumer law in most of our markets requires.',
          },
          {
            op: 'create',
            node_type: 'decision',
            title: 'Tax',
            prose: 'Sales tax is charged by the destination address, never by the warehouse that ships the order.',
          },
        ],
      }),
    );
    expect(expectError(res, 409, 'conflict').details).toMatchObject({ operation: 1, duplicate_of: { title: 'Tax', match: 'exact' } });
  });

  it('a collection whose policy is duplicates: block refuses it, and a request cannot lift that', async () => {
    const again = {
      collection: 'strict',
      node_type: 'decision',
      title: 'Chargebacks',
      prose: 'Chargebacks are always contested when the order shipped with tracking and the customer signed for it.',
    };
    for (const body of [again, { ...again, on_duplicate: 'warn' }]) {
      const res = await expectNoWrite(t, () => post('/capture', body));
      expect(expectError(res, 409, 'conflict').details).toMatchObject({ duplicate_of: { id: original, match: 'exact' } });
    }
    // Unrelated text in that collection is written as usual.
    await created('/capture', {
      collection: 'strict',
      node_type: 'decision',
      prose: 'Disputes over fifty euros are answered by a person, not a macro.',
    });
  });

  it('a bad on_duplicate value is a 400 in the one error shape, writing nothing', async () => {
    for (const [path, body] of [
      ['/capture', { collection: 'money', node_type: 'decision', prose: 'Anything at all.', on_duplicate: 'ignore' }],
      [
        '/changeset',
        { collection: 'money', on_duplicate: true, operations: [{ op: 'create', node_type: 'decision', prose: 'Anything at all.' }] },
      ],
      ['/collections', { slug: 'lax', template: 'product-decisions', goal: 'x', duplicates: 'sometimes' }],
    ] as const) {
      const res = await expectNoWrite(t, () => post(path, body));
      const error = expectError(res, 400, 'validation_failed');
      expect((error.details as { issues: { path: string }[] }).issues.map((i) => i.path)).toContain(
        path === '/collections' ? 'duplicates' : 'on_duplicate',
      );
    }
  });

  it('over MCP, doco_capture with on_duplicate "block" is an error result with code conflict', async () => {
    const client = await connectMcp(api.app, ws.writeToken);
    try {
      const before = (await t.sql<{ n: number }[]>`select count(*)::int as n from doco.nodes`)[0]!.n;
      const res = await callTool(client, 'doco_capture', {
        collection: 'strict',
        node_type: 'decision',
        title: 'Chargebacks',
        prose: 'Chargebacks are always contested when the order shipped with tracking and the customer signed for it.',
        on_duplicate: 'block',
      });
      expect(res.isError).toBe(true);
      expect(res.structuredContent).toMatchObject({ error: { code: 'conflict', details: { duplicate_of: { id: original } } } });
      expect((await t.sql<{ n: number }[]>`select count(*)::int as n from doco.nodes`)[0]!.n).toBe(before);
      const bad = await callTool(client, 'doco_capture', {
        collection: 'strict',
        node_type: 'decision',
        prose: 'x',
        on_duplicate: 'maybe',
      });
      expect(bad.structuredContent).toMatchObject({ error: { code: 'validation_failed' } });
    } finally {
      await client.close();
    }
  });
});

describe('near-duplicate guard .security (races)', () => {
  it('of two identical blocking captures racing, exactly one is written', async () => {
    await created('/collections', { slug: 'race', template: 'product-decisions', goal: 'Races' });
    await installGate(t.sql, 'doco.nodes');
    const gate = await Gate.close(t.sql);
    const body = {
      collection: 'race',
      node_type: 'decision',
      prose: 'Refund requests are answered within two working days, weekends excluded.',
      on_duplicate: 'block',
    };
    const answers = Promise.all([post('/capture', body), post('/capture', body)]);
    // Both writers are past their pre-check: one held at the gate (its insert), the other at the
    // fingerprint lock (or, without that lock, at the gate too).
    for (;;) {
      const [row] = await t.sql<
        { n: number }[]
      >`select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())`;
      if (row!.n >= 2) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    await gate.open();
    const statuses = (await answers).map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409]);
    expect(
      (
        await t.sql<
          { n: number }[]
        >`select count(*)::int as n from doco.nodes n join doco.collections c on c.id = n.collection_id where c.slug = 'race'`
      )[0]!.n,
    ).toBe(1);
    await t.sql`drop trigger _000_test_gate on doco.nodes`;
  });

  it('the SQL fingerprint of a draft equals the stored column', async () => {
    const rows = await t.sql<
      { same: boolean }[]
    >`select bool_and(text_fingerprint = doco.text_fingerprint(title, prose)) as same from doco.nodes`;
    expect(rows[0]!.same).toBe(true);
  });
});
