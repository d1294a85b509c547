// A page of the review queue shows proposals whole up to REVIEW_PAGE_CHARS of text and bodies; a
// larger one is listed by its title, with no checkbox or button, and a link that shows it alone,
// whole, with its buttons: a proposal is never approved from a page that did not show all of it,
// and 25 of an agent's largest proposals no longer make a 9 MB page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REVIEW_PAGE_CHARS } from '../../../src/http/console/pages/review.js';
import { textOf } from '../../helpers/console.js';
import { agentCapture, personCapture, shown, startConsoleFixture, type ConsoleFixture } from '../../helpers/console-seed.js';

let t: ConsoleFixture['t'];
let ws: ConsoleFixture['ws'];
let other: ConsoleFixture['other'];
let client: ConsoleFixture['client'];
const large: string[] = [];

/** Prose of about `chars` characters, each proposal's own words so none is a duplicate of another. */
const proseOf = (n: number, chars: number) =>
  Array.from({ length: Math.ceil(chars / 40) }, (_, i) => `Proposal ${n} sentence ${i}: the ledger keeps entry ${n * 1000 + i}.`)
    .join(' ')
    .slice(0, chars);

beforeAll(async () => {
  ({ t, ws, other, client } = await startConsoleFixture('console-review-large'));
  // An active decision every large proposal would replace (its title holds their words), so each
  // has an "Approve, replacing it" button where it is shown whole.
  await personCapture(t, ws, { title: 'Large proposal 1 2 3 4 5 6', prose: 'What the proposals would replace.' });
  // Newest first on the page: the last written is shown first.
  for (let n = 1; n <= 6; n++)
    large.unshift(await agentCapture(t, ws, { title: `Large proposal ${n}`, prose: proseOf(n, 99_000), lifecycle: 'queued' }));
}, 60_000);
afterAll(async () => t.drop());

const checkboxes = (html: string) => [...html.matchAll(/name="ids" value="([^"@]+)@/g)].map((m) => m[1]!);
const approveButtons = (html: string) => [...html.matchAll(/value="approve ([^ "]+) \d+"/g)].map((m) => m[1]!);
const replaceButtons = (html: string) => [...html.matchAll(/value="replace ([^ "]+) \d+ [^"]+"/g)].map((m) => m[1]!);
const aloneLinks = (html: string) => [...html.matchAll(/href="\/review\?id=([^"]+)"/g)].map((m) => m[1]!);

describe('large proposals', () => {
  it('are shown whole while the page has room, the rest by title with a link to review each alone', async () => {
    const page = await client.get('/review');
    expect(page.status).toBe(200);
    const fit = Math.floor(REVIEW_PAGE_CHARS / 99_100);
    expect(approveButtons(page.html).filter((id) => large.includes(id))).toEqual(large.slice(0, fit));
    expect(checkboxes(page.html).filter((id) => large.includes(id))).toEqual(large.slice(0, fit));
    expect(aloneLinks(page.html)).toEqual(large.slice(fit));
    // No button of any kind approves one not shown whole.
    expect(replaceButtons(page.html).filter((id) => large.includes(id))).toEqual(large.slice(0, fit));
    const text = textOf(page.html);
    for (const id of large.slice(fit)) expect(text).toContain(`Large proposal ${6 - large.indexOf(id)}`);
    expect(text).toMatch(/\d{2},\d{3} characters, more than this page shows beside the others: review it alone/);
    // What is not shown whole is not on the page at all.
    expect(page.html).not.toContain(proseOf(6 - fit, 99_000).slice(0, 200));
    expect(page.html.length).toBeLessThan(REVIEW_PAGE_CHARS * 1.3);
    // The small proposals of the fixture stay whole, with their buttons.
    expect(text).toContain('When refunding, the card fee is kept by us.');
  });

  it('counts what HTML makes of a proposal: escaped characters and body fields', async () => {
    const marks = '<&>"'.repeat(15_000);
    const fields = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`field_${i}`, `<${i}>`]));
    const escaped: string[] = [];
    for (let n = 1; n <= 3; n++)
      escaped.push(await agentCapture(t, ws, { title: `Marks ${n}`, prose: `${n} ${marks}`, lifecycle: 'queued', body: fields }));
    const page = await client.get('/review');
    // The newest is shown whole (the first always is); the others wait to be reviewed alone.
    expect(aloneLinks(page.html)).toEqual(expect.arrayContaining(escaped.slice(0, 2)));
    expect(page.html.length).toBeLessThan(REVIEW_PAGE_CHARS * 1.5);
    for (const id of escaped) await t.sql`update doco.nodes set lifecycle = 'retired' where id = ${id}`;
  });

  it('shows one alone, whole, with its buttons, and approves it from there', async () => {
    const id = large.at(-1)!;
    const page = await client.get(`/review?id=${id}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain(proseOf(1, 99_000).slice(-200));
    expect(approveButtons(page.html)).toEqual([id]);
    expect(textOf(page.html)).toMatch(/One of \d+ drafting or queued record\(s\), shown alone/);
    const version = (await shown(t, id)).split(' ')[1]!;
    const res = await client.post('/review', { one: `approve ${id} ${version}` });
    expect(res.status).toBe(303);
    expect((await t.sql<{ lifecycle: string }[]>`select lifecycle from doco.nodes where id = ${id}`)[0]!.lifecycle).toBe('active');
  });

  it("answers 404 for a record not in review or another workspace's, and 400 for a bad id", async () => {
    const [active] = await t.sql<
      { id: string }[]
    >`select id from doco.nodes where workspace_id = ${ws.id} and lifecycle = 'active' limit 1`;
    const [foreign] = await t.sql<{ id: string }[]>`select id from doco.nodes where workspace_id = ${other.id} limit 1`;
    for (const id of [active!.id, foreign!.id, large.at(-1)!])
      expect({ id, status: (await client.get(`/review?id=${id}`)).status }).toEqual({ id, status: 404 });
    for (const id of ['nope', '', `${large[0]}x`])
      expect({ id, status: (await client.get(`/review?id=${encodeURIComponent(id)}`)).status }).toEqual({ id, status: 400 });
  });
});
