// Every console page renders what it promises, for the signed-in workspace only: overview
// (counts, chain check and re-verify, outbox, a refused reap as an alarm, recent briefs), a
// record (versions with their diff, hashes, chain, links, briefs that served it), briefs (list,
// one brief, the try form), search with filters, and docs (runs, manifest, sections).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDoco } from '../../helpers/cli.js';
import { signedIn, textOf } from '../../helpers/console.js';
import { agentCapture, personCapture, shown, startConsoleFixture, type ConsoleFixture } from '../../helpers/console-seed.js';
import { expectNoWrite } from '../../helpers/expect-error.js';

let t: ConsoleFixture['t'];
let ws: ConsoleFixture['ws'];
let other: ConsoleFixture['other'];
let app: ConsoleFixture['app'];
let seed: ConsoleFixture['seed'];
let client: ConsoleFixture['client'];

beforeAll(async () => {
  ({ t, ws, other, app, seed, client } = await startConsoleFixture('console-pages'));
});
afterAll(async () => t.drop());

describe('overview', () => {
  it('shows records by lifecycle and type, the outbox, and no chain check yet', async () => {
    const page = await client.get('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.html.startsWith('<!DOCTYPE html>')).toBe(true);
    const text = textOf(page.html);
    expect(text).toMatch(/3 records/);
    expect(text).toMatch(/1 queued/);
    expect(text).toContain('Refunds go back to the card');
    expect(text).toContain('Not checked yet');
    expect(text).toMatch(/\d+ waiting to be indexed/);
  });
  it('re-verify records a check; a tampered version shows as broken', async () => {
    expect((await client.post('/verify', {})).status).toBe(303);
    expect(textOf((await client.get('/')).html)).toContain('Every chain verifies');
    await t.sql.begin(async (tx) => {
      await tx`set local session_replication_role = replica`;
      await tx`update doco.node_versions set prose = 'tampered' where node_id = ${seed.decision} and version = 1`;
    });
    await client.post('/verify', {});
    const text = textOf((await client.get('/')).html);
    expect(text).toContain('broken link(s)');
    expect(text).toContain(seed.decision);
    const record = textOf((await client.get(`/records/${seed.decision}`)).html);
    expect(record).toContain('chain does not verify');
    expect(record).toContain("v1: hash does not match the version's content");
    await t.sql.begin(async (tx) => {
      await tx`set local session_replication_role = replica`;
      await tx`update doco.node_versions set prose = 'Refunds go back to the card that paid, never as store credit.' where node_id = ${seed.decision} and version = 1`;
    });
  });
  it('shows the last verification whoever ran it: doco verify records one check per workspace', async () => {
    const tamper = (prose: string) =>
      t.sql.begin(async (tx) => {
        await tx`set local session_replication_role = replica`;
        await tx`update doco.node_versions set prose = ${prose} where node_id = ${seed.decision} and version = 1`;
      });
    const env = { DATABASE_URL: t.url, DOCO_HOME: await mkdtemp(path.join(os.tmpdir(), 'doco-console-verify-')) };
    try {
      expect((await client.post('/verify', {})).status).toBe(303);
      await tamper('tampered');
      const broken = await runDoco(['verify'], { env });
      expect(broken.code, broken.stderr).toBe(1);
      const text = textOf((await client.get('/')).html);
      expect(text).toContain('1 broken link(s)');
      expect(text).toContain(`node ${seed.decision} v1`);
      expect(text).toMatch(/Checked just now by doco verify \(the whole database, \d+ ms\)/);
      // The other workspace's check is its own: intact, and none of this workspace's ids.
      const theirs = await signedIn(t, app.app, other, 'read');
      const theirText = textOf((await theirs.get('/')).html);
      expect(theirText).toContain('Every chain verifies');
      expect(theirText).toContain('by doco verify');
      expect(theirText).not.toContain(seed.decision);
      await tamper('Refunds go back to the card that paid, never as store credit.');
      expect((await runDoco(['verify'], { env })).code).toBe(0);
      expect(textOf((await client.get('/')).html)).toContain('Every chain verifies');
      const rows = await t.sql<{ via: string; principal_id: string | null }[]>`
        select via, principal_id from doco.chain_checks where workspace_id = ${ws.id} order by id desc limit 3`;
      expect(rows.map((r) => r.via)).toEqual(['cli', 'cli', 'console']);
      expect(rows[0]!.principal_id).toBeNull();
      expect(rows[2]!.principal_id).toBe(ws.principalId);
    } finally {
      await rm(env.DOCO_HOME, { recursive: true, force: true });
    }
  });
  it('re-verify needs the CSRF token', async () => {
    const [before] = await t.sql<{ n: number }[]>`select count(*)::int as n from doco.chain_checks`;
    expect((await client.post('/verify', { _csrf: 'nope' })).status).toBe(403);
    const [after] = await t.sql<{ n: number }[]>`select count(*)::int as n from doco.chain_checks`;
    expect(after!.n).toBe(before!.n);
  });
  it('a refused reap is an alarm with its reason; packs, connectors and briefs are listed', async () => {
    await t.sql`
      insert into doco.doc_ingest_runs (workspace_id, source, root, status, finished_at, files, created, updated, skipped, unchanged_files, reap_outcome, reap_reason, reap_count)
      values (${ws.id}, 'fs', '/repo', 'finished', now(), 12, 0, 0, 0, 12, 'refused', 'would reap 40 of 120 sections (more than a quarter)', 0)`;
    await t.sql`insert into doco.docs_packs (workspace_id, code, base_url) values (${ws.id}, 'billing', 'http://billing.internal:8080')`;
    await t.sql`insert into doco.connectors (id, workspace_id, kind, routing_key, target) values ('connector_01K8Z3QH0000000000000000AA', ${ws.id}, 'github', '42', 'acme/api')`;
    const text = textOf((await client.get('/')).html);
    expect(text).toContain('Reap refused');
    expect(text).toContain('would reap 40 of 120 sections (more than a quarter)');
    expect(text).toContain('billing');
    expect(text).toContain('acme/api');
  });
  it("shows a Notion connector's webhook handshake: awaited, its token to a write session only, and what to do once the hour is gone", async () => {
    const id = 'connector_01K8Z3QH0000000000000000NN';
    await t.sql`insert into doco.connectors (id, workspace_id, kind, routing_key) values (${id}, ${ws.id}, 'notion', 'integration')`;
    expect(textOf((await client.get('/')).html)).toMatch(/awaiting Notion's webhook handshake until \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    await t.sql`insert into doco.connector_state (connector_id, key, value) values (${id}, 'webhook_verification_token', ${t.sql.json({ token: 'secret_console_handshake', received_at: '2026-05-01T10:00:00Z' })})`;
    expect(textOf((await client.get('/')).html)).toContain(
      "webhook verification token (paste it into Notion's Verify dialog): secret_console_handshake",
    );
    const reader = await signedIn(t, app.app, ws, 'read');
    const asReader = textOf((await reader.get('/')).html);
    expect(asReader).toContain('webhook verification token received (a write session shows it)');
    expect(asReader).not.toContain('secret_console_handshake');
    await t.sql`delete from doco.connector_state where connector_id = ${id}`;
    await t.sql`update doco.connectors set created_at = now() - interval '2 hours' where id = ${id}`;
    const closed = textOf((await client.get('/')).html);
    expect(closed).toContain('no webhook verification token: the handshake window closed');
    expect(closed).toContain(`run doco connector rearm ${id}`);
    expect(closed).toContain('then have Notion send the token again');
    await t.sql`delete from doco.connectors where id = ${id}`;
  });
});

describe('icon', () => {
  it('links an SVG icon from every page and answers /favicon.ico with the same mark, to anyone, under a strict CSP', async () => {
    expect((await client.get('/')).html).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml"/>');
    const svg = await app.app.request('/favicon.svg');
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    expect(await svg.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^]*<\/svg>$/);
    const ico = await app.app.request('/favicon.ico');
    expect(ico.status).toBe(200);
    expect(ico.headers.get('content-type')).toBe('image/x-icon');
    const bytes = Buffer.from(await ico.arrayBuffer());
    // ICONDIR (reserved 0, type 1, one image), then a 32×32 32-bit entry whose BMP follows at byte 22.
    expect([bytes.readUInt16LE(0), bytes.readUInt16LE(2), bytes.readUInt16LE(4), bytes[6], bytes[7], bytes.readUInt16LE(12)]).toEqual([
      0, 1, 1, 32, 32, 32,
    ]);
    expect(bytes.readUInt32LE(14) + 22).toBe(bytes.length);
    for (const res of [svg, ico]) {
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });
});

describe('record', () => {
  it('shows the current text, body fields, every version with its diff, hashes and chain', async () => {
    const page = await client.get(`/records/${seed.decision}`);
    expect(page.status).toBe(200);
    const text = textOf(page.html);
    expect(text).toContain('Refunds go back to the card that paid, never as store credit. Partial refunds included.');
    expect(text).toContain('How do customers get their money back?');
    expect(text).toContain('History (2 versions)');
    expect(page.html).toMatch(/<ins>[^<]*Partial refunds included\.<\/ins>/);
    expect(text).toContain('Chain verifies');
    const [v2] = await t.sql<
      { hash: string; prev_hash: string }[]
    >`select hash, prev_hash from doco.node_versions where node_id = ${seed.decision} and version = 2`;
    expect(text).toContain(v2!.hash);
    expect(text).toContain(v2!.prev_hash);
  });
  it('shows removed words as deletions and links in and out', async () => {
    const old = await personCapture(t, ws, {
      title: 'Tax is computed at checkout',
      prose: 'Tax is computed at checkout by the tax service.',
    });
    await client.get('/review');
    const next = await agentCapture(t, ws, {
      title: 'Tax is computed on the invoice',
      prose: 'Tax is computed on the invoice.',
      lifecycle: 'queued',
    });
    await client.post('/review', { one: `replace ${await shown(t, next)} ${old}` });
    const oldPage = await client.get(`/records/${old}`);
    expect(textOf(oldPage.html)).toContain('Tax is computed on the invoice');
    expect(oldPage.html).toContain('replaces');
    const newPage = await client.get(`/records/${next}`);
    expect(newPage.html).toMatch(/Lifecycle <span class="pill pill-queued">queued<\/span> → <span class="pill pill-active">active<\/span>/);
  });
  it("shows a doc section's source as fields, and links a source's URL when there is one", async () => {
    const section = await personCapture(t, ws, {
      title: 'CLI — `doco verify` exit codes',
      prose: 'doco verify exits 1 when a chain is broken and 0 when every chain verifies.',
      node_type: 'reference',
      body: {
        shape: 'docSection',
        source_kind: 'doc',
        source_type: 'doc_expectation',
        pointer: { path: 'docs/cli.md', heading: '`doco verify` exit codes', section_key: 'docs/cli.md#doco-verify-exit-codes' },
        heading_path: ['CLI', 'Checking the chains'],
      },
    });
    const page = await client.get(`/records/${section}`);
    const text = textOf(page.html);
    expect(text).toContain('source file docs/cli.md heading doco verify exit codes section key docs/cli.md#doco-verify-exit-codes');
    expect(text).toContain('heading path CLI › Checking the chains');
    expect(page.html).toContain('<code>doco verify</code> exit codes');
    expect(page.html).not.toMatch(/&quot;path&quot;|"path":|`doco verify`/);
    // A doc section's pointer has no URL: the path is text, not a link.
    expect(page.html).not.toMatch(/<a [^>]*>\s*<code>docs\/cli\.md<\/code>/);

    const issue = await personCapture(t, ws, {
      title: 'Issue acme/api#7: refunds fail for Amex',
      prose: 'Refunds to Amex cards fail with a 502.',
      node_type: 'reference',
      body: { source_kind: 'github', pointer: { repo: 'acme/api', number: 7, url: 'https://github.com/acme/api/issues/7', state: 'open' } },
    });
    const linked = await client.get(`/records/${issue}`);
    expect(linked.html).toContain('<a href="https://github.com/acme/api/issues/7"');
    expect(textOf(linked.html)).toContain('repository acme/api number 7 state open link https://github.com/acme/api/issues/7');

    const hostile = await personCapture(t, ws, {
      title: 'A pointer with a script URL',
      prose: 'Its pointer names a javascript: URL, which is shown as nothing to click.',
      node_type: 'reference',
      body: { pointer: { path: 'docs/x.md', url: 'javascript:alert(1)' } },
    });
    expect((await client.get(`/records/${hostile}`)).html).not.toContain('href="javascript:');
  });
  it('another workspace\u2019s record is 404; a malformed id is 400', async () => {
    const foreign = await personCapture(t, other, { title: 'Theirs', prose: 'Private to them.', collection: 'constitution' });
    const res = await client.get(`/records/${foreign}`);
    expect(res.status).toBe(404);
    expect(res.html).not.toContain('Private to them');
    const bad = await client.get('/records/not-an-id');
    expect(bad.status).toBe(400);
    // The message names the field and shows what a record id looks like.
    expect(textOf(bad.html)).toContain(
      'id must be a record id: its type in lowercase, an underscore and 26 capital letters and digits, such as decision_01K8Z3QH4V6X9M2T7R5B3N8P1D',
    );
    expect(bad.html).not.toContain('(form)');
  });
});

describe('briefs', () => {
  it('try a brief: composes as the signed-in principal, then shows tiers, because, timings', async () => {
    await client.get('/briefs');
    const res = await client.post('/briefs', {
      about: 'How do refunds reach the customer?',
      touching: 'app/routes/billing.tsx\n',
      budget: '3000',
    });
    expect(res.status).toBe(303);
    const id = res.location!.replace('/briefs/', '');
    expect(id).toMatch(/^brief_/);
    const [row] = await t.sql<
      { principal_id: string; request: { budget: number; touching: string[] } }[]
    >`select principal_id, request from doco.briefs where id = ${id}`;
    expect(row!.principal_id).toBe(ws.principalId);
    expect(row!.request).toMatchObject({ budget: 3000, touching: ['app/routes/billing.tsx'] });
    const page = await client.get(res.location!);
    const text = textOf(page.html);
    expect(text).toContain('Already decided');
    expect(text).toContain('Refunds go back to the card');
    expect(text).toContain('because:');
    expect(text).toContain('Timings');
    expect(text).toContain('rerank and synthesis');
    expect(text).toContain('As the agent saw it');
    expect(textOf((await client.get('/briefs')).html)).toContain('How do refunds reach the customer?');
    // The record page names the briefs that served it.
    expect(textOf((await client.get(`/records/${seed.decision}`)).html)).toContain('How do refunds reach the customer?');
  });
  it('lists receipts with no emoji, which a machine without an emoji font shows as boxes: 🔮 is a drawn mark', async () => {
    const [stored] = await t.sql<{ receipt: string }[]>`select receipt from doco.briefs limit 1`;
    expect(stored!.receipt).toContain('\u{1F52E}'); // agents still read the receipt as stored
    await client.post('/verify', {});
    // One brief's page: its Receipt box draws the mark too ("As the agent saw it" stays verbatim).
    const [one] = await t.sql<{ id: string }[]>`select id from doco.briefs limit 1`;
    const receipt = /id="receipt"[\s\S]*?<\/p>/.exec((await client.get(`/briefs/${one!.id}`)).html)?.[0] ?? '';
    expect(receipt).toContain('<span class="mark mark-orb" aria-hidden="true"></span> Doco]');
    expect(receipt).not.toMatch(/\p{Emoji_Presentation}/u);
    for (const path of ['/', '/briefs', `/records/${seed.decision}`]) {
      const page = await client.get(path);
      expect(page.html, path).not.toMatch(/\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F|[\u2713\u2717]/u);
      if (path !== `/records/${seed.decision}`)
        expect(page.html, path).toContain('<span class="mark mark-orb" aria-hidden="true"></span> Doco]');
      if (path !== '/briefs') expect(page.html, path).toContain('<span class="mark mark-ok" aria-hidden="true"></span>');
    }
  });
  it('bad brief input is a 400 page naming the field, and stores nothing', async () => {
    await client.get('/briefs');
    for (const fields of [{ about: '   ' }, { about: 'ok', budget: 'lots' }, { about: 'ok', budget: '5' }] as Record<string, string>[]) {
      const [before] = await t.sql<{ n: number }[]>`select count(*)::int as n from doco.briefs`;
      const res = await client.post('/briefs', fields);
      expect(res.status).toBe(400);
      const [after] = await t.sql<{ n: number }[]>`select count(*)::int as n from doco.briefs`;
      expect(after!.n).toBe(before!.n);
    }
  });
  it('a read session may try a brief (it reads); another workspace\u2019s brief is 404', async () => {
    const reader = await signedIn(t, app.app, ws, 'read');
    await reader.get('/briefs');
    expect((await reader.post('/briefs', { about: 'webhook retries' })).status).toBe(303);
    const theirs = await signedIn(t, app.app, other);
    await theirs.get('/briefs');
    const mine = await theirs.post('/briefs', { about: 'anything' });
    expect((await client.get(mine.location!)).status).toBe(404);
    expect((await client.get('/briefs/brief_nope')).status).toBe(400);
  });
});

describe('search', () => {
  it('finds records and honours the type and collection filters', async () => {
    const page = await client.get('/search?q=refunds+card&type=&collection=&shape=');
    expect(page.status).toBe(200);
    expect(textOf(page.html)).toContain('Refunds go back to the card');
    const filtered = await client.get('/search?q=refunds+card&type=rule');
    expect(textOf(filtered.html)).not.toContain('Refunds go back to the card');
    expect(textOf(filtered.html)).toContain('0 results');
    expect(textOf((await client.get('/search?q=refunds&collection=constitution')).html)).not.toContain('Refunds go back to the card');
  });
  it('a type alone lists the newest of that type; a bad filter is 400; the query form is labelled', async () => {
    expect(textOf((await client.get('/search?type=decision')).html)).toContain('Newest decision records');
    expect((await client.get('/search?q=x&type=widget')).status).toBe(400);
    expect((await client.get('/search?type=widget')).status).toBe(400);
    expect((await client.get('/search?q=x&collection=nope')).status).toBe(404);
    const page = await client.get('/search');
    for (const id of ['q', 'type', 'collection', 'shape']) expect(page.html).toContain(`<label for="${id}">`);
    // Every shape /search takes, connectors' records' among them.
    for (const shape of ['docSection', 'pullRequest', 'slackThread', 'driveFile']) expect(page.html).toContain(`<option value="${shape}"`);
  });
});

describe('docs', () => {
  it('lists ingest runs, the manifest by path, and each section\u2019s record', async () => {
    const section = await personCapture(t, ws, {
      title: 'Refund flow',
      prose: 'How a refund flows from the API to the ledger.',
      node_type: 'reference',
    });
    await t.sql`insert into doco.doc_manifest (workspace_id, source, section_key, path, hash, node_id) values (${ws.id}, 'fs', 'docs/billing.md#refund-flow', 'docs/billing.md', 'abc123def4567890', ${section})`;
    const page = await client.get('/docs');
    expect(page.status).toBe(200);
    const text = textOf(page.html);
    expect(text).toContain('docs/billing.md');
    expect(text).toContain('Reap refused');
    const one = await client.get('/docs?path=docs%2Fbilling.md');
    expect(textOf(one.html)).toContain('docs/billing.md#refund-flow');
    expect(one.html).toContain(`href="/records/${section}"`);
    expect(textOf((await client.get('/docs?path=docs%2Fnone.md')).html)).toContain('No section');
  });
});

describe('a read session', () => {
  it('browses every page', async () => {
    const reader = await signedIn(t, app.app, ws, 'read');
    for (const path of ['/', '/review', `/records/${seed.decision}`, '/briefs', '/search?q=refund', '/docs', '/tokens']) {
      expect({ path, status: (await reader.get(path)).status }).toEqual({ path, status: 200 });
    }
  });
  it('may re-verify the chains (a read), but not write', async () => {
    const reader = await signedIn(t, app.app, ws, 'read');
    await reader.get('/');
    expect((await expectNoWrite(t, () => reader.post('/verify', {}))).status).toBe(303);
  });
});
