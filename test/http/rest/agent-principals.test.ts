// Who is who is a person's to say (sql/agent_review.sql): an agent writes no principal record,
// whatever agents may activate. Planted by an agent, `cli:bob` was the record Bob's next CLI
// command or install bound to (auth/workspaces.ts ensurePrincipal finds a principal by name before
// making one); where agents may activate, an agent could have renamed its own principal to a
// person's name or retired a person's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePrincipal } from '../../../src/auth/workspaces.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../../helpers/app.js';
import { createTestDb, type TestDb } from '../../helpers/db.js';

let t: TestDb;
let ws: TestWorkspace;
let http: ReturnType<typeof makeApp>;
let agentToken: string;
let agentPrincipal: string;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'agent-principals');
  http = makeApp(t);
  const minted = await http.call('POST', '/api/v1/hooks/tokens', ws.writeToken, { agent: 'codex', checkout: 'shop' });
  expect(minted.status, JSON.stringify(minted.body)).toBe(201);
  agentToken = minted.body.mcp_token;
  const [row] = await t.sql<{ id: string }[]>`
    select id from doco.nodes where workspace_id = ${ws.id} and node_type = 'principal' and title = 'agent:codex@shop'`;
  agentPrincipal = row!.id;
});
afterAll(async () => t.drop());

const principalsNamed = async (name: string) =>
  (
    await t.sql<{ n: number }[]>`
      select count(*)::int as n from doco.nodes where workspace_id = ${ws.id} and node_type = 'principal' and lower(title) = ${name}`
  )[0]!.n;

const plant = (token: string, title: string) =>
  http.call('POST', '/api/v1/capture', token, { collection: 'people', node_type: 'principal', title, prose: 'Bob, on the billing team.' });

describe('principal records are a person’s to write', () => {
  for (const mayActivate of [false, true]) {
    describe(`agents_may_activate ${mayActivate}`, () => {
      beforeAll(async () => {
        const set = await http.call('PATCH', '/api/v1/workspace', ws.writeToken, { agents_may_activate: mayActivate });
        expect(set.status, JSON.stringify(set.body)).toBe(200);
      });

      it('an agent cannot plant the name a person will use, over REST or in a changeset', async () => {
        const bobName = `cli:bob-${mayActivate}`;
        const planted = await plant(agentToken, bobName);
        expect(planted.status, JSON.stringify(planted.body)).toBe(403);
        expect(planted.body.error.code).toBe('forbidden');
        const inChangeset = await http.call('POST', '/api/v1/changeset', agentToken, {
          collection: 'people',
          operations: [{ op: 'create', node_type: 'principal', title: bobName, prose: '' }],
        });
        expect(inChangeset.status, JSON.stringify(inChangeset.body)).toBe(403);
        expect(await principalsNamed(bobName)).toBe(0);
        // Bob's first command makes his own.
        const bob = await ensurePrincipal(t.db, ws.id, bobName, 'cli');
        const [row] = await t.sql<{ lifecycle: string; author: string | null }[]>`
          select lifecycle, doco.record_author(id) as author from doco.nodes where id = ${bob}`;
        expect(row!.lifecycle).toBe('active');
        expect(row!.author).not.toBe(agentPrincipal);
      });

      it('an agent cannot rename, append to or retire a principal, its own included', async () => {
        const ana = await ensurePrincipal(t.db, ws.id, `cli:ana-${mayActivate}`, 'cli');
        for (const target of [agentPrincipal, ana]) {
          for (const op of [
            { op: 'append', target, prose: 'Now a person.' },
            { op: 'retire', target },
            { op: 'supersede', target, node_type: 'principal', title: 'cli:codex', prose: '' },
          ]) {
            const res = await http.call('POST', '/api/v1/changeset', agentToken, { collection: 'people', operations: [op] });
            expect(res.status, `${op.op} ${target}: ${JSON.stringify(res.body)}`).toBe(403);
          }
        }
        const rows = await t.sql<{ title: string; lifecycle: string; prose: string }[]>`
          select title, lifecycle, prose from doco.nodes where id in (${agentPrincipal}, ${ana}) order by title`;
        expect(rows).toEqual([
          { title: 'agent:codex@shop', lifecycle: 'active', prose: '' },
          { title: `cli:ana-${mayActivate}`, lifecycle: 'active', prose: '' },
        ]);
        expect(await principalsNamed('cli:codex')).toBe(0);
      });

      it('a person still writes principal records', async () => {
        const made = await plant(ws.writeToken, `cli:carol-${mayActivate}`);
        expect(made.status, JSON.stringify(made.body)).toBe(201);
        expect(made.body.node.lifecycle).toBe('active');
      });
    });
  }
});
