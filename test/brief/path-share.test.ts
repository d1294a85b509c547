// Why an item is there when it holds none of the ask's own words but the names of the file the
// work touches (the search reads those names as part of the ask): "shares 'frontend', 'ruler'
// with pkg/ruler/frontend_client.go", not "similar to the ask".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Brief, Item } from '../../src/brief/types.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { docSection, writer } from '../helpers/brief-docs.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { drainAll, localProviders } from '../helpers/search.js';

const FILE = 'pkg/ruler/frontend_client.go';
let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
const providers = localProviders();
const ids: Record<string, string> = {};

const post = (path: string, body: unknown) => writer(api, () => ws)(path, body);
const items = (b: Brief): Item[] => Object.values(b.tiers).flat();

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'path-share');
  api = makeApp(t, undefined, providers);
  await post('/collections', { slug: 'docs', template: 'documentation', goal: 'The service documentation' });
  ids.ruler = (
    await post(
      '/capture',
      docSection(
        'docs/guides/rule-evaluation.md',
        'Through the query frontend',
        'The ruler can send its queries through the query frontend, so rule evaluation shares its caching and its splitting.',
      ),
    )
  ).node.id;
  ids.named = (
    await post(
      '/capture',
      docSection(
        'docs/api/headers.md',
        'Accept header',
        'A request that asks for application/json gets JSON; without an accept header it gets the protobuf answer.',
      ),
    )
  ).node.id;
  await drainAll(t.sql, providers);
});

afterAll(async () => {
  await t?.close();
});

describe("an item held by the touched file's names", () => {
  it("says which of the file's names it shares, and an item holding the ask's words what it matched", async () => {
    const res = await api.call('POST', '/api/v1/brief', ws.readToken, {
      about: `Edit ${FILE}: acceptHeader := "application/json"`,
      touching: [FILE],
    });
    expect(res.status).toBe(200);
    const sent = items(res.body as Brief);
    const ruler = sent.find((i) => i.id === ids.ruler);
    expect(ruler, JSON.stringify(sent.map((i) => [i.title, i.because]))).toBeDefined();
    expect(ruler!.because).toBe(`shares 'frontend', 'ruler' with ${FILE}`);
    expect(sent.find((i) => i.id === ids.named)?.because).toMatch(/^matched 'accept', 'header'/);
  });
});
