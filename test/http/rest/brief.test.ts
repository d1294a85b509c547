// Retrieval over REST (docs/brief.md): GET /brief.json, POST /brief, GET /briefs/:id and
// GET /search — the stable JSON shape, the plain-text rendering, the budget, the target
// collection, workspace isolation, and bad input refused with nothing stored.
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Brief, Item } from '../../../src/brief/types.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../../helpers/app.js';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { expectError } from '../../helpers/expect-error.js';
import { drainAll, localProviders } from '../../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
const providers = localProviders();
const ids: Record<string, string> = {};
const guides: string[] = [];
const principles: string[] = [];
const LONG = Array.from(
  { length: 30 },
  (_, i) => `Invoice numbers restart every year; clause ${i} explains why auditors want gapless sequences per year.`,
).join(' ');
const ASK = 'How are invoices numbered and rendered?';

const ITEM_KEYS = ['id', 'node_type', 'collection', 'lifecycle', 'title', 'text', 'expanded', 'because', 'score', 'updated_at', 'source'];
const RECEIPT = /^\[🔮 Doco\] briefed: \d+ items, \d+ held back · searched [\d.]+[KMB]? tokens, sent [\d.]+[KMB]? \([\d.]+s\)$/;

const post = async (path: string, body: unknown) => {
  const res = await api.call('POST', `/api/v1${path}`, ws.writeToken, body);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body;
};
const ok = async (method: string, path: string, body?: unknown, token = ws.readToken) => {
  const res = await api.call(method, path, token, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const briefCount = async () => (await t.sql<{ n: number }[]>`select count(*)::int as n from doco.briefs`)[0]!.n;
const latestReceipt = async () =>
  (await t.sql<{ r: string }[]>`select receipt as r from doco.briefs order by created_at desc limit 1`)[0]!.r;
const itemsOf = (b: Brief) => Object.values(b.tiers).flat();
const text = async (path: string, init: RequestInit = {}) => {
  const res = await api.app.request(path, {
    ...init,
    headers: { authorization: `Bearer ${ws.readToken}`, ...(init.headers as Record<string, string>) },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  return res.text();
};

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'shop');
  api = makeApp(t, undefined, providers);
  await post('/collections', { slug: 'shop-money', template: 'product-decisions', goal: 'How the shop handles money' });
  await post('/collections', { slug: 'shop-docs', template: 'documentation', goal: 'Reference' });
  await post('/collections', { slug: 'shop-arch', template: 'architecture-principles', goal: 'How the shop is built' });
  ids.rule = (
    await post('/capture', {
      collection: 'constitution',
      node_type: 'rule',
      title: 'Invoices are immutable once sent',
      prose: 'A sent invoice is never edited; corrections are credit notes.',
    })
  ).node.id;
  ids.decision = (
    await post('/capture', {
      collection: 'shop-money',
      node_type: 'decision',
      title: 'Invoices are numbered per year',
      prose: LONG,
      body: { question: 'How are invoices numbered?' },
    })
  ).node.id;
  ids.touched = (
    await post('/capture', {
      collection: 'shop-docs',
      node_type: 'reference',
      title: 'Numbering code',
      prose: 'The sequence lives in src/invoices/number.ts.',
    })
  ).node.id;
  ids.quarterly = (
    await post('/capture', {
      collection: 'shop-docs',
      node_type: 'reference',
      title: 'Quarterly reconciliation',
      prose: 'Finance runs the quarterly reconciliation of invoices against the bank.',
    })
  ).node.id;
  for (let i = 0; i < 14; i++) {
    guides.push(
      (
        await post('/capture', {
          collection: 'shop-docs',
          node_type: 'reference',
          title: `Invoice guide ${i}`,
          prose: `Guide ${i}: how invoices are rendered to PDF. ${'Each invoice shows the customer, the lines and the taxes. '.repeat(8)}`,
        })
      ).node.id,
    );
  }
  for (const title of ['Invoices render on the server', 'Invoice numbers come from the database']) {
    principles.push(
      (
        await post('/capture', {
          collection: 'shop-arch',
          node_type: 'rule',
          title,
          prose: `${title}, never in the browser.`,
          body: { shape: 'architecturePrinciple' },
        })
      ).node.id,
    );
  }
  ids.docSection = (
    await post('/capture', {
      collection: 'shop-docs',
      node_type: 'reference',
      title: 'Invoice section',
      prose: 'How invoices look.',
      body: { shape: 'docSection' },
    })
  ).node.id;
  ids.spreadsheet = (
    await post('/capture', {
      collection: 'shop-docs',
      node_type: 'reference',
      title: 'Spreadsheet numbering',
      prose: 'Invoices were once numbered in a shared spreadsheet.',
    })
  ).node.id;
  await drainAll(t.sql, providers);
});
afterAll(async () => t.drop());

describe('the brief over REST', () => {
  it('GET /brief.json answers the exact JSON shape of docs/brief.md', async () => {
    const b = await ok(
      'GET',
      `/api/v1/brief.json?about=${encodeURIComponent(ASK)}&touching=src/invoices/render.ts&touching=src/invoices/number.ts&budget=3000`,
    );
    // docs/brief.md's keys, plus `timings` (milliseconds per step, for diagnosis); `proposed`
    // (relevant proposals, apart from the tiers) is there even when empty.
    expect(Object.keys(b).sort()).toEqual([
      'about',
      'brief_id',
      'budget',
      'gaps',
      'proposed',
      'receipt',
      'since',
      'stats',
      'synthesis',
      'tiers',
      'timings',
      'touching',
      'warnings',
    ]);
    for (const ms of Object.values(b.timings)) expect(ms).toEqual(expect.any(Number));
    // The embedded store's own steps come with the vector seed's time.
    expect(Object.keys(b.timings)).toEqual(
      expect.arrayContaining([
        'seeds',
        'seed_vector',
        'seed_vector_bm25',
        'seed_vector_dense',
        'fuse',
        'rerank_and_synthesis',
        'tiers',
        'budget_and_gaps',
      ]),
    );
    expect(b).toMatchObject({
      about: ASK,
      touching: ['src/invoices/render.ts', 'src/invoices/number.ts'],
      budget: 3000,
      since: '7d',
      warnings: [],
    });
    expect(b.brief_id).toMatch(/^brief_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(Object.keys(b.tiers)).toEqual(['must_obey', 'already_decided', 'in_motion', 'background']);
    expect(b.proposed).toEqual([]);
    expect(Object.keys(b.stats).sort()).toEqual(['candidates', 'elapsed_ms', 'held_back', 'items', 'searched_tokens', 'sent_tokens']);
    for (const n of Object.values(b.stats)) expect(Number.isInteger(n)).toBe(true);
    expect(Object.keys(b.synthesis).sort()).toEqual(['cites', 'text']);
    expect(b.gaps).toEqual(expect.any(Array));
    expect(b.receipt).toMatch(RECEIPT);
    const items = itemsOf(b);
    expect(b.stats.items).toBe(items.length);
    for (const item of items) {
      expect(Object.keys(item).sort()).toEqual([...ITEM_KEYS].sort());
      expect(Object.keys(item.source).sort()).toEqual(['kind', 'pointer']);
      expect(item).toMatchObject({ expanded: expect.any(Boolean), score: expect.any(Number), because: expect.any(String) });
      expect(new Date(item.updated_at).toISOString()).toBe(item.updated_at);
    }
    const byId = new Map<string, Item>(items.map((i: Item) => [i.id, i]));
    expect(byId.get(ids.rule!)).toMatchObject({
      node_type: 'rule',
      collection: 'constitution',
      lifecycle: 'active',
      because: 'standing rule',
      source: { kind: 'record', pointer: {} },
    });
    expect(byId.get(ids.touched!)?.because).toBe('touches src/invoices/number.ts');
    expect(b.tiers.already_decided.map((i: Item) => i.id)).toContain(ids.decision);
  });

  it('POST /brief answers the same shape and stores it; GET /briefs/:id returns it', async () => {
    const b = await ok('POST', '/api/v1/brief', { about: ASK, touching: ['src/invoices/number.ts'], since: '2d' });
    expect(b).toMatchObject({ about: ASK, touching: ['src/invoices/number.ts'], budget: 4000, since: '2d' });
    expect(await ok('GET', `/api/v1/briefs/${b.brief_id}`)).toEqual(b);
    const last = (await text(`/api/v1/briefs/${b.brief_id}?format=text`)).trimEnd().split('\n').at(-1);
    expect(last).toBe(b.receipt);
    // The JSON stored is the JSON sent, with JSON's content type.
    const res = await api.app.request('/api/v1/brief.json?about=refunds', { headers: { authorization: `Bearer ${ws.readToken}` } });
    expect(res.headers.get('content-type')).toBe('application/json');
    const sent = await res.text();
    const [stored] = await t.sql<{ deflated: Buffer }[]>`
      select response_deflated as deflated from doco.briefs where id = ${(JSON.parse(sent) as Brief).brief_id}`;
    expect(inflateRawSync(stored!.deflated).toString('utf8')).toBe(sent);
  });

  it('plain text for ?format=text and for Accept: text/plain, ending with the receipt line', async () => {
    const viaQuery = await text(`/api/v1/brief.json?about=${encodeURIComponent(ASK)}&format=text`);
    expect(viaQuery).toContain('Must obey');
    expect(viaQuery).toContain(`  ${ids.rule}  Invoices are immutable once sent`);
    expect(viaQuery).toContain('    because: standing rule');
    expect(viaQuery.trimEnd().split('\n').at(-1)).toBe(await latestReceipt());
    const viaAccept = await text('/api/v1/brief', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/plain' },
      body: JSON.stringify({ about: ASK }),
    });
    expect(viaAccept.trimEnd().split('\n').at(-1)).toBe(await latestReceipt());
    expect(viaAccept.trimEnd().split('\n').at(-1)).toMatch(RECEIPT);
  });

  it('another workspace cannot read a brief; a malformed id is a 400', async () => {
    const b = await ok('POST', '/api/v1/brief', { about: ASK });
    const other = await makeWorkspace(t, 'other-shop');
    const err = expectError(await api.call('GET', `/api/v1/briefs/${b.brief_id}`, other.readToken), 404, 'not_found');
    expect(JSON.stringify(err)).not.toContain(ASK);
    expectError(await api.call('GET', '/api/v1/briefs/brief_nope', ws.readToken), 400, 'validation_failed');
    expectError(await api.call('GET', '/api/v1/briefs/decision_01ARZ3NDEKTSV4RRFFQ69G5FAV', ws.readToken), 400, 'validation_failed');
  });

  it("honours the budget: expanded items within the budget's passage length, sent tokens within it, the rest held back", async () => {
    const big = await ok('POST', '/api/v1/brief', { about: ASK, budget: 4000 });
    const small = await ok('POST', '/api/v1/brief', { about: ASK, budget: 200 });
    for (const b of [big, small]) expect(b.stats.sent_tokens).toBeLessThanOrEqual(b.budget);
    expect(small.stats.items).toBeLessThan(big.stats.items);
    expect(small.stats.held_back).toBeGreaterThan(0);
    expect(small.stats.items + small.stats.held_back).toBe(big.stats.items + big.stats.held_back);
    const expanded = itemsOf(big).filter((i: Item) => i.expanded);
    expect(expanded.length).toBeGreaterThan(0);
    // At 4,000 tokens the first items sent in full are passages of at most 600 characters (src/brief/budget.ts).
    for (const item of expanded) expect(item.text.length).toBeLessThanOrEqual(600);
    const decision = itemsOf(big).find((i: Item) => i.id === ids.decision)!;
    expect(LONG.length).toBeGreaterThan(2400);
    expect(decision.text.length).toBeGreaterThan(300);
    // Cut: its opening ending in "…", or the passage naming the ask starting with one.
    expect(decision.text).toMatch(/^…|…$/);
  });

  it('a target collection adds its goal and policies to must obey; an unknown one is a 404', async () => {
    const b = await ok('POST', '/api/v1/brief', { about: ASK, collection: 'shop-money' });
    const mustObey = new Map<string, Item>(b.tiers.must_obey.map((i: Item) => [i.id, i]));
    expect(mustObey.get('collection:shop-money')).toMatchObject({
      text: 'How the shop handles money',
      because: 'goal of the target collection',
    });
    expect(mustObey.get('policy:shop-money/decision-has-prose')?.because).toBe('policy of the target collection');
    expect(mustObey.get('policy:shop-money/decision-is-settled')?.text).toContain('states what was decided');
    const before = await briefCount();
    expectError(await api.call('POST', '/api/v1/brief', ws.readToken, { about: ASK, collection: 'no-such-collection' }), 404, 'not_found');
    expect(await briefCount()).toBe(before);
  });

  it('refuses bad input with a 400 and the error shape, storing nothing', async () => {
    const before = await briefCount();
    const bad: unknown[] = [
      { about: '' },
      { about: '   ' },
      {},
      { about: ASK, budget: 10 },
      { about: ASK, budget: 'abc' },
      { about: ASK, budget: 4000.5 },
      { about: ASK, since: 'yesterday' },
      { about: ASK, touching: 'src/a.ts' },
      { about: ASK, touching: [''] },
      { about: ASK, unknown_field: 1 },
      { about: ASK, deadline_ms: 0 },
      { about: ASK, collection: 'Not A Slug' },
    ];
    for (const body of bad) {
      const err = expectError(await api.call('POST', '/api/v1/brief', ws.readToken, body), 400, 'validation_failed');
      expect(err.message, JSON.stringify(body)).toBeTruthy();
    }
    // code_terms: a list of at most 32 identifiers of at most 100 characters; each refusal names the field.
    const badTerms: [unknown, RegExp][] = [
      ['WriteSync', /code_terms/],
      [[42], /code_terms\.0/],
      [[''], /code_terms\.0 must not be empty/],
      [['two words'], /code_terms\.0 must be an identifier/],
      [['x'.repeat(101)], /code_terms\.0 must be at most 100 characters/],
      [Array.from({ length: 33 }, (_, i) => `term_${i}`), /code_terms must list at most 32 identifiers/],
    ];
    for (const [terms, says] of badTerms) {
      const err = expectError(
        await api.call('POST', '/api/v1/brief', ws.readToken, { about: ASK, code_terms: terms }),
        400,
        'validation_failed',
      );
      expect(err.message, JSON.stringify(terms)).toMatch(says);
    }
    expectError(
      await api.call('GET', `/api/v1/brief.json?about=${encodeURIComponent(ASK)}&code_terms=two%20words`, ws.readToken),
      400,
      'validation_failed',
    );
    const q = encodeURIComponent(ASK);
    for (const query of [
      'about=',
      '',
      `about=${q}&budget=10`,
      `about=${q}&budget=abc`,
      `about=${q}&since=yesterday`,
      `about=${q}&deadline_ms=0`,
    ]) {
      expectError(await api.call('GET', `/api/v1/brief.json?${query}`, ws.readToken), 400, 'validation_failed');
    }
    expect(await briefCount()).toBe(before);
  });

  it('401 without a token; a read token may brief', async () => {
    const before = await briefCount();
    expectError(await api.call('POST', '/api/v1/brief', undefined, { about: ASK }), 401, 'unauthorized');
    expectError(await api.call('GET', `/api/v1/brief.json?about=x`, undefined), 401, 'unauthorized');
    expectError(await api.call('GET', '/api/v1/search?q=invoice', undefined), 401, 'unauthorized');
    expect(await briefCount()).toBe(before);
    const b = await ok('POST', '/api/v1/brief', { about: ASK }, ws.readToken);
    const [row] = await t.sql<
      { principal_id: string; workspace_id: string }[]
    >`select principal_id, workspace_id from doco.briefs where id = ${b.brief_id}`;
    expect(row).toEqual({ principal_id: ws.principalId, workspace_id: ws.id });
  });
});

describe('GET /search', () => {
  const search = async (query: string) => (await ok('GET', `/api/v1/search?${query}`)).results as Item[];

  it('one item per record, best first, in the Item shape', async () => {
    const results = await search('q=invoices%20numbered%20per%20year&limit=50');
    const resultIds = results.map((r) => r.id);
    expect(new Set(resultIds).size).toBe(resultIds.length);
    // The long decision has several chunks, yet it is one result, and the best one.
    expect(resultIds.filter((id) => id === ids.decision)).toHaveLength(1);
    expect(resultIds[0]).toBe(ids.decision);
    for (let i = 1; i < results.length; i++) expect(results[i]!.score).toBeLessThanOrEqual(results[i - 1]!.score);
    for (const r of results) expect(Object.keys(r).sort()).toEqual([...ITEM_KEYS].sort());
    expect((await search('q=quarterly%20reconciliation'))[0]!.id).toBe(ids.quarterly);
  });

  it('filters by type, shape and collection, and honours limit and text_chars', async () => {
    const decisions = await search('q=invoices&type=decision');
    expect(decisions.map((r) => r.id)).toEqual([ids.decision]);
    // A proposal shaped as a principle is no principle until approved.
    const captured = await api.call('POST', '/api/v1/capture', ws.writeToken, {
      collection: 'shop-docs',
      node_type: 'reference',
      lifecycle: 'queued',
      title: 'Invoices skip the approval step',
      prose: 'Invoices are numbered per year and skip the approval step.',
      body: { shape: 'architecturePrinciple', source_kind: 'doc' },
    });
    expect(captured.status, JSON.stringify(captured.body)).toBe(201);
    const proposal = captured.body;
    expect(proposal.node.lifecycle).toBe('queued');
    await drainAll(t.sql, providers);
    const shaped = await search('q=invoices&shape=architecturePrinciple&limit=4');
    expect(shaped.map((r) => r.id).sort()).toEqual([...principles].sort());

    const docs = await search('q=invoices&collection=shop-docs&limit=100');
    expect(docs.length).toBeGreaterThan(10);
    for (const r of docs) expect(r.collection).toBe('shop-docs');
    expect(docs.map((r) => r.id)).toContain(ids.docSection);
    expectError(await api.call('GET', '/api/v1/search?q=invoices&collection=no-such', ws.readToken), 404, 'not_found');
    expect(await search('q=invoices&limit=3')).toHaveLength(3);
    expect((await search('q=invoices')).length).toBe(10);
    const clipped = await search('q=invoices%20numbered%20per%20year&type=decision&text_chars=400');
    // Cut at a sentence end or a word (src/retrieval/result-text.ts), marked.
    expect(clipped[0]!.text.length).toBeLessThanOrEqual(400);
    expect(clipped[0]!.text.length).toBeGreaterThan(240);
    expect(clipped[0]!.text.endsWith('…')).toBe(true);
    for (const r of await search('q=invoices&text_chars=400&limit=100')) expect(r.text.length).toBeLessThanOrEqual(400);
  });

  it('never returns a retired record, even while the index still holds it', async () => {
    expect((await search('q=spreadsheet')).map((r) => r.id)).toContain(ids.spreadsheet);
    await post('/changeset', { operations: [{ op: 'retire', target: ids.spreadsheet }] });
    // No drain: the vector index still has the retired record's chunks.
    expect((await search('q=spreadsheet%20numbering&limit=100')).map((r) => r.id)).not.toContain(ids.spreadsheet);
    const b = await ok('POST', '/api/v1/brief', { about: 'spreadsheet numbering' });
    expect(itemsOf(b).map((i: Item) => i.id)).not.toContain(ids.spreadsheet);
  });

  it('refuses a bad type, limit, q or text_chars with a 400', async () => {
    for (const query of [
      'q=x&type=memo',
      'q=x&limit=0',
      'q=x&limit=abc',
      'q=x&limit=101',
      'q=x&limit=2.5',
      'q=',
      '',
      'q=x&text_chars=10',
      'q=x&shape=not%20a%20shape',
    ]) {
      expectError(await api.call('GET', `/api/v1/search?${query}`, ws.readToken), 400, 'validation_failed');
    }
  });
});
