// Relations an agent proposed wait in the review queue beside its records (an agent's `relate`
// between records already in force was pending for ever, reviewed nowhere): listed with both
// records, approved or rejected one at a time or with selected records, records first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCollection } from '../../../src/graph/collections.js';
import { textOf } from '../../helpers/console.js';
import {
  agentCapture,
  agentChangeset,
  agentRelate,
  personCapture,
  selected,
  shown,
  startConsoleFixture,
  type ConsoleFixture,
} from '../../helpers/console-seed.js';
import { expectNoWrite } from '../../helpers/expect-error.js';

let t: ConsoleFixture['t'];
let ws: ConsoleFixture['ws'];
let other: ConsoleFixture['other'];
let client: ConsoleFixture['client'];

const edgeLifecycle = async (id: string) =>
  (await t.sql<{ lifecycle: string }[]>`select lifecycle from doco.edges where id = ${id}`)[0]!.lifecycle;
const recordLifecycle = async (id: string) =>
  (await t.sql<{ lifecycle: string }[]>`select lifecycle from doco.nodes where id = ${id}`)[0]!.lifecycle;
/** The review page's article for one record or relation. */
const itemOf = (html: string, id: string) => {
  const from = html.indexOf(`aria-labelledby="t-${id}"`);
  expect(from).toBeGreaterThan(-1);
  return html.slice(from, html.indexOf('</article>', from));
};

beforeAll(async () => {
  ({ t, ws, other, client } = await startConsoleFixture('console-review-edges'));
});
afterAll(async () => t.drop());

describe('relations in the review queue', () => {
  it('lists a pending relation with both records, its type, author and source', async () => {
    const a = await personCapture(t, ws, { title: 'Refunds need a second approver', prose: 'Two people approve each refund.' });
    const b = await personCapture(t, ws, { title: 'Payouts settle on Fridays', prose: 'Payouts go out every Friday.' });
    const edge = await agentRelate(t, ws, a, b);
    const page = await client.get('/review');
    const text = textOf(page.html);
    expect(text).toContain('Relations (1)');
    expect(text).toMatch(/Refunds need a second approver\s*supports\s*Payouts settle on Fridays/);
    expect(text).toContain('agent:claude-code@checkout');
    expect(page.html).toContain(`value="approve ${edge} 1"`);
    expect(page.html).toContain(`value="reject ${edge} 1"`);
    expect(page.html).toContain(`value="${edge}@1"`);
    expect(text).not.toContain('Approvable once');
    // The overview says they wait, and where.
    const overview = await client.get('/');
    expect(textOf(overview.html)).toContain('1 relation(s) waiting for review');
    expect(overview.html).toContain('href="/review#relations"');
  });

  it('approves one: active, in a ui changeset by the signed-in person', async () => {
    const a = await personCapture(t, ws, { title: 'Invoices are numbered per year', prose: 'Numbers restart in January.' });
    const b = await personCapture(t, ws, { title: 'Credit notes share the numbering', prose: 'One sequence for both.' });
    const edge = await agentRelate(t, ws, b, a, 'constrained_by');
    await client.get('/review');
    const res = await client.post('/review', { one: `approve ${await shown(t, edge)}` });
    expect(res.status).toBe(303);
    expect(res.location).toMatch(/^\/review\?done=approve&n=0&e=1&cs=changeset_/);
    expect(await edgeLifecycle(edge)).toBe('active');
    const [cs] = await t.sql<{ source: string; actor_id: string }[]>`
      select cs.source, cs.actor_id from doco.edges e join doco.changesets cs on cs.id = e.changeset_id where e.id = ${edge}`;
    expect(cs).toEqual({ source: 'ui', actor_id: ws.principalId });
    const after = textOf((await client.get(res.location!)).html);
    expect(after).toContain('Approved: 1 relation(s)');
    expect(after).not.toContain('Credit notes share the numbering constrained_by');
  });

  it('says a relation to a pending record waits for it, and approves both when both are selected', async () => {
    const settled = await personCapture(t, ws, { title: 'Exports are CSV', prose: 'Exports are CSV files.' });
    const proposed = await agentCapture(t, ws, { title: 'Exports may be Parquet', prose: 'Parquet too.', lifecycle: 'queued' });
    const edge = await agentRelate(t, ws, proposed, settled, 'relates_to');
    const page = textOf((await client.get('/review')).html);
    expect(page).toContain('Approvable once Exports may be Parquet (queued) is active: approve it first, or select both.');
    // Alone it is refused, changing nothing.
    const alone = await expectNoWrite(t, async () => client.post('/review', { one: `approve ${await shown(t, edge)}` }));
    expect(alone.status).toBe(409);
    expect(await edgeLifecycle(edge)).toBe('queued');
    // Selected with its record (in either order), the record goes first.
    const both = await client.post('/review', { action: 'approve', ids: [await selected(t, edge), await selected(t, proposed)] });
    expect(both.status).toBe(303);
    expect(both.location).toMatch(/done=approve&n=1&e=1&/);
    expect(await edgeLifecycle(edge)).toBe('active');
    expect(textOf((await client.get(both.location!)).html)).toContain('Approved: 1 record(s) and 1 relation(s)');
  });

  it('rejects one (retired), and refuses another workspace’s relation or a relation as a replacement, changing nothing', async () => {
    const a = await personCapture(t, ws, { title: 'Webhooks retry three times', prose: 'Then they give up.' });
    const b = await personCapture(t, ws, { title: 'Webhook payloads are signed', prose: 'HMAC-SHA256.' });
    const edge = await agentRelate(t, ws, a, b, 'relates_to');
    await client.get('/review');
    const replace = await expectNoWrite(t, async () => client.post('/review', { one: `replace ${await shown(t, edge)} ${a}` }));
    expect(replace.status).toBe(400);
    expect(await edgeLifecycle(edge)).toBe('queued');
    expect((await client.post('/review', { one: `reject ${await shown(t, edge)}` })).status).toBe(303);
    expect(await edgeLifecycle(edge)).toBe('retired');
    await createCollection(t.db, other.id, { slug: 'product-decisions', template: 'product-decisions', goal: 'Elsewhere' });
    const x = await personCapture(t, other, { title: 'Elsewhere one', prose: 'Another workspace.' });
    const y = await personCapture(t, other, { title: 'Elsewhere two', prose: 'Another workspace.' });
    const foreign = await agentRelate(t, other, x, y);
    await client.get('/review');
    const res = await expectNoWrite(t, async () => client.post('/review', { one: `approve ${await shown(t, foreign)}` }));
    expect(res.status).toBe(404);
    expect(await edgeLifecycle(foreign)).toBe('queued');
  });

  it('approving a replaces relation retires the record it replaces, as a supersede does; only then does the replacement govern its paths', async () => {
    const older = await personCapture(t, ws, { title: 'Receipts are PDFs', prose: 'Receipts render in app/receipts/pdf.ts.' });
    const newer = await personCapture(t, ws, { title: 'Receipts are HTML', prose: 'Receipts render as pages.' });
    const edge = await agentRelate(t, ws, newer, older, 'replaces');
    const inherited = async () =>
      (await t.sql<{ value: string }[]>`select value from doco.touches where node_id = ${newer} and inherited_from = ${older}`).map(
        (r) => r.value,
      );
    // Waiting for review, the relation gives the person's record no paths.
    expect(await inherited()).toEqual([]);
    expect(textOf((await client.get('/review')).html)).toContain(
      'Approving it retires Receipts are PDFs: Receipts are HTML takes its place, as a supersede does.',
    );
    const res = await client.post('/review', { one: `approve ${await shown(t, edge)}` });
    expect(res.status).toBe(303);
    expect(await edgeLifecycle(edge)).toBe('active');
    expect(await recordLifecycle(older)).toBe('retired');
    expect(await inherited()).toEqual(['app/receipts/pdf.ts']);
  });

  it('“Approve, replacing it” approves the replaces relation the record carries, in the same changeset, and says who proposed it', async () => {
    const older = await personCapture(t, ws, { title: 'Refund window is 30 days', prose: 'Refunds within 30 days.' });
    const proposed = await agentCapture(t, ws, {
      title: 'Refund window is 60 days',
      prose: 'Refunds within 60 days.',
      lifecycle: 'queued',
    });
    const edge = await agentRelate(t, ws, proposed, older, 'replaces');
    expect(textOf(itemOf((await client.get('/review')).html, proposed))).toContain(
      '(its replaces relation, proposed by agent:claude-code@checkout)',
    );
    const res = await client.post('/review', { one: `replace ${await shown(t, proposed)} ${older}` });
    expect(res.status).toBe(303);
    expect(await recordLifecycle(proposed)).toBe('active');
    expect(await recordLifecycle(older)).toBe('retired');
    expect(await edgeLifecycle(edge)).toBe('active');
    const sets = await t.sql<{ changeset_id: string }[]>`
      select changeset_id from doco.nodes where id in (${proposed}, ${older}) union select changeset_id from doco.edges where id = ${edge}`;
    expect(sets).toHaveLength(1);
  });

  it('names who proposed a relation, not who sent it on; with only relations waiting, offers the bulk actions', async () => {
    const a = await personCapture(t, ws, { title: 'Dunning emails go out weekly', prose: 'Every Monday.' });
    const b = await personCapture(t, ws, { title: 'Invoices are due in 14 days', prose: 'Net 14.' });
    const drafted = await agentChangeset(t, ws, [{ op: 'relate', from: a, to: b, edge_type: 'relates_to', lifecycle: 'drafting' }]);
    const edge = drafted.edges[0]!.id;
    await client.get('/review');
    expect((await client.post('/review', { one: `queue ${await shown(t, edge)}` })).status).toBe(303);
    expect(await edgeLifecycle(edge)).toBe('queued');
    const item = textOf(itemOf((await client.get('/review')).html, edge));
    expect(item).toContain('by agent:claude-code@checkout');
    expect(item).toContain('via mcp');
    // Nothing but relations waiting: the selection's actions are there, and act on them.
    await t.sql`update doco.nodes set lifecycle = 'retired' where workspace_id = ${ws.id} and lifecycle in ('drafting', 'queued')`;
    const page = (await client.get('/review')).html;
    expect(page).toContain('id="bulk"');
    const res = await client.post('/review', { action: 'approve', ids: [await selected(t, edge)] });
    expect(res.status).toBe(303);
    expect(await edgeLifecycle(edge)).toBe('active');
  });
});
