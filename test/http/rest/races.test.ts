// Concurrent writes over REST, many rounds each: two requests are planned and checked, then held
// at a gate inside their transactions (an advisory lock on this test database's first insert
// of each write) and let go together, so the race the checks outside the transaction cannot see
// really happens. One supersede of a record wins, the other is 409 lifecycle_violation; a relate
// racing a retire never leaves an active edge on a retired record; one of two creations of a
// slug is 409 conflict. Never a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../../helpers/app.js';
import { Gate, installGate } from '../../helpers/race.js';

const ROUNDS = 50;

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'races');
  api = makeApp(t);
  expect((await post('/collections', { slug: 'arch', template: 'adrs', goal: 'Architecture decisions' })).status).toBe(201);
  // Every changeset starts with its changesets row, and a collection is one insert: gate both.
  await installGate(t.sql, 'doco.changesets');
  await installGate(t.sql, 'doco.collections');
});
afterAll(async () => t.drop());

const post = (path: string, body: unknown) => api.call('POST', `/api/v1${path}`, ws.writeToken, body);

/** Sends both requests, holds them at the gate until both arrived (or answered early), lets them race. */
type Answer = Awaited<ReturnType<typeof post>>;
async function race(a: () => Promise<Answer>, b: () => Promise<Answer>): Promise<[Answer, Answer]> {
  const gate = await Gate.close(t.sql);
  let answered = 0;
  const settle = (p: Promise<Answer>) => p.finally(() => answered++);
  const answers = Promise.all([settle(a()), settle(b())]);
  await gate.waitForWaiters(() => 2 - answered);
  await gate.open();
  return answers;
}

const created = async (body: unknown) => {
  const res = await post('/capture', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.node.id as string;
};

describe('two concurrent supersedes of one record', () => {
  it('one wins; the other is 409 lifecycle_violation and writes nothing', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const old = await created({
        collection: 'arch',
        node_type: 'decision',
        prose: `Queues live in Postgres (${round}).`,
        body: { question: 'Where do queues live?' },
      });
      const supersede = (prose: string) => () =>
        post('/changeset', {
          collection: 'arch',
          operations: [{ op: 'supersede', target: old, node_type: 'decision', prose, body: { question: 'Where do queues live?' } }],
        });
      const answers = await race(supersede('Queues live in Redis.'), supersede('Queues live in SQS.'));
      const statuses = answers.map((r) => r.status).sort();
      expect(statuses, JSON.stringify(answers.map((r) => r.body))).toEqual([201, 409]);
      const loser = answers.find((r) => r.status === 409)!;
      expect(loser.body.error.code).toBe('lifecycle_violation');
      expect(loser.body.error.message).toContain(`${old} is already retired and cannot be superseded`);
      const winner = answers.find((r) => r.status === 201)!.body.results[0].id as string;

      const replacements = await t.sql`
        select from_id, lifecycle from doco.edges where to_id = ${old} and edge_type = 'replaces'`;
      expect(replacements.map((r) => ({ ...r }))).toEqual([{ from_id: winner, lifecycle: 'active' }]);
      const [row] = await t.sql<
        { n: number }[]
      >`select count(*)::int as n from doco.nodes where prose in ('Queues live in Redis.', 'Queues live in SQS.') and lifecycle = 'active'`;
      expect(row!.n).toBe(round + 1);
    }
  });
});

describe('a relate racing a retire', () => {
  it('never leaves an active edge on a retired record', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const from = await created({ collection: 'arch', node_type: 'idea', prose: `Shard by tenant (${round}).` });
      const to = await created({ collection: 'arch', node_type: 'idea', prose: `Shard by region (${round}).` });
      const retired = round % 2 ? from : to;
      const [relate, retire] = await race(
        () => post('/relate', { from, to, edge_type: 'supports' }),
        () => post('/changeset', { operations: [{ op: 'retire', target: retired }] }),
      );
      expect(retire.status, JSON.stringify(retire.body)).toBe(201);
      if (relate.status !== 201) {
        expect({ status: relate.status, code: relate.body.error.code }).toEqual({ status: 409, code: 'lifecycle_violation' });
      }
      const live = await t.sql`select id from doco.edges where lifecycle = 'active' and (from_id = ${retired} or to_id = ${retired})`;
      expect(live, `round ${round}`).toEqual([]);
    }
  });
});

describe('two concurrent creations of one collection slug', () => {
  it('one is 201; the other is 409 conflict, never a 500', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const body = { slug: `team-${round}`, template: 'backlog', goal: 'Work waiting to be done' };
      const answers = await race(
        () => post('/collections', body),
        () => post('/collections', body),
      );
      expect(answers.map((r) => r.status).sort(), JSON.stringify(answers.map((r) => r.body))).toEqual([201, 409]);
      const loser = answers.find((r) => r.status === 409)!;
      expect(loser.body.error).toEqual({ code: 'conflict', message: `collection team-${round} already exists in this workspace` });
    }
    const [row] = await t.sql<
      { n: number }[]
    >`select count(*)::int as n from doco.collections where workspace_id = ${ws.id} and slug like 'team-%'`;
    expect(row!.n).toBe(ROUNDS);
  });
});
