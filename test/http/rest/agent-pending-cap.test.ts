// One agent holds at most 1,000 records awaiting review in a workspace (sql/agent_review.sql,
// doco.agent_pending_per_workspace): past it, its next proposal is refused (403 forbidden, nothing
// written) until a person approves or rejects some. One agent's write token filled the review
// queue by the ten thousand. A person's writes, another agent's, another workspace's, and an
// agent's where agents may activate are not counted against it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../../src/auth/tokens.js';
import { ensurePrincipal } from '../../../src/auth/workspaces.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../../helpers/app.js';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { expectError, expectNoWrite } from '../../helpers/expect-error.js';

const CAP = 1000;

let t: TestDb;
let ws: TestWorkspace;
let other: TestWorkspace;
let api: ReturnType<typeof makeApp>;
let codex: { id: string; token: string };

async function agentIn(w: TestWorkspace, name: string) {
  const id = await ensurePrincipal(t.db, w.id, name, 'cli');
  return { id, token: await createToken(t.db, { workspaceId: w.id, principalId: id, scope: 'write' }) };
}

/** `n` queued records written by the agent in plain SQL, in one statement under its changeset. */
async function proposeInBulk(w: TestWorkspace, agentId: string, n: number) {
  await t.sql.begin(async (sql) => {
    const [row] = await sql<{ id: string }[]>`select doco.new_id('changeset') as id`;
    const id = row!.id;
    await sql`insert into doco.changesets (id, workspace_id, actor_id, source) values (${id}, ${w.id}, ${agentId}, 'mcp')`;
    await sql`select set_config('doco.changeset_id', ${id}, true)`;
    await sql`
      insert into doco.nodes (id, workspace_id, collection_id, node_type, lifecycle, title, prose)
      select doco.new_id('decision'), ${w.id}, c.id, 'decision', 'queued', 'Bulk proposal ' || g, 'Proposed in bulk, number ' || g || '.'
        from generate_series(1, ${n}) g, doco.collections c where c.workspace_id = ${w.id} and c.slug = 'notes'`;
  });
}

const capture = (token: string, title: string) =>
  api.call('POST', '/api/v1/capture', token, { collection: 'notes', node_type: 'decision', title, prose: `${title}, as proposed.` });
const pendingOf = async (principalId: string) =>
  (
    await t.sql<{ n: number }[]>`
      select count(*)::int as n from doco.nodes where principal_id = ${principalId} and lifecycle in ('drafting', 'queued')`
  )[0]!.n;

beforeAll(async () => {
  t = await createTestDb();
  api = makeApp(t);
  [ws, other] = [await makeWorkspace(t, 'pending-cap'), await makeWorkspace(t, 'pending-cap-other')];
  for (const w of [ws, other]) {
    const res = await api.call('POST', '/api/v1/collections', w.writeToken, {
      slug: 'notes',
      template: 'product-decisions',
      goal: 'What we decided.',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  codex = await agentIn(ws, 'agent:codex@shop');
  await proposeInBulk(ws, codex.id, CAP - 2);
}, 60_000);
afterAll(async () => t.drop());

describe("an agent's pending proposals", () => {
  it('are refused past the cap with 403 forbidden, writing nothing; a changeset that would cross it is refused whole', async () => {
    expect((await capture(codex.token, 'Proposal 999')).status).toBe(201);
    const crossing = await expectNoWrite(t, () =>
      api.call('POST', '/api/v1/changeset', codex.token, {
        collection: 'notes',
        operations: [
          { op: 'create', node_type: 'decision', title: 'Proposal 1000', prose: 'The thousandth, as proposed.' },
          { op: 'create', node_type: 'decision', title: 'Proposal 1001', prose: 'One past the cap, as proposed.' },
        ],
      }),
    );
    const error = expectError(crossing, 403, 'forbidden');
    expect(error.message).toMatch(
      /^operations\[1\] \(create\): agent:codex@shop has 1000 records awaiting review in this workspace, the most an agent may: a person approves or rejects them before it proposes more$/,
    );
    expect((await capture(codex.token, 'Proposal 1000')).status).toBe(201);
    expect(await pendingOf(codex.id)).toBe(CAP);
    expectError(await expectNoWrite(t, () => capture(codex.token, 'Proposal 1001')), 403, 'forbidden');
    expect(await pendingOf(codex.id)).toBe(CAP);
  });

  it("leaves a person's writes, another agent's and another workspace's alone", async () => {
    expect((await capture(ws.writeToken, 'A decision of a person')).status).toBe(201);
    const claude = await agentIn(ws, 'agent:claude-code@shop');
    expect((await capture(claude.token, 'Another agent proposes')).status).toBe(201);
    const elsewhere = await agentIn(other, 'agent:codex@shop');
    expect((await capture(elsewhere.token, 'The same agent name elsewhere')).status).toBe(201);
  });

  it('takes proposals again once a person has reviewed some', async () => {
    expect(await pendingOf(codex.id)).toBe(CAP);
    const [oldest] = await t.sql<{ id: string }[]>`
      select id from doco.nodes where principal_id = ${codex.id} and lifecycle = 'queued' order by created_at, id limit 1`;
    const approved = await api.call('POST', '/api/v1/changeset', ws.writeToken, { operations: [{ op: 'activate', target: oldest!.id }] });
    expect(approved.status, JSON.stringify(approved.body)).toBe(201);
    expect(await pendingOf(codex.id)).toBe(CAP - 1);
    expect((await capture(codex.token, 'Proposed after a review')).status).toBe(201);
    expectError(await capture(codex.token, 'And one more'), 403, 'forbidden');
  });

  it('holds under concurrent proposals: the count and the insert are one agent write at a time', async () => {
    const gemini = await agentIn(ws, 'agent:gemini@shop');
    await proposeInBulk(ws, gemini.id, CAP - 60);
    // Ten changesets of ten creates at once: six fit under the cap, four must be refused whole.
    const changesets = Array.from({ length: 10 }, (_, c) =>
      api.call('POST', '/api/v1/changeset', gemini.token, {
        collection: 'notes',
        operations: Array.from({ length: 10 }, (_, i) => ({
          op: 'create',
          node_type: 'decision',
          title: `Concurrent proposal ${c}-${i}`,
          prose: `Proposed at once with the others: ${c} and ${i}.`,
        })),
      }),
    );
    const answers = await Promise.all(changesets);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, 201, 201, 201, 403, 403, 403, 403]);
    expect(await pendingOf(gemini.id)).toBe(CAP);
  });

  it('holds for relations too: 1,000 awaiting review, then 403', async () => {
    const cursor = await agentIn(ws, 'agent:cursor@shop');
    // Active records of a person's to relate, and the agent's 999 queued relations between them.
    const records: string[] = [];
    for (let i = 0; i < 40; i++) records.push((await capture(ws.writeToken, `Decision to relate ${i}`)).body.node.id);
    await t.sql.begin(async (sql) => {
      const [row] = await sql<{ id: string }[]>`select doco.new_id('changeset') as id`;
      await sql`insert into doco.changesets (id, workspace_id, actor_id, source) values (${row!.id}, ${ws.id}, ${cursor.id}, 'mcp')`;
      await sql`select set_config('doco.changeset_id', ${row!.id}, true)`;
      await sql`
        insert into doco.edges (id, workspace_id, from_id, to_id, edge_type, lifecycle)
        select doco.new_id('edge'), ${ws.id}, a, b, 'relates_to', 'queued'
          from unnest(${records}::text[]) a, unnest(${records}::text[]) b where a <> b limit ${CAP - 1}`;
    });
    const relate = (from: string, to: string) => api.call('POST', '/api/v1/relate', cursor.token, { from, to, edge_type: 'supports' });
    expect((await relate(records[0]!, records[1]!)).status).toBe(201);
    const refused = expectError(await expectNoWrite(t, () => relate(records[1]!, records[2]!)), 403, 'forbidden');
    expect(refused.message).toMatch(/agent:cursor@shop has 1000 relations awaiting review in this workspace/);
  });

  it('does not count records that go live where agents may activate', async () => {
    const opened = await api.call('PATCH', '/api/v1/collections/notes', ws.writeToken, { agents_may_activate: true });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    const res = await capture(codex.token, 'Live at once');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.node.lifecycle).toBe('active');
  });
});
