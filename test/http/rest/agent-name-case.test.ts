// An agent's name in any case is an agent's (src/auth/principal-name.ts isAgentName,
// sql/agent_review.sql doco.is_agent_principal): a principal is found by its name in any case
// (the unique index on lower(title)), so `AGENT:codex@shop` is the principal `agent:codex@shop`
// names. Were a differently cased one a person, an agent that planted it (a principal record
// captured into `people`) would have the next install's tokens bound to it act as a person's:
// mint tokens, write live, sign in to the console, change the review settings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAgentName, principalNameProblem } from '../../../src/auth/principal-name.js';
import { ensurePrincipal } from '../../../src/auth/workspaces.js';
import { createToken } from '../../../src/auth/tokens.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../../helpers/app.js';
import { consoleClient } from '../../helpers/console.js';
import { createTestDb, type TestDb } from '../../helpers/db.js';

let t: TestDb;
let ws: TestWorkspace;
let http: ReturnType<typeof makeApp>;
let agentToken: string;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'agent-case');
  http = makeApp(t);
  const minted = await http.call('POST', '/api/v1/hooks/tokens', ws.writeToken, { agent: 'codex', checkout: 'shop' });
  expect(minted.status, JSON.stringify(minted.body)).toBe(201);
  agentToken = minted.body.mcp_token;
  const notes = await http.call('POST', '/api/v1/collections', ws.writeToken, {
    slug: 'notes',
    template: 'product-decisions',
    goal: 'Why.',
  });
  expect(notes.status, JSON.stringify(notes.body)).toBe(201);
});
afterAll(async () => t.drop());

const decision = (title: string) => ({ collection: 'notes', node_type: 'decision', title, prose: `${title}, as decided.` });

/** What a token may do that only a person's may: each answer's status. */
async function personPowers(token: string) {
  const capture = await http.call('POST', '/api/v1/capture', token, decision(`Decided with ${token.slice(-6)}`));
  return {
    mint: (await http.call('POST', '/api/v1/hooks/tokens', token, { agent: 'gemini', checkout: 'elsewhere' })).status,
    settings: (await http.call('PATCH', '/api/v1/workspace', token, { agents_may_activate: true })).status,
    captured: capture.body.node?.lifecycle,
    signIn: await signInStatus(token),
  };
}

/** Pasting the token into the console's sign-in form, as a browser does: 303 opens a session. */
async function signInStatus(token: string): Promise<number> {
  const browser = consoleClient(http.app);
  await browser.get('/sign-in');
  return (await browser.post('/sign-in', { token })).status;
}
const AN_AGENT = { mint: 403, settings: 403, captured: 'queued', signIn: 403 };

describe('isAgentName', () => {
  it.each(['agent:codex@shop', 'Agent:codex@shop', 'AGENT:codex@shop', 'aGeNt:x'])('%j is an agent', (name) => {
    expect(isAgentName(name)).toBe(true);
  });
  it.each(['cli:ana', 'agent', 'agents:x', 'cli:agent:x', 'Ana Agent:x', 'agent;x'])('%j is not', (name) => {
    expect(isAgentName(name)).toBe(false);
  });
  it('names the agent after the prefix in any case', () => {
    expect(principalNameProblem('AGENT:')).toMatch(/must name the agent/);
    expect(principalNameProblem('Agent: x')).toMatch(/must name the agent/);
  });
});

describe('an agent cannot become a person by the case of its name', () => {
  it('the real agent token has none of a person’s powers, a person’s all of them (the baseline)', async () => {
    expect(await personPowers(agentToken)).toEqual(AN_AGENT);
    expect(await personPowers(ws.writeToken)).toEqual({ mint: 201, settings: 200, captured: 'active', signIn: 303 });
    await http.call('PATCH', '/api/v1/workspace', ws.writeToken, { agents_may_activate: false });
  });

  it('a principal the agent planted in another case: the next install binds to it, and its tokens are still an agent’s', async () => {
    const planted = await http.call('POST', '/api/v1/capture', agentToken, {
      collection: 'people',
      node_type: 'principal',
      title: 'AGENT:codex@other',
      prose: '',
    });
    // Whether or not a capture may make a principal record, what follows must hold.
    if (planted.status === 201) expect(planted.body.node.title).toBe('AGENT:codex@other');
    const minted = await http.call('POST', '/api/v1/hooks/tokens', ws.writeToken, { agent: 'codex', checkout: 'other' });
    expect(minted.status, JSON.stringify(minted.body)).toBe(201);
    const who = await http.call('GET', '/api/v1/whoami', minted.body.mcp_token);
    expect(who.body.principal.toLowerCase()).toBe('agent:codex@other');
    expect(await personPowers(minted.body.mcp_token)).toEqual(AN_AGENT);
  });

  it('a token of a principal named Agent:… in any case is an agent’s, however it was made', async () => {
    for (const name of ['Agent:claude-code@shop', 'AGENT:gemini@shop']) {
      const principalId = await ensurePrincipal(t.db, ws.id, name, 'cli');
      const token = await createToken(t.db, { workspaceId: ws.id, principalId, scope: 'write' });
      expect(await personPowers(token), name).toEqual(AN_AGENT);
    }
  });

  it('SQL agrees: a psql write naming an Agent:… principal is queued, with no changeset', async () => {
    const principalId = await ensurePrincipal(t.db, ws.id, 'AgEnT:psql@shop', 'cli');
    const [{ id: notes } = { id: '' }] = await t.sql<
      { id: string }[]
    >`select id from doco.collections where workspace_id = ${ws.id} and slug = 'notes'`;
    const [row] = await t.sql<{ lifecycle: string }[]>`
      insert into doco.nodes (id, workspace_id, collection_id, node_type, title, prose, principal_id)
      values (doco.new_id('decision'), ${ws.id}, ${notes}, 'decision', 'Freeze on Fridays', 'No deploys on Fridays.', ${principalId})
      returning lifecycle`;
    expect(row!.lifecycle).toBe('queued');
    const [is] = await t.sql<{ agent: boolean }[]>`select doco.is_agent_principal(${principalId}) as agent`;
    expect(is!.agent).toBe(true);
  });
});
