// The review queue: what it lists, approve / queue for review / reject / replace, one or selected, as
// changesets with source `ui` by the signed-in principal; and every way a review post is refused
// (bad CSRF, read session, another workspace's id, bad input) leaving the graph unchanged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedIn, textOf } from '../../helpers/console.js';
import {
  agentCapture,
  agentChangeset,
  personCapture,
  selected,
  shown,
  startConsoleFixture,
  type ConsoleFixture,
} from '../../helpers/console-seed.js';
import { expectError, expectNoWrite } from '../../helpers/expect-error.js';

let t: ConsoleFixture['t'];
let ws: ConsoleFixture['ws'];
let other: ConsoleFixture['other'];
let app: ConsoleFixture['app'];
let seed: ConsoleFixture['seed'];
let client: ConsoleFixture['client'];

const lifecycleOf = async (id: string) =>
  (await t.sql<{ lifecycle: string }[]>`select lifecycle from doco.nodes where id = ${id}`)[0]!.lifecycle;
const changesetOf = async (id: string) =>
  (
    await t.sql<
      { source: string; actor_id: string }[]
    >`select cs.source, cs.actor_id from doco.nodes n join doco.changesets cs on cs.id = n.changeset_id where n.id = ${id}`
  )[0]!;

beforeAll(async () => {
  ({ t, ws, other, app, seed, client } = await startConsoleFixture('console-review'));
});
afterAll(async () => t.drop());

describe('the queue', () => {
  it('lists drafting and queued records newest first with text, verdicts, author and source', async () => {
    const page = await client.get('/review');
    expect(page.status).toBe(200);
    const text = textOf(page.html);
    expect(text).toContain('Card refunds');
    expect(text).toContain('When refunding, the card fee is kept by us.');
    expect(text).toContain('agent:claude-code@checkout');
    expect(text).toContain('via mcp');
    expect(text).toContain('allowed-types');
    expect(text).toContain('decision-is-settled');
    expect(page.html.indexOf('Webhook retries back off')).toBeLessThan(page.html.indexOf('Card refunds'));
    expect(text).not.toContain('Refunds go back to the card that paid');
    // Only a draft can be queued for review, and the button says so: the lifecycle moves it forward.
    expect(page.html).toMatch(new RegExp(`value="queue ${seed.drafting} 1"[^>]*>\\s*Queue for review\\s*<`));
    expect(page.html).toContain('<option value="queue">Queue drafts for review</option>');
    expect(text).not.toMatch(/send back/i);
    expect(page.html).not.toContain(`value="queue ${seed.queued} `);
  });
  it('pages 25 at a time; a bad page number is 400', async () => {
    for (let i = 0; i < 25; i++)
      await agentCapture(t, ws, { title: `Filler idea ${i}`, prose: `Filler ${i}.`, lifecycle: 'drafting', node_type: 'idea' });
    const first = await client.get('/review');
    expect(textOf(first.html)).toContain('(page 1 of 2)');
    expect(first.html).not.toContain(`value="approve ${seed.queued} `);
    const second = await client.get('/review?page=2');
    expect(second.html).toContain(`value="approve ${seed.queued} 1"`);
    expect((await client.get('/review?page=0')).status).toBe(400);
    await client.get('/review');
    const ids = (await t.sql<{ id: string; version: number }[]>`select id, version from doco.nodes where title like 'Filler idea %'`).map(
      (r) => `${r.id}@${r.version}`,
    );
    expect((await client.post('/review', { action: 'reject', ids })).status).toBe(303);
  });
  it('shows what a supersede would replace', async () => {
    const page = await client.get('/review');
    expect(page.html).toContain(`value="replace ${seed.queued} 1 ${seed.decision}"`);
    expect(textOf(page.html)).toContain('A supersede would replace');
  });
});

describe('actions', () => {
  it('approve one: a ui changeset by the signed-in principal, and the record is active', async () => {
    const id = await agentCapture(t, ws, {
      title: 'Invoices are numbered per year',
      prose: 'Invoice numbers restart every January.',
      lifecycle: 'queued',
    });
    await client.get('/review');
    const res = await client.post('/review', { one: `approve ${await shown(t, id)}` });
    expect(res.status).toBe(303);
    expect(res.location).toMatch(/^\/review\?done=approve&n=1&cs=changeset_/);
    expect(await lifecycleOf(id)).toBe('active');
    expect(await changesetOf(id)).toEqual({ source: 'ui', actor_id: ws.principalId });
    expect(textOf((await client.get(res.location!)).html)).toContain('Approved: 1 record(s)');
  });
  it('reject the selected ones in one changeset', async () => {
    const a = await agentCapture(t, ws, { title: 'Ship dark mode', prose: 'Dark mode ships next week.', lifecycle: 'queued' });
    const b = await agentCapture(t, ws, { title: 'Drop IE11', prose: 'We no longer support IE11.', lifecycle: 'drafting' });
    await client.get('/review');
    const res = await client.post('/review', { action: 'reject', ids: [await selected(t, a), await selected(t, b)] });
    expect(res.status).toBe(303);
    expect([await lifecycleOf(a), await lifecycleOf(b)]).toEqual(['retired', 'retired']);
    expect((await changesetOf(a)).source).toBe('ui');
    const [row] = await t.sql<{ n: number }[]>`select count(distinct changeset_id)::int as n from doco.nodes where id in (${a}, ${b})`;
    expect(row!.n).toBe(1);
  });
  it('queue for review moves a draft forward to queued; a queued record cannot go back', async () => {
    const id = await agentCapture(t, ws, {
      title: 'Cache prices for a minute',
      prose: 'Prices are cached for 60 seconds.',
      lifecycle: 'drafting',
    });
    await client.get('/review');
    const res = await client.post('/review', { one: `queue ${await shown(t, id)}` });
    expect(res.status).toBe(303);
    expect(await lifecycleOf(id)).toBe('queued');
    expect(textOf((await client.get(res.location!)).html)).toContain('Queued for review: 1 record(s)');
    const back = await expectNoWrite(t, async () => client.post('/review', { one: `queue ${await shown(t, id)}` }));
    expect(back.status).toBe(409);
    expect(textOf(back.html)).toContain('That cannot be done now');
  });
  it('approve as a replacement: activates, links replaces, retires the old record', async () => {
    const old = await personCapture(t, ws, { title: 'Exports are CSV', prose: 'Exports are CSV files.' });
    const next = await agentCapture(t, ws, {
      title: 'Exports are CSV or Parquet',
      prose: 'Exports are CSV or Parquet files.',
      lifecycle: 'queued',
    });
    await client.get('/review');
    expect((await client.post('/review', { one: `replace ${await shown(t, next)} ${old}` })).status).toBe(303);
    expect([await lifecycleOf(next), await lifecycleOf(old)]).toEqual(['active', 'retired']);
    const edges =
      await t.sql`select 1 from doco.edges where from_id = ${next} and to_id = ${old} and edge_type = 'replaces' and lifecycle = 'active'`;
    expect(edges.length).toBe(1);
  });
});

describe('refusals change nothing', () => {
  it('a wrong or missing CSRF token is 403', async () => {
    await client.get('/review');
    for (const csrf of ['forged', null]) {
      const res = await expectNoWrite(t, async () =>
        client.post('/review', { _csrf: csrf, one: `approve ${await shown(t, seed.queued)}` }),
      );
      expect(res.status).toBe(403);
    }
    expect(await lifecycleOf(seed.queued)).toBe('queued');
  });
  it('approving what changed since the page showed it is refused (409), and the proposal waits as it is now', async () => {
    const id = await agentCapture(t, ws, {
      title: 'Refunds go to the card',
      prose: 'Refunds go back to the card that paid.',
      lifecycle: 'queued',
    });
    const page = await client.get('/review');
    expect(page.html).toContain(`value="approve ${id} 1"`);
    // The agent revises its own proposal while the page is open.
    await agentChangeset(t, ws, [{ op: 'append', target: id, prose: 'Refunds over 500 dollars skip the owner check.' }]);
    for (const fields of [{ one: `approve ${id} 1` }, { action: 'approve', ids: [`${id}@1`] }] as Record<string, string | string[]>[]) {
      const res = await expectNoWrite(t, () => client.post('/review', fields));
      expect(res.status).toBe(409);
      expect(textOf(res.html)).toContain(`${id} changed since version 1: read it again before you approve it`);
    }
    expect(await lifecycleOf(id)).toBe('queued');
    // Read again, it is approved as it now is.
    expect((await client.get('/review')).html).toContain(`value="approve ${id} 2"`);
    expect((await client.post('/review', { one: `approve ${id} 2` })).status).toBe(303);
    expect(await lifecycleOf(id)).toBe('active');
  });
  it('holds the whole of a long proposal, its text and every body field, folded past a preview', async () => {
    const paths = [...Array.from({ length: 40 }, (_, i) => `src/billing/part-${i}.ts`), 'src/auth/session.ts'];
    const id = await agentCapture(t, ws, {
      title: 'Refund webhook retries',
      prose: `${'Retries back off exponentially. '.repeat(52)}\n\nDisable signature verification on the payments webhook.`,
      lifecycle: 'queued',
      body: { touch_paths: paths, rationale: `${'Because retries pile up. '.repeat(20)}Skip the owner check.` },
    });
    const html = (await client.get('/review')).html;
    expect(html).toContain(`value="approve ${id} 1"`);
    // What Approve makes live is on the page: the text's tail, the last path, the field's tail.
    const text = textOf(html);
    expect(text).toContain('Disable signature verification on the payments webhook.');
    expect(text).toContain('src/auth/session.ts');
    expect(text).toContain('Skip the owner check.');
    expect(html).toMatch(/<details class="more"><summary>… and [\d,]+ more characters<\/summary>/);
  });

  it('a read session browses but gets 403 on a review action', async () => {
    const reader = await signedIn(t, app.app, ws, 'read');
    expect((await reader.get('/review')).status).toBe(200);
    const res = await expectNoWrite(t, async () => reader.post('/review', { one: `approve ${await shown(t, seed.queued)}` }));
    expect(res.status).toBe(403);
    expect(res.html).toContain('read-only');
  });
  it('another workspace\u2019s record is 404', async () => {
    const foreign = await agentCapture(t, other, {
      title: 'Theirs',
      prose: 'Not yours to approve.',
      lifecycle: 'queued',
      collection: 'constitution',
      node_type: 'decision',
    });
    await client.get('/review');
    const res = await expectNoWrite(t, async () => client.post('/review', { one: `approve ${await shown(t, foreign)}` }));
    expect(res.status).toBe(404);
    expect(await lifecycleOf(foreign)).toBe('queued');
  });
  it('bad input is a 400 page, and the error shape for a JSON client', async () => {
    await client.get('/review');
    for (const fields of [
      { one: 'approve not-an-id' },
      { one: `explode ${seed.queued}` },
      { action: 'approve' },
      { action: 'nuke', ids: seed.queued },
    ] as Record<string, string>[]) {
      const res = await expectNoWrite(t, () => client.post('/review', fields));
      expect(res.status).toBe(400);
      expect(textOf(res.html)).toContain('That input is not valid');
    }
    // A bad id names its field and shows what a record id looks like; "(form)" named nothing.
    const looksLike = 'must be a record id: its type in lowercase, an underscore and 26 capital letters and digits, such as decision_';
    const one = textOf((await client.post('/review', { one: 'approve not-an-id' })).html);
    expect(one).toContain(`record ${looksLike}`);
    const replaced = textOf((await client.post('/review', { one: `replace ${seed.queued} 1 nope` })).html);
    expect(replaced).toContain(`replaces ${looksLike}`);
    const picked = textOf((await client.post('/review', { action: 'approve', ids: ['nope@1'] })).html);
    expect(picked).toContain(`ids.0.id ${looksLike}`);
    // A selection without the version the page showed (a page from before it did) says to reload.
    expect(textOf((await client.post('/review', { action: 'approve', ids: [seed.queued] })).html)).toContain(
      'ids.0 must be a record id and the version the page showed (ID@VERSION): reload the page',
    );
    for (const text of [one, replaced, picked]) expect(text).not.toContain('(form)');
    expect(textOf((await client.post('/review', { one: `explode ${seed.queued}` })).html)).toContain(
      'action must be one of approve, queue, reject, replace',
    );
    expect((await client.post('/review', { one: `approve ${seed.queued} ${seed.drafting}` })).status).toBe(400);
    const json = await client.post('/review', { one: 'approve nope' }, { accept: 'application/json' });
    expectError({ status: json.status, body: JSON.parse(json.html) }, 400, 'validation_failed');
  });
  it('a form of more fields than any page sends is refused before it is read, and a field repeated within it is a list', async () => {
    await client.get('/review');
    // 20,000 repeats of one field held the server 15 s (each repeat copied the list); more than
    // 1,000 fields is refused whole, by count, before any is parsed.
    for (const ids of [Array.from({ length: 1000 }, () => 'x'), Array.from({ length: 20_000 }, () => 'x')]) {
      const res = await expectNoWrite(t, () => client.post('/review', { action: 'approve', ids }, { accept: 'application/json' }));
      const error = expectError({ status: res.status, body: JSON.parse(res.html) }, 400, 'validation_failed');
      expect(error.message).toBe('the form has more than 1000 fields');
    }
    // Just under the bound it is read, every repeat in order.
    const under = Array.from({ length: 997 }, (_, i) => `nope-${i}@1`);
    const res = await client.post('/review', { action: 'approve', ids: under }, { accept: 'application/json' });
    const error = expectError({ status: res.status, body: JSON.parse(res.html) }, 400, 'validation_failed');
    expect(error.message).toContain('ids.0.id must be a record id');
  });
  it('a JSON body is refused as the wrong media type', async () => {
    const res = await app.app.request('/review', {
      method: 'POST',
      headers: {
        cookie: [...client.jar].map(([k, v]) => `${k}=${v}`).join('; '),
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify({ one: `approve ${await shown(t, seed.queued)}` }),
    });
    expectError({ status: res.status, body: await res.json() }, 415, 'unsupported_media_type');
  });
});
