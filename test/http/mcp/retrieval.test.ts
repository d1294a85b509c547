// doco_brief and doco_search over MCP, driven by the real MCP SDK client against the in-process
// app: listed with their input schemas, the JSON brief and its text rendering, search results,
// and invalid arguments as an error result with validation_failed that stores no brief.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callTool, callToolOk, connectMcp } from '../../helpers/mcp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Brief, Item } from '../../../src/brief/types.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../../helpers/app.js';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { drainAll, localProviders } from '../../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
const providers = localProviders();
const clients: Client[] = [];
const ids: Record<string, string> = {};
const ASK = 'Can a webhook retry a delivery that timed out?';

async function connect(token: string): Promise<Client> {
  const client = await connectMcp(api.app, token);
  clients.push(client);
  return client;
}

const ok = callToolOk;
const briefCount = async () => (await t.sql<{ n: number }[]>`select count(*)::int as n from doco.briefs`)[0]!.n;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'hooks');
  api = makeApp(t, undefined, providers);
  const post = async (path: string, body: unknown) => {
    const res = await api.call('POST', `/api/v1${path}`, ws.writeToken, body);
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    return res.body;
  };
  await post('/collections', { slug: 'platform', template: 'adrs', goal: 'How the platform is built' });
  ids.rule = (
    await post('/capture', {
      collection: 'constitution',
      node_type: 'rule',
      title: 'Webhook deliveries are idempotent',
      prose: 'Every webhook delivery carries an idempotency key; receivers drop repeats.',
    })
  ).node.id;
  ids.decision = (
    await post('/capture', {
      collection: 'platform',
      node_type: 'decision',
      title: 'Webhook retries back off exponentially',
      prose: 'A webhook delivery that timed out is retried with exponential backoff, at most eight times. See src/webhooks/deliver.ts.',
      body: { question: 'How are webhook deliveries retried?' },
    })
  ).node.id;
  ids.reference = (
    await post('/capture', {
      collection: 'platform',
      node_type: 'reference',
      title: 'Webhook timeouts',
      prose: 'A webhook delivery times out after ten seconds.',
    })
  ).node.id;
  await drainAll(t.sql, providers);
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => t.drop());

describe('retrieval tools over MCP', () => {
  it('tools/list includes doco_brief and doco_search with their input schemas', async () => {
    const { tools } = await (await connect(ws.readToken)).listTools();
    const brief = tools.find((tool) => tool.name === 'doco_brief');
    const search = tools.find((tool) => tool.name === 'doco_search');
    expect(brief?.inputSchema.type).toBe('object');
    expect(Object.keys(brief!.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['about', 'touching', 'budget', 'since', 'collection', 'format']),
    );
    expect(brief!.inputSchema.required).toEqual(['about']);
    expect(search?.inputSchema.type).toBe('object');
    expect(Object.keys(search!.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['q', 'type', 'shape', 'collection', 'limit']),
    );
    expect(search!.inputSchema.required).toEqual(['q']);
  });

  it('doco_brief returns the JSON brief, stored, with a read token', async () => {
    const client = await connect(ws.readToken);
    const b = (await ok(client, 'doco_brief', {
      about: ASK,
      touching: ['src/webhooks/deliver.ts'],
      budget: 2000,
      collection: 'platform',
    })) as Brief;
    expect(b).toMatchObject({ about: ASK, touching: ['src/webhooks/deliver.ts'], budget: 2000, since: '7d', warnings: [] });
    expect(b.brief_id).toMatch(/^brief_[0-9A-HJKMNP-TV-Z]{26}$/);
    const tierIds = (tier: keyof Brief['tiers']) => b.tiers[tier].map((i: Item) => i.id);
    expect(tierIds('must_obey')).toEqual(expect.arrayContaining([ids.rule, 'collection:platform']));
    expect(tierIds('already_decided')).toContain(ids.decision);
    expect(b.tiers.already_decided.find((i) => i.id === ids.decision)?.because).toBe('touches src/webhooks/deliver.ts');
    expect(b.stats.sent_tokens).toBeLessThanOrEqual(2000);
    const stored = await api.call('GET', `/api/v1/briefs/${b.brief_id}`, ws.readToken);
    expect(stored.body).toEqual(JSON.parse(JSON.stringify(b)));
  });

  it("doco_brief with format 'text' returns the plain-text rendering ending with the receipt", async () => {
    const client = await connect(ws.readToken);
    const res = await ok(client, 'doco_brief', { about: ASK, format: 'text' });
    expect(Object.keys(res).sort()).toEqual(['brief_id', 'receipt', 'text']);
    expect(res.text).toContain('Must obey');
    expect(res.text).toContain(`  ${ids.rule}  Webhook deliveries are idempotent`);
    expect(res.text).toContain('    because: standing rule');
    expect(res.text.trimEnd().split('\n').at(-1)).toBe(res.receipt);
    const stored = await api.call('GET', `/api/v1/briefs/${res.brief_id}`, ws.readToken);
    expect(stored.body.receipt).toBe(res.receipt);
  });

  it('doco_search returns results best first, filtered', async () => {
    const client = await connect(ws.readToken);
    const all = (await ok(client, 'doco_search', { q: 'webhook delivery timed out retried' })).results as Item[];
    // The idempotency rule shares only "webhook delivery", words every record here has: it scores
    // a sixth of the best, under search's floor (docs/search.md).
    expect(all.map((r) => r.id)).toEqual([ids.decision, ids.reference]);
    for (let i = 1; i < all.length; i++) expect(all[i]!.score).toBeLessThanOrEqual(all[i - 1]!.score);
    const decisions = (await ok(client, 'doco_search', { q: 'webhook', type: 'decision', limit: 5 })).results as Item[];
    expect(decisions.map((r) => r.id)).toEqual([ids.decision]);
    const limited = (await ok(client, 'doco_search', { q: 'webhook', limit: 1 })).results as Item[];
    expect(limited).toHaveLength(1);
  });

  it('invalid arguments are an error result with validation_failed, and no brief is stored', async () => {
    const client = await connect(ws.readToken);
    const before = await briefCount();
    const cases: [string, Record<string, unknown>][] = [
      ['doco_brief', {}],
      ['doco_brief', { about: '' }],
      ['doco_brief', { about: ASK, budget: 10 }],
      ['doco_brief', { about: ASK, since: 'yesterday' }],
      ['doco_brief', { about: ASK, touching: 'src/a.ts' }],
      ['doco_brief', { about: ASK, format: 'html' }],
      ['doco_brief', { about: ASK, unknown_field: true }],
      ['doco_brief', { about: ASK, code_terms: 'WriteSync' }],
      ['doco_brief', { about: ASK, code_terms: [7] }],
      ['doco_brief', { about: ASK, code_terms: ['x'.repeat(101)] }],
      ['doco_brief', { about: ASK, code_terms: Array.from({ length: 33 }, (_, i) => `term_${i}`) }],
      ['doco_search', { q: '' }],
      ['doco_search', { q: 'webhook', type: 'memo' }],
      ['doco_search', { q: 'webhook', limit: 0 }],
      // A misspelt filter must not quietly widen the search.
      ['doco_search', { q: 'webhook', types: 'decision' }],
    ];
    for (const [name, args] of cases) {
      const res = await callTool(client, name, args);
      expect(res.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      const body = res.structuredContent as { error: { code: string; message: string } };
      expect(Object.keys(body)).toEqual(['error']);
      expect(body.error.code).toBe('validation_failed');
      expect(body.error.message).toEqual(expect.any(String));
    }
    const unknown = await callTool(client, 'doco_brief', { about: ASK, collection: 'no-such-collection' });
    expect(unknown.isError).toBe(true);
    expect((unknown.structuredContent as { error: { code: string } }).error.code).toBe('not_found');
    expect(await briefCount()).toBe(before);
  });
});
