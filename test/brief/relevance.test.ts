// Relevance decides what a brief sends (docs/brief.md): on a docs tree heavy with architecture
// sections, a vague ask touching types/genesis.go gets the one section naming that file in
// full; at most four architecture principles stand under must obey; the constitution is always
// there, as one line when it has no bearing on the ask; unrelated records are not sent at all;
// a folder match ranks below the file match.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PRINCIPLES, PRINCIPLE_FLOOR } from '../../src/brief/tiers.js';
import type { Brief, Item } from '../../src/brief/types.js';
import type { Synthesizer } from '../../src/providers/synthesizer.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { drainAll, localProviders } from '../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
const providers = localProviders();
const ids: Record<string, string> = {};
const principles: string[] = [];
const noise: string[] = [];

const post = async (path: string, body: unknown) => {
  const res = await api.call('POST', `/api/v1${path}`, ws.writeToken, body);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body;
};
const section = (path: string, heading: string, prose: string, shape: 'architecturePrinciple' | 'docSection') => ({
  collection: 'docs',
  node_type: 'reference',
  title: `${path} — ${heading}`,
  prose,
  body: {
    shape,
    source_kind: 'doc',
    source_type: 'doc_expectation',
    pointer: { path, heading, section_key: `${path}#${heading.toLowerCase()}` },
  },
});
const brief = async (body: Record<string, unknown>): Promise<Brief> => {
  const res = await api.call('POST', '/api/v1/brief', ws.readToken, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Brief;
};
const items = (b: Brief): (Item & { tier: string })[] =>
  Object.entries(b.tiers).flatMap(([tier, list]) => list.map((i) => ({ ...i, tier })));

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'relevance');
  api = makeApp(t, undefined, providers);
  await post('/collections', { slug: 'docs', template: 'documentation', goal: "The chain's documentation" });
  ids.rule = (
    await post('/capture', {
      collection: 'constitution',
      node_type: 'rule',
      title: 'Never log card numbers',
      prose: 'Card numbers never appear in logs, traces or error messages.',
    })
  ).node.id;
  // Twelve ADR sections that all talk about validation, none about the genesis file.
  const topics = [
    'blocks',
    'votes',
    'evidence',
    'light client headers',
    'commits',
    'proposals',
    'transactions',
    'peers',
    'snapshots',
    'chunks',
    'consensus params',
    'validator sets',
  ];
  for (const [i, topic] of topics.entries()) {
    principles.push(
      (
        await post(
          '/capture',
          section(
            `docs/architecture/adr-${100 + i}.md`,
            `Validation of ${topic}`,
            `We validate ${topic} before they are accepted: every field is checked, and validation errors are returned to the caller with the field that failed. This keeps invalid ${topic} out of the state.`,
            'architecturePrinciple',
          ),
        )
      ).node.id,
    );
  }
  ids.genesis = (
    await post(
      '/capture',
      section(
        'docs/core/genesis.md',
        'Genesis file',
        'The genesis document is parsed and checked in types/genesis.go: chain id, initial height, the consensus params and the validators are read from it at start.',
        'docSection',
      ),
    )
  ).node.id;
  ids.folder = (
    await post(
      '/capture',
      section('docs/core/types.md', 'Types', 'The types/ package holds the core data structures shared by every reactor.', 'docSection'),
    )
  ).node.id;
  for (let i = 0; i < 20; i++) {
    noise.push(
      (
        await post(
          '/capture',
          section(
            `docs/ops/runbook-${i}.md`,
            `Rotating credentials ${i}`,
            `Step ${i} of rotating the metrics dashboard credentials for the reporting cluster, done by operations on Fridays.`,
            'docSection',
          ),
        )
      ).node.id,
    );
  }
  await drainAll(t.sql, providers);
});
afterAll(async () => t.drop());

describe('a vague ask touching a file, among many architecture sections', () => {
  const ask = { about: 'refactor the validation in this file', touching: ['types/genesis.go'], budget: 4000 };

  it('sends the section naming the file in full, above the folder match', async () => {
    const b = await brief(ask);
    const all = items(b);
    const genesis = all.find((i) => i.id === ids.genesis);
    expect(genesis, JSON.stringify(all.map((i) => [i.title, i.score]))).toBeDefined();
    expect(genesis!.expanded).toBe(true);
    expect(genesis!.because).toBe('touches types/genesis.go');
    const folder = all.find((i) => i.id === ids.folder);
    if (folder) {
      expect(folder.because).toBe('touches types (types/genesis.go)');
      expect(folder.score).toBeLessThan(genesis!.score);
    }
  });

  it('holds at most four architecture principles under must obey, the rest compete below', async () => {
    // Every principle bears on this ask as much as the next.
    const b = await brief({
      about: 'check every field before it is accepted and return validation errors with the field that failed',
      budget: 4000,
    });
    const mustObey = b.tiers.must_obey.map((i) => i.id);
    const standing = mustObey.filter((id) => principles.includes(id));
    expect(standing.length).toBe(MAX_PRINCIPLES);
    for (const i of b.tiers.must_obey.filter((x) => principles.includes(x.id))) expect(i.because).toBe('architecture principle');
    // Further principles, when sent, sit in a lower tier, never as orders.
    const lower = items(b).filter((i) => principles.includes(i.id) && i.tier !== 'must_obey');
    for (const i of lower) expect(i.because).not.toBe('architecture principle');
  });

  it('stands a principle as an order only when it is nearly as relevant as the best item', async () => {
    const b = await brief({ about: 'validation errors for votes returned to the caller', budget: 4000 });
    const sent = items(b).filter((i) => principles.includes(i.id));
    const orders = sent.filter((i) => i.tier === 'must_obey');
    expect(orders.length).toBeGreaterThan(0);
    for (const i of orders) expect(i.score).toBeGreaterThanOrEqual(PRINCIPLE_FLOOR);
    // Fewer than four stand, and those sent less relevant sit below, as what they matched.
    expect(orders.length).toBeLessThan(MAX_PRINCIPLES);
    const below = sent.filter((i) => i.tier !== 'must_obey');
    expect(below.length, JSON.stringify(sent.map((i) => [i.title, i.score, i.tier]))).toBeGreaterThan(0);
    for (const i of below) {
      expect(i.score).toBeLessThan(PRINCIPLE_FLOOR);
      expect(i.because).toMatch(/^matched /);
    }
    // The synthesis is of the items sent: each principle it names is named under the tier it was
    // sent in, the one standing as an order under must obey, the others not.
    const label = { must_obey: 'Must obey', already_decided: 'Already decided', in_motion: 'In motion', background: 'Background' };
    const labelBefore = (id: string) => {
      const before = b.synthesis.text.slice(0, b.synthesis.text.indexOf(`[${id}]`));
      return Object.values(label)
        .map((l) => [l, before.lastIndexOf(`${l}: `)] as const)
        .sort((x, y) => y[1] - x[1])[0]![0];
    };
    const named = sent.filter((i) => b.synthesis.cites.includes(i.id));
    expect(named.some((i) => i.tier === 'must_obey')).toBe(true);
    expect(named.some((i) => i.tier !== 'must_obey')).toBe(true);
    for (const i of named) expect(labelBefore(i.id)).toBe(label[i.tier as keyof typeof label]);
  });

  it('names in its synthesis only items it sends, however small the budget', async () => {
    for (const budget of [200, 400, 1500]) {
      const b = await brief({ about: 'validation errors for votes returned to the caller', budget });
      const sentIds = new Set(items(b).map((i) => i.id));
      expect(b.synthesis.cites.length, `budget ${budget}`).toBeGreaterThan(0);
      for (const id of b.synthesis.cites) expect(sentIds.has(id), `budget ${budget}: ${id} cited, not sent`).toBe(true);
      for (const [, id] of b.synthesis.text.matchAll(/\[([a-z]+_[0-9A-Z]{26})\]/g))
        expect(sentIds.has(id!), `budget ${budget}: ${id} named, not sent`).toBe(true);
    }
  });

  it("holds a model's synthesis, written before the budget, to the items sent", async () => {
    // Stands for a hosted model (it runs beside the reranker, as the Anthropic synthesizer does):
    // one sentence per item it is given, each citing that item.
    let given: string[] = [];
    const model: Synthesizer = {
      name: 'model-like',
      async synthesize(_about, list) {
        given = list.map((i) => i.id);
        return { text: list.map((i, n) => `Point ${n + 1} holds [${i.id}].`).join(' '), cites: given };
      },
    };
    const modelApi = makeApp(t, undefined, { ...providers, synthesizer: model });
    for (const budget of [200, 400, 1500]) {
      const res = await modelApi.call('POST', '/api/v1/brief', ws.readToken, {
        about: 'validation errors for votes returned to the caller',
        budget,
      });
      const b = res.body as Brief;
      const sentIds = new Set(items(b).map((i) => i.id));
      const heldBack = given.filter((id) => !sentIds.has(id));
      if (budget === 200) expect(heldBack.length, 'the small budget holds back an item the model cited').toBeGreaterThan(0);
      for (const id of b.synthesis.cites) expect(sentIds.has(id), `budget ${budget}: ${id} cited, not sent`).toBe(true);
      for (const id of heldBack) expect(b.synthesis.text, `budget ${budget}: ${id} named, not sent`).not.toContain(id);
      // Every sentence resting on a sent item is still there, as the model wrote it.
      const kept = given.filter((id) => sentIds.has(id));
      expect(kept.length, `budget ${budget}`).toBeGreaterThan(0);
      expect(b.synthesis.cites).toEqual(kept);
      for (const id of kept) expect(b.synthesis.text).toMatch(new RegExp(`Point \\d+ holds \\[${id}\\]\\.`));
    }
  });

  it('carries the constitution as one line when it has no bearing on the ask', async () => {
    const b = await brief(ask);
    const rule = b.tiers.must_obey.find((i) => i.id === ids.rule);
    expect(rule).toBeDefined();
    expect(rule!.expanded).toBe(false);
    expect(rule!.because).toBe('standing rule');
  });

  it('sends nothing that falls under the relevance floor, and counts only what did not fit as held back', async () => {
    const b = await brief(ask);
    const sent = items(b).map((i) => i.id);
    expect(sent.filter((id) => noise.includes(id))).toEqual([]);
    expect(b.stats.items).toBe(sent.length);
    // Everything relevant fits in 4,000 tokens here: nothing is held back.
    expect(b.stats.held_back).toBe(0);
    // Items are presented by tier, and by relevance within a tier.
    for (const list of Object.values(b.tiers))
      expect(list.map((i) => i.score)).toEqual([...list.map((i) => i.score)].sort((x, y) => y - x));
  });

  it('a small budget spends itself on the most relevant items first', async () => {
    const b = await brief({ ...ask, budget: 400 });
    const sent = items(b);
    expect(sent.find((i) => i.id === ids.genesis)?.expanded).toBe(true);
    expect(b.stats.sent_tokens).toBeLessThanOrEqual(400);
    expect(b.stats.held_back).toBeGreaterThan(0);
  });

  it('a doc section as first ingested is background; once it changes it is in motion', async () => {
    expect(items(await brief(ask)).find((i) => i.id === ids.genesis)?.tier).toBe('background');
    await post('/changeset', { operations: [{ op: 'append', target: ids.genesis, prose: 'The initial height must be at least 1.' }] });
    await drainAll(t.sql, providers);
    expect(items(await brief(ask)).find((i) => i.id === ids.genesis)?.tier).toBe('in_motion');
  });

  it('a relevant rule is sent in full', async () => {
    const b = await brief({ about: 'make sure card numbers never reach the logs', touching: [] });
    const rule = b.tiers.must_obey.find((i) => i.id === ids.rule);
    expect(rule?.expanded).toBe(true);
  });
});

describe('the synthesis names a record changed since `since` as in motion, as the tiers do', () => {
  it('says "In motion" for a change, where it said "Background"', async () => {
    const changed = (
      await post('/capture', {
        collection: 'docs',
        node_type: 'reference',
        title: 'Credential rotation moved to Mondays',
        prose: 'The metrics dashboard credentials of the reporting cluster now rotate on Mondays, no longer on Fridays.',
      })
    ).node.id;
    await drainAll(t.sql, providers);
    const b = await brief({ about: 'rotate the reporting cluster dashboard credentials on Mondays', budget: 4000 });
    expect(items(b).find((i) => i.id === changed)?.tier).toBe('in_motion');
    expect(b.synthesis.text).toContain(`In motion: Credential rotation moved to Mondays [${changed}]`);
  });
});
