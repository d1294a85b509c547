// Proposals never take approved knowledge's place: one agent's write token wrote 100 queued
// records worded like the ask, and a person's three active decisions on it left every other
// agent's brief (a hostile review: "tiers hold 1 items; proposed 4; held_back 56"). However many
// proposals match, the approved records a brief would carry without them are still carried, and
// the proposals it shows stay few.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/auth/tokens.js';
import { ensurePrincipal } from '../../src/auth/workspaces.js';
import type { Brief } from '../../src/brief/types.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { drainAll, localProviders } from '../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
let agentToken: string;
let readerToken: string;
const providers = localProviders();
const decisions: string[] = [];
const ASK = 'how should a refund to the customer card be issued';

const post = async (path: string, body: unknown, token = ws.writeToken) => {
  const res = await api.call('POST', `/api/v1${path}`, token, body);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body;
};
const tierIds = (b: Brief) => Object.values(b.tiers).flatMap((items) => items.map((i) => i.id));

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'flood');
  api = makeApp(t, undefined, providers);
  const writer = await ensurePrincipal(t.db, ws.id, 'agent:codex@shop', 'api');
  agentToken = await createToken(t.db, { workspaceId: ws.id, principalId: writer, scope: 'write' });
  const reader = await ensurePrincipal(t.db, ws.id, 'agent:claude-code@shop', 'api');
  readerToken = await createToken(t.db, { workspaceId: ws.id, principalId: reader, scope: 'read' });
  await post('/collections', { slug: 'payments', template: 'adrs', goal: 'How payments work' });
  for (const [title, prose] of [
    ['Refunds go back to the original card', 'A refund is always paid back to the card the customer paid with, never as store credit.'],
    ['Partial refunds are allowed within 30 days', 'Support may issue a partial refund within 30 days of the purchase.'],
    ['Refund webhooks retry three times', 'The refund provider webhook is retried three times with exponential backoff.'],
  ])
    decisions.push(
      (await post('/capture', { collection: 'payments', node_type: 'decision', title, prose, body: { question: 'How are refunds paid?' } }))
        .node.id,
    );
  await drainAll(t.sql, providers);
});
afterAll(async () => t.drop());

const brief = async (budget: number): Promise<Brief> => {
  const res = await api.call('POST', '/api/v1/brief', readerToken, { about: ASK, budget });
  expect(res.status).toBe(200);
  return res.body;
};

describe('a flood of proposals', () => {
  it("leaves the person's approved decisions in every other agent's brief, and shows few proposals", async () => {
    const carried = new Map<number, string[]>();
    for (const budget of [1500, 4000]) {
      const sent = tierIds(await brief(budget));
      carried.set(
        budget,
        decisions.filter((id) => sent.includes(id)),
      );
      expect(carried.get(budget)!.length, `budget ${budget}`).toBeGreaterThanOrEqual(2);
    }
    for (let k = 0; k < 2; k++) {
      const operations = Array.from({ length: 50 }, (_, i) => ({
        op: 'create',
        node_type: 'idea',
        title: `How a refund to the customer card should be issued, note ${k * 50 + i}`,
        prose: `How should a refund to the customer card be issued? Issue the refund to the customer card. Variant ${k * 50 + i}.`,
      }));
      await post('/changeset', { collection: 'payments', operations }, agentToken);
    }
    await drainAll(t.sql, providers);
    for (const budget of [1500, 4000]) {
      const after = await brief(budget);
      for (const id of carried.get(budget)!) expect(tierIds(after), `budget ${budget}`).toContain(id);
      expect(after.proposed.length, `budget ${budget}`).toBeLessThanOrEqual(8);
    }
  });
});
