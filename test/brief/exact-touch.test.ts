// An exact touch reaches the brief when the ask is vague (docs/brief.md): two long sections name the
// edited file only in a repository blob URL and share no word with the ask, while two dozen
// sections match the ask's words; both are sent in full all the same. A section naming a file
// only among its links is lifted only when nothing names the file in prose and the ask has one
// concern. The lift itself: only exact touches, at most EXACT_TOUCH_MAX of them, never lowered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXACT_TOUCH_MAX, EXACT_TOUCH_RELEVANCE, liftExactTouches } from '../../src/brief/touch-floor.js';
import { touchSeeds } from '../../src/retrieval/retrievers.js';
import type { Brief, Item } from '../../src/brief/types.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { docSection, writer } from '../helpers/brief-docs.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { drainAll, localProviders } from '../helpers/search.js';

const FILE = 'pkg/querier/frontend/frontend.go';
/** A file the docs name only in a References section's link definitions. */
const LINKED = 'pkg/util/validation/limits.go';
const blob = (line: number, file = FILE) => `https://github.com/acme/cortex/blob/8fb86155a7c7c155b8c4d31b91b267f9631b60ba/${file}#L${line}`;
let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
const providers = localProviders();
const exact: string[] = [];
let linksOnly = '';
let onlyLinked = '';
let topFolder = '';
let folder = '';

const post = (path: string, body: unknown) => writer(api, () => ws)(path, body);
const section = docSection;
const items = (b: Brief): Item[] => Object.values(b.tiers).flat();

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'exact-touch');
  api = makeApp(t, undefined, providers);
  await post('/collections', { slug: 'docs', template: 'documentation', goal: 'The service documentation' });
  const unrelated = Array.from(
    { length: 9 },
    (_, i) =>
      `The scheduler keeps a bounded backlog of pending tenants, sorted by arrival, and sheds the oldest entry number ${i} when the backlog overflows.`,
  ).join(' ');
  // One section naming the file also matches the ask's words, so it leads the fused list by far;
  // the other names it only in a blob URL among unrelated words.
  exact.push(
    (
      await post(
        '/capture',
        section(
          'docs/proposals/frontend-0.md',
          'Requests wait for a worker',
          `Change how requests wait: requests wait in the frontend queue until a querier asks for work, as [currently coded](${blob(279)}).`,
        ),
      )
    ).node.id,
  );
  exact.push(
    (
      await post(
        '/capture',
        section(
          'docs/proposals/frontend-1.md',
          'Connection flow control',
          `${unrelated} As [currently coded](${blob(329)}) the component dispatches to every open stream.`,
        ),
      )
    ).node.id,
  );
  // Sections naming a file only among their links: FILE beside the sections above that name it in
  // prose, LINKED nowhere else.
  const references = (file: string) =>
    `Background reading for the proposals above.\n\n[frontend-code]: ${blob(12, file)}\n[design-doc]: https://example.com/design`;
  linksOnly = (await post('/capture', section('docs/proposals/frontend-2.md', 'References', references(FILE)))).node.id;
  onlyLinked = (await post('/capture', section('docs/proposals/limits.md', 'References', references(LINKED)))).node.id;
  // Sections naming a folder of FILE: its top one (the top of most of the repository) and its own.
  const naming = (file: string, title: string, text: string) => post('/capture', section(file, title, text));
  topFolder = (
    await naming('docs/contributing/images.md', 'Rebuilding the image', 'Whenever the code under `pkg/` moves, rebuild the image.')
  ).node.id;
  folder = (await naming('docs/architecture/querier.md', 'Where the querier lives', 'The querier is built from `pkg/querier/` alone.')).node
    .id;
  const words = ['requests', 'wait', 'change', 'file', 'limit', 'queue', 'worker', 'restart'];
  for (let i = 0; i < 24; i++) {
    const some = words.filter((_, w) => (i >> (w % 4)) & 1 || w === i % 8).join(' and ');
    await post(
      '/capture',
      section(
        `docs/guides/guide-${i}.md`,
        `Operations note ${i}`,
        `This note ${i} is about ${some}: operators read it when ${words[i % 8]} settings move between releases of the service.`,
      ),
    );
  }
  await drainAll(t.sql, providers);
});
afterAll(async () => t.drop());

describe('a vague ask touching a file that long sections name only by a blob URL', () => {
  it('sends both sections naming the file in full, ahead of the sections matching the words', async () => {
    const res = await api.call('POST', '/api/v1/brief', ws.readToken, {
      about: 'change how requests wait in this file',
      touching: [FILE],
      budget: 1500,
    });
    expect(res.status).toBe(200);
    const all = items(res.body as Brief);
    for (const id of exact) {
      const item = all.find((i) => i.id === id);
      expect(item, JSON.stringify(all.map((i) => [i.title, i.score, i.expanded]))).toMatchObject({
        expanded: true,
        because: `touches ${FILE}`,
      });
      expect(item!.score).toBeGreaterThanOrEqual(EXACT_TOUCH_RELEVANCE);
    }
    // The two best items are the two sections naming the file, whatever the words matched.
    const best = [...all]
      .sort((a, b) => b.score - a.score)
      .slice(0, 2)
      .map((i) => i.id);
    expect(best.sort()).toEqual([...exact].sort());
  });
});

describe('a file named only among links', () => {
  const brief = async (about: string, touching: string[]) => {
    const res = await api.call('POST', '/api/v1/brief', ws.readToken, { about, touching, budget: 1500 });
    expect(res.status).toBe(200);
    return items(res.body as Brief);
  };
  const scoreOf = (all: Item[], id: string) => all.find((i) => i.id === id)?.score ?? 0;

  it('is not lifted beside sections naming the file in prose', async () => {
    const all = await brief('change how requests wait in this file', [FILE]);
    for (const id of exact) expect(scoreOf(all, id)).toBeGreaterThanOrEqual(EXACT_TOUCH_RELEVANCE);
    expect(scoreOf(all, linksOnly)).toBeLessThan(EXACT_TOUCH_RELEVANCE);
  });

  it('is lifted when nothing else names the file, unless the ask has several concerns', async () => {
    expect(scoreOf(await brief('change the defaults in this file', [LINKED]), onlyLinked)).toBeGreaterThanOrEqual(EXACT_TOUCH_RELEVANCE);
    const multi = await brief('change how requests wait in the queue, and add a restart limit for workers', [LINKED]);
    expect(scoreOf(multi, onlyLinked)).toBeLessThan(EXACT_TOUCH_RELEVANCE);
  });
});

describe('a touched path found by its folders', () => {
  it("is found by its own folder, not by the repository's top folder", async () => {
    const seeds = await touchSeeds(t.sql, ws.id, [FILE]);
    expect(seeds.because.get(folder)).toBe(`touches pkg/querier (${FILE})`);
    expect(seeds.ids).not.toContain(topFolder);
    // A path two deep keeps its one folder (as config/ of config/config.go).
    const shallow = await touchSeeds(t.sql, ws.id, ['pkg/frontend.go']);
    expect(shallow.because.get(topFolder)).toBe('touches pkg (pkg/frontend.go)');
  });
});

describe('liftExactTouches', () => {
  const list = (entries: [string, number][]) => ({
    name: 'touches' as const,
    ids: entries.map(([id]) => id),
    scores: entries.map(([, s]) => s),
    because: new Map(),
  });

  it('lifts exact touches only, the best EXACT_TOUCH_MAX of them, and never lowers a relevance', () => {
    const many = Array.from({ length: EXACT_TOUCH_MAX + 2 }, (_, i) => [`e${i}`, 1] as [string, number]);
    const relevance = new Map<string, number>([
      ...many.map(([id], i) => [id, 0.1 + i * 0.01] as [string, number]),
      ['high', 0.95],
      ['suffix', 0.1],
      ['folder', 0.1],
    ]);
    liftExactTouches(relevance, list([...many, ['high', 1], ['suffix', 0.8], ['folder', 0.25]]));
    expect(relevance.get('high')).toBe(0.95);
    expect(relevance.get('suffix')).toBe(0.1);
    expect(relevance.get('folder')).toBe(0.1);
    const lifted = many.filter(([id]) => relevance.get(id) === EXACT_TOUCH_RELEVANCE).map(([id]) => id);
    // 'high' takes one of the places; the others go to the exact touches most relevant already.
    expect(lifted).toEqual(
      many
        .map(([id]) => id)
        .reverse()
        .slice(0, EXACT_TOUCH_MAX - 1)
        .sort(),
    );
  });

  it('changes nothing without touches, or for ids not among the candidates', () => {
    const relevance = new Map([['a', 0.3]]);
    liftExactTouches(relevance, undefined);
    liftExactTouches(relevance, list([['b', 1]]));
    expect([...relevance]).toEqual([['a', 0.3]]);
  });
});
