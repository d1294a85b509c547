// An edit's code terms reach the brief (docs/brief.md, "Code terms"): a section naming an
// identifier of the code being written in another spelling (max_subscription_clients for
// MaxSubscriptionClients), and sharing few words with the ask, leads the brief and says why;
// without the terms, sections matching the ask's words come first. A name COMMON_CODE_TERM or
// more records hold (one every file has) lifts nothing, and a longer word containing a name
// (`max_subscription_clients_per_ip`) does not count as naming it. A long section there for the
// name sends the passage where it names it, not its opening.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Brief, Item } from '../../src/brief/types.js';
import { codeTermSeeds, COMMON_CODE_TERM } from '../../src/retrieval/code-terms.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { docSection, writer } from '../helpers/brief-docs.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { drainAll, localProviders } from '../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
const providers = localProviders();
let naming: string;
let plural: string;

const post = (path: string, body: unknown) => writer(api, () => ws)(path, body);
const section = docSection;
const items = (b: Brief): Item[] => Object.values(b.tiers).flat();
const ASK = 'Edit rpc/core/env.go: if env.EventBus.Size() >= limit {';

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'code-terms');
  api = makeApp(t, undefined, providers);
  await post('/collections', { slug: 'docs', template: 'documentation', goal: 'The node documentation' });
  naming = (
    await post(
      '/capture',
      section(
        'docs/core/subscription.md',
        'Websocket clients',
        'Raise `max_subscription_clients` when many websocket subscribers connect at once; each holds a buffer of its own.',
      ),
    )
  ).node.id;
  plural = (
    await post(
      '/capture',
      section(
        'docs/core/history.md',
        'Older names',
        'Older releases had several max_subscription_clients_per_ip settings, one for each listener; they were merged.',
      ),
    )
  ).node.id;
  // Sections sharing a word or two with the ask, none naming the code's identifiers.
  const words = ['env', 'limit', 'size', 'env and limit'];
  for (let i = 0; i < 12; i++) {
    await post(
      '/capture',
      section(
        `docs/guides/ops-${i}.md`,
        `Operations ${i}`,
        `Operators set the ${words[i % 4]} of a node in its config file; note ${i} shows a slow one.`,
      ),
    );
  }
  // A name every section holds: `NodeConfig`.
  for (let i = 0; i < COMMON_CODE_TERM; i++) {
    await post(
      '/capture',
      section(`docs/misc/note-${i}.md`, `Note ${i}`, `Note ${i} on the NodeConfig struct and the operators who read it.`),
    );
  }
  await drainAll(t.sql, providers);
});
afterAll(async () => t.drop());

const brief = async (extra: object) => {
  const res = await api.call('POST', '/api/v1/brief', ws.readToken, { about: ASK, touching: ['rpc/core/env.go'], budget: 1500, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return items(res.body as Brief);
};

describe('a brief with code terms', () => {
  it('lifts the section naming an identifier of the code, in its snake_case spelling, and says why', async () => {
    const rank = (list: Item[]) => [...list].sort((a, b) => b.score - a.score).findIndex((i) => i.id === naming);
    const without = await brief({});
    const withTerms = await brief({ code_terms: ['EventBus', 'MaxSubscriptionClients', 'NodeConfig'] });
    // Without the terms, three sections matching the ask's words (and one holding a longer word
    // that contains the name's words) come first; with them, the section naming it leads.
    expect(rank(without)).toBeGreaterThanOrEqual(3);
    expect(rank(withTerms)).toBe(0);
    expect(withTerms.find((i) => i.id === naming)).toMatchObject({ because: 'names `MaxSubscriptionClients`, in the code being written' });
    expect(withTerms.find((i) => i.id === plural)?.because).not.toMatch(/names/);
  });

  it('the seed list: no common name, no longer word containing the name', async () => {
    const list = await codeTermSeeds({ sql: t.sql, ...providers }, ws.id, ['MaxSubscriptionClients', 'NodeConfig']);
    expect(list.ids).toEqual([naming]);
    expect(list.ids).not.toContain(plural);
    expect(list.because.get(naming)).toBe('names `MaxSubscriptionClients`, in the code being written');
  });
});

describe("an edit's line of code", () => {
  it("names none of its keywords or types as what an item matched, nor in the synthesis ('json', 'yaml', 'int')", async () => {
    const formats = (
      await post(
        '/capture',
        section(
          'docs/core/formats.md',
          'Config formats',
          'Operators write the config file as yaml or json; an int field takes a whole number.',
        ),
      )
    ).node.id;
    await drainAll(t.sql, providers);
    const about = 'Edit rpc/core/limits.go: Limit int `json:"limit" yaml:"limit"`';
    const res = await api.call('POST', '/api/v1/brief', ws.readToken, { about, touching: ['rpc/core/limits.go'], budget: 1500 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const b = res.body as Brief;
    expect(items(b).map((i) => i.id)).toContain(formats);
    for (const i of items(b)) expect(i.because).not.toMatch(/'(json|yaml|int)'/);
    expect(b.synthesis.text).not.toMatch(/\b(json|yaml|int)\b/);
    // A prose ask's words are its own: the same section matched by them says so.
    const prose = await api.call('POST', '/api/v1/brief', ws.readToken, { about: 'write the config as yaml or json', budget: 1500 });
    expect(items(prose.body as Brief).find((i) => i.id === formats)?.because).toMatch(/'yaml'|'json'/);
  });
});

describe('a long section there for a code term', () => {
  let other: TestWorkspace;
  let long: string;
  const named = 'The cap on websocket subscribers is max_subscription_clients, read at start.';

  beforeAll(async () => {
    other = await makeWorkspace(t, 'code-terms-passage');
    const write = writer(api, () => other);
    await write('/collections', { slug: 'docs', template: 'documentation', goal: 'The node documentation' });
    // Its opening and most of its text share the ask's words; the name comes ~900 characters in.
    const about = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) => `The env ${tag}${i} sets a size limit the node checks on each event.`).join(' ');
    long = (await write('/capture', section('docs/core/limits.md', 'Limits', `${about(12, 'a')} ${named} ${about(8, 'b')}`))).node.id;
    await drainAll(t.sql, providers);
  });

  it('sends the passage naming it, where without the terms the opening goes', async () => {
    const ask = async (extra: object) => {
      const res = await api.call('POST', '/api/v1/brief', other.readToken, { about: ASK, budget: 1500, ...extra });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return items(res.body as Brief).find((i) => i.id === long)!;
    };
    const without = await ask({});
    expect(without.expanded).toBe(true);
    expect(without.text).not.toContain('max_subscription_clients');
    const withTerms = await ask({ code_terms: ['MaxSubscriptionClients'] });
    expect(withTerms).toMatchObject({ expanded: true, because: 'names `MaxSubscriptionClients`, in the code being written' });
    expect(withTerms.text).toContain(named);
  });
});
