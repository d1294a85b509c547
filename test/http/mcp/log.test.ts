// doco_log over MCP, driven by the real MCP SDK client: a chat ends as one log in agents-chats,
// relates_to the chat it continues, and returns the receipt linking the brief and the writes.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { graphCounts, makeApp, makeWorkspace, type TestWorkspace } from '../../helpers/app.js';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { callTool, callToolOk, connectMcp } from '../../helpers/mcp.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
const clients: Client[] = [];
const ok = callToolOk;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'chatlog');
  api = makeApp(t);
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => t.drop());

async function connect(token: string): Promise<Client> {
  const client = await connectMcp(api.app, token);
  clients.push(client);
  return client;
}

/** Calls a tool that must fail with this error code, and checks it wrote nothing. */
async function failsWith(client: Client, args: Record<string, unknown>, code: string) {
  const before = await graphCounts(t);
  const res = await callTool(client, 'doco_log', args);
  expect(res.isError).toBe(true);
  const body = res.structuredContent as { error: { code: string; message: string; details?: unknown } };
  expect(body.error.code).toBe(code);
  expect(await graphCounts(t)).toEqual(before);
  return body.error;
}

/** A rule captured in the constitution over MCP (queued when the client is an agent's). */
const captureRule = (client: Client, title: string, prose: string) =>
  ok(client, 'doco_capture', { collection: 'constitution', node_type: 'rule', title, prose });

const UNKNOWN_LOG = 'log_01ARZ3NDEKTSV4RRFFQ69G5FAV';
const UNKNOWN_BRIEF = 'brief_01ARZ3NDEKTSV4RRFFQ69G5FAV';

describe('doco_log', () => {
  it('is listed, with summary required', async () => {
    const client = await connect(ws.readToken);
    const { tools } = await client.listTools();
    const log = tools.find((tool) => tool.name === 'doco_log');
    expect(log).toBeDefined();
    expect(log!.inputSchema.type).toBe('object');
    expect(log!.inputSchema.required).toEqual(['summary']);
    expect(Object.keys(log!.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['title', 'summary', 'session_id', 'continues', 'brief_id', 'written']),
    );
  });

  it('writes one log in agents-chats, making the collection on demand', async () => {
    const other = await makeWorkspace(t, 'chatlog-fresh');
    const client = await connect(other.writeToken);
    const before = await api.call('GET', '/api/v1/collections', other.writeToken);
    expect(before.body.collections ?? before.body).not.toContainEqual(expect.objectContaining({ slug: 'agents-chats' }));

    const res = await ok(client, 'doco_log', {
      title: 'Refund routing',
      summary: 'Decided refunds go back to the paying card.',
      session_id: 'sess-1',
    });
    expect(res.node).toMatchObject({
      node_type: 'log',
      collection: 'agents-chats',
      title: 'Refund routing',
      prose: 'Decided refunds go back to the paying card.',
      lifecycle: 'active',
    });
    expect(res.node.id).toMatch(/^log_[0-9A-Z]{26}$/);
    expect(res.node.body).toEqual({ session_id: 'sess-1' });
    expect(res.changeset_id).toMatch(/^changeset_/);
    expect(res.node.changeset_id).toBe(res.changeset_id);
    expect(res.verdicts).toContainEqual(expect.objectContaining({ policy: 'chat-log-has-prose', outcome: 'pass', target: res.node.id }));
    expect(res.receipt).toBe(`[🔮 Doco] · ✍️ Log Refund routing (${res.node.id})`);

    const [col] = await t.sql`select template from doco.collections where workspace_id = ${other.id} and slug = 'agents-chats'`;
    expect(col).toEqual({ template: 'agents-chats' });
    // A second log reuses the collection.
    const second = await ok(client, 'doco_log', { summary: 'Another chat.' });
    expect(second.node.collection).toBe('agents-chats');
    const [row] = await t.sql<
      { n: number }[]
    >`select count(*)::int as n from doco.collections where workspace_id = ${other.id} and slug = 'agents-chats'`;
    expect(row!.n).toBe(1);
  });

  it('continues → a relates_to edge to the earlier chat, in the same changeset', async () => {
    const client = await connect(ws.writeToken);
    const first = await ok(client, 'doco_log', { summary: 'Started the refunds work.' });
    const next = await ok(client, 'doco_log', { summary: 'Finished the refunds work.', continues: first.node.id });
    const got = await ok(client, 'doco_get', { id: next.node.id });
    const edge = got.edges.find((e: { edge_type: string }) => e.edge_type === 'relates_to');
    expect(edge).toMatchObject({ from: next.node.id, to: first.node.id, lifecycle: 'active' });
    const [row] = await t.sql`select changeset_id from doco.edges where id = ${edge.id}`;
    expect(row!.changeset_id).toBe(next.changeset_id);
  });

  it('the receipt is the brief’s stored receipt line, then every record written, the log included', async () => {
    const client = await connect(ws.writeToken);
    const brief = await ok(client, 'doco_brief', { about: 'Where do refunds go?' });
    expect(brief.brief_id).toMatch(/^brief_/);
    const decision = await captureRule(
      client,
      'Refunds go back to the card',
      'Refunds, partial ones included, go back to the card that paid.',
    );
    const idea = await captureRule(client, 'Refunds are logged', 'Every refund is logged.');

    const res = await ok(client, 'doco_log', {
      title: 'Refunds chat',
      summary: 'Wrote the refund rules.',
      brief_id: brief.brief_id,
      written: [decision.node.id, idea.node.id],
    });
    expect(res.node.body).toEqual({ brief_id: brief.brief_id, written: [decision.node.id, idea.node.id] });
    const [stored] = await t.sql`select receipt from doco.briefs where id = ${brief.brief_id}`;
    expect(stored!.receipt).toMatch(/^\[🔮 Doco\] briefed: /);
    expect(res.receipt).toBe(
      `${stored!.receipt} · ✍️ Rule Refunds go back to the card (${decision.node.id}), Rule Refunds are logged (${idea.node.id}), Log Refunds chat (${res.node.id})`,
    );
    expect(res.receipt.split('\n')).toHaveLength(1);
  });

  it('an unknown brief, continued chat or written record is not_found and writes nothing', async () => {
    const other = await makeWorkspace(t, 'chatlog-empty');
    const client = await connect(other.writeToken);
    await failsWith(client, { summary: 'x', brief_id: UNKNOWN_BRIEF }, 'not_found');
    await failsWith(client, { summary: 'x', continues: UNKNOWN_LOG }, 'not_found');
    await failsWith(client, { summary: 'x', written: ['rule_01ARZ3NDEKTSV4RRFFQ69G5FAV'] }, 'not_found');
    // Nothing written, not even the on-demand collection.
    const cols = await t.sql`select 1 from doco.collections where workspace_id = ${other.id} and slug = 'agents-chats'`;
    expect(cols).toHaveLength(0);
  });

  it('a retired chat cannot be continued, and the refusal writes nothing, not even the chats’ collection', async () => {
    const other = await makeWorkspace(t, 'chatlog-retired');
    const client = await connect(other.writeToken);
    const [collection] = await t.sql<{ id: string }[]>`
      insert into doco.collections (id, workspace_id, slug, template, name, goal)
      values (doco.new_id('collection'), ${other.id}, 'doc-alignment', 'evals', 'Doc alignment', 'Which docs expect changed code.') returning id`;
    const [log] = await t.sql<{ id: string }[]>`
      insert into doco.nodes (id, workspace_id, collection_id, node_type, lifecycle, title, prose)
      values (doco.new_id('log'), ${other.id}, ${collection!.id}, 'log', 'retired', 'An old report', 'Nothing left to settle.') returning id`;
    await failsWith(client, { summary: 'x', continues: log!.id }, 'lifecycle_violation');
    const cols = await t.sql`select 1 from doco.collections where workspace_id = ${other.id} and slug = 'agents-chats'`;
    expect(cols).toHaveLength(0);
  });

  it('continues must name a log of this workspace', async () => {
    const writer = await connect(ws.writeToken);
    const rule = await ok(writer, 'doco_capture', { collection: 'constitution', node_type: 'rule', prose: 'Not a chat log.' });
    await failsWith(writer, { summary: 'x', continues: rule.node.id }, 'not_found');
    const mine = await ok(writer, 'doco_log', { summary: 'A chat in this workspace.' });
    const brief = await ok(writer, 'doco_brief', { about: 'anything' });

    const other = await makeWorkspace(t, 'chatlog-stranger');
    const stranger = await connect(other.writeToken);
    const err = await failsWith(stranger, { summary: 'x', continues: mine.node.id }, 'not_found');
    expect(JSON.stringify(err)).not.toContain('A chat in this workspace.');
    await failsWith(stranger, { summary: 'x', brief_id: brief.brief_id }, 'not_found');
    await failsWith(stranger, { summary: 'x', written: [rule.node.id] }, 'not_found');
  });

  it('an agent’s log links only a brief it was sent and records it wrote; a person’s may name others', async () => {
    const other = await makeWorkspace(t, 'chatlog-agent');
    const person = await connect(other.writeToken);
    const personsBrief = await ok(person, 'doco_brief', { about: 'Where do refunds go?' });
    const personsRule = await captureRule(person, 'Refunds go back to the card', 'Refunds go back to the card that paid.');
    const minted = await api.call('POST', '/api/v1/hooks/tokens', other.writeToken, { agent: 'codex', checkout: 'shop' });
    expect(minted.status, JSON.stringify(minted.body)).toBe(201);
    const agent = await connect(minted.body.mcp_token);

    const notRead = await failsWith(agent, { summary: 'x', brief_id: personsBrief.brief_id }, 'forbidden');
    expect(notRead.message).toContain(personsBrief.brief_id);
    const notWritten = await failsWith(agent, { summary: 'x', written: [personsRule.node.id] }, 'forbidden');
    expect(notWritten.message).toContain(personsRule.node.id);
    expect(notWritten.details).toEqual({ others: [personsRule.node.id] });

    // Its own brief and its own proposal (a version by its principal) it may link and list.
    const own = await ok(agent, 'doco_brief', { about: 'Where do refunds go?' });
    const proposal = await captureRule(agent, 'Refunds are logged', 'Every refund is logged.');
    const logged = await ok(agent, 'doco_log', { summary: 'Proposed a rule.', brief_id: own.brief_id, written: [proposal.node.id] });
    expect(logged.node.body).toEqual({ brief_id: own.brief_id, written: [proposal.node.id] });

    // The person's log may link the agent's brief and list the agent's record.
    const personsLog = await ok(person, 'doco_log', { summary: 'Reviewed.', brief_id: own.brief_id, written: [proposal.node.id] });
    expect(personsLog.node.body).toEqual({ brief_id: own.brief_id, written: [proposal.node.id] });
  });

  it('a read token gets forbidden', async () => {
    const reader = await connect(ws.readToken);
    await failsWith(reader, { summary: 'Readers cannot log.' }, 'forbidden');
  });

  it('invalid input is validation_failed', async () => {
    const client = await connect(ws.writeToken);
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'summary'],
      [{ summary: '   ' }, 'summary'],
      [{ summary: 'x', continues: 'not-an-id' }, 'continues'],
      [{ summary: 'x', brief_id: 42 }, 'brief_id'],
      [{ summary: 'x', written: 'rule_01ARZ3NDEKTSV4RRFFQ69G5FAV' }, 'written'],
      [{ summary: 'x', written: ['nope'] }, 'written.0'],
      [{ summary: 'x', title: '' }, 'title'],
      [{ summary: 'x', collection: 'arch' }, ''],
    ];
    for (const [args, path] of cases) {
      const err = await failsWith(client, args, 'validation_failed');
      expect(err.details, JSON.stringify(args)).toMatchObject({ issues: [expect.objectContaining(path ? { path } : {})] });
    }
  });
});
