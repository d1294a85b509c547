// An ADR's status (ingest/docs/adr-status.ts): read from its Status section past a template's
// instructions and placeholders, else a "Status:" line or front matter; recorded on every section
// of an architecture file; and in the brief, a rejected or still proposed ADR never stands as an
// order, and says its status wherever it is sent (docs/brief.md, step 4).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitMarkdown } from '../../src/ingest/docs/sections.js';
import type { Brief, Item } from '../../src/brief/types.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { ingestTree, makeTree, removeTree, writeTree } from '../helpers/docs.js';
import { drainAll, localProviders } from '../helpers/search.js';
import { localSynthesizer } from '../../src/providers/local-synthesizer.js';
import type { SynthesisItem, Synthesizer } from '../../src/providers/synthesizer.js';

const decision = (topic: string) =>
  `We will ${topic}. Every service that settles payouts does it this way, and reviews check it before a change merges. `.repeat(3);

const statusOf = (text: string, path = 'docs/architecture/adr-007.md') =>
  splitMarkdown(path, `# ADR 007: Payout batching\n\n${text}\n\n## Decision\n\n${decision('batch payouts hourly')}`).sections.map(
    (s) => s.status,
  );

describe("reading an ADR's status", () => {
  it('takes the first line of its Status section, its emphasis dropped', () => {
    expect(statusOf('## Status\n\nRejected')).toEqual(['Rejected']);
    expect(statusOf('## Status\n\n**Accepted** (tracked in #123)')).toEqual(['Accepted (tracked in #123)']);
    expect(statusOf('### Status\n\n- Superseded by ADR 012')).toEqual(['Superseded by ADR 012']);
  });

  it("skips a template's quoted instructions, comments, placeholders and bare links", () => {
    const quoted = '> A decision may be "proposed" if it has not been agreed upon yet.\n> Or "accepted" once it is.';
    expect(statusOf(`## Status\n\n${quoted}\n\n{Deprecated|Proposed|Accepted}`)).toEqual([undefined]);
    expect(statusOf(`## Status\n\n${quoted}\n\nAccepted | Rejected | Superseded by`)).toEqual([undefined]);
    expect(statusOf(`## Status\n\n<!-- proposed, accepted or rejected -->\n[Tracking issue](https://example.com/1)\n\nDeclined`)).toEqual([
      'Declined',
    ]);
    expect(statusOf('## Status\n\n```\nProposed\n```')).toEqual([undefined]);
  });

  it("reads MADR's Status line and front matter's status when there is no Status section", () => {
    expect(statusOf('* Status: superseded by [ADR-0005](0005-example.md)')).toEqual(['superseded by [ADR-0005](0005-example.md)']);
    expect(
      splitMarkdown(
        'docs/architecture/adr-008.md',
        `---\nstatus: "proposed"\ndate: 2024-01-01\n---\n# ADR 8\n\n## Decision\n\n${decision('cache')}`,
      ).sections[0]!.status,
    ).toBe('proposed');
  });

  it("reads a hostile file's status lines in time linear in their length", () => {
    // Lines of 300,000 characters each: the first form of the template test was quadratic on
    // them (seconds at 20,000), and a docs pack is another service's text.
    const long = [' '.repeat(300_000) + 'x', `[${'](x'.repeat(100_000)}`, 'a '.repeat(150_000), `status${' '.repeat(300_000)}`];
    expect(statusOf(`## Status\n\n${long.join('\n\n')}\n\nRejected`)[0]).toBe('x');
    expect(statusOf(long.join('\n\n')).every((status) => status === undefined)).toBe(true);
  });

  it('keeps a status to one short line, and records none outside docs/architecture/', () => {
    expect(statusOf(`## Status\n\nAccepted ${'and then some more words '.repeat(10)}`)[0]!.length).toBeLessThanOrEqual(80);
    expect(statusOf('## Status\n\nRejected', 'docs/guides/payouts.md')).toEqual([undefined]);
    expect(statusOf('## Context\n\nNothing about it.')).toEqual([undefined]);
  });
});

let t: TestDb;
let ws: TestWorkspace;
let root: string;
let app: ReturnType<typeof makeApp>;
const handed: SynthesisItem[] = [];

const adr = (n: string, title: string, status: string, topic: string) =>
  `# ADR ${n}: ${title}\n\n## Status\n\n${status}\n\n## Decision\n\n${decision(topic)}`;
const files = (rejected: string) => ({
  'docs/architecture/adr-001-payout-batching.md': adr('001', 'Payout batching', 'Accepted', 'batch payout transfers every hour'),
  'docs/architecture/adr-002-payout-streaming.md': adr('002', 'Payout streaming', rejected, 'stream payout transfers one by one'),
  'docs/architecture/adr-003-payout-ledger.md': adr('003', 'Payout ledger', 'Proposed', 'keep a payout transfers ledger per day'),
  'docs/architecture/adr-template.md': `# ADR {number}: {title}\n\n## Decision\n\n${'Say which payout transfers decision was made, and why it holds for every service. '.repeat(3)}`,
});

async function brief(about: string): Promise<Brief> {
  const res = await app.call('POST', '/api/v1/brief', ws.readToken, { about, since: '0m' });
  expect(res.status).toBe(200);
  return res.body as Brief;
}
const titles = (items: Item[]) => items.map((i) => i.title);

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'adr-status');
  // The local synthesizer, watched: what the brief hands it of each item.
  const local = localSynthesizer();
  const synthesizer: Synthesizer = {
    ...local,
    synthesize: (about, items, signal, touching) => {
      handed.push(...items);
      return local.synthesize(about, items, signal, touching);
    },
  };
  app = makeApp(t, undefined, { ...localProviders(), synthesizer });
  root = await makeTree(files('Rejected'));
  await ingestTree(t, ws, root);
  await drainAll(t.sql, app.deps);
});
afterAll(async () => {
  await t.drop();
  await removeTree(root);
});

describe("an ADR's status in the brief", () => {
  const ask = 'how do payout transfers settle: batch, stream, or a ledger per day?';

  it('lets only an accepted ADR stand as an order; a rejected or proposed one and a template are sent below, saying so', async () => {
    const b = await brief(ask);
    expect(titles(b.tiers.must_obey)).toEqual(['ADR 001: Payout batching — Decision']);
    const below = Object.values(b.tiers).flat();
    expect(below.find((i) => i.title === 'ADR 002: Payout streaming — Decision')?.because).toMatch(/; ADR rejected$/);
    expect(below.find((i) => i.title === 'ADR 003: Payout ledger — Decision')?.because).toMatch(/; ADR proposed$/);
    expect(titles(b.tiers.background)).toContain('ADR {number}: {title} — Decision');
    expect(below.find((i) => i.title === 'ADR 001: Payout batching — Decision')?.because).toBe('architecture principle');
    // The synthesis is told which items are not in force.
    expect(handed.find((i) => i.title === 'ADR 002: Payout streaming — Decision')?.note).toBe('ADR rejected');
    expect(handed.find((i) => i.title === 'ADR 001: Payout batching — Decision')).not.toHaveProperty('note');
  });

  it('follows the file when its status changes: every section is updated, and the ADR stands', async () => {
    await writeTree(root, files('Accepted'));
    const report = await ingestTree(t, ws, root);
    expect(report.updated).toBe(1);
    await drainAll(t.sql, app.deps);
    const b = await brief(ask);
    expect(titles(b.tiers.must_obey)).toEqual(
      expect.arrayContaining(['ADR 001: Payout batching — Decision', 'ADR 002: Payout streaming — Decision']),
    );
    expect(titles(b.tiers.must_obey)).not.toContain('ADR 003: Payout ledger — Decision');
  });

  it("says an ADR's status in search's because too", async () => {
    const res = await app.call(
      'GET',
      `/api/v1/search?shape=architecturePrinciple&q=${encodeURIComponent('payout transfers: every hour, one by one, or a ledger per day')}`,
      ws.readToken,
    );
    expect(res.status).toBe(200);
    const results = res.body.results as Item[];
    expect(results.find((r) => r.title === 'ADR 003: Payout ledger — Decision')?.because).toMatch(/; ADR proposed$/);
    expect(results.find((r) => r.title === 'ADR 001: Payout batching — Decision')?.because).not.toMatch(/ADR/);
  });
});
