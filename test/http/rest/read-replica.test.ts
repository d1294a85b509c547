// DATABASE_READ_URL through the app (docs/replica.md): briefs and searches over REST, MCP, the
// hooks and the console read from the read pool; the brief is stored on the primary; a read
// asked `after_changeset` sees that write; /readyz and the console's overview say where reads go.
// The read pool here is a copy of the test database made read-only, like a standby, taken
// before one more record was written to the primary: what an answer holds says which database
// it read. A read URL where nothing answers, or one that goes away between two checks, leaves
// every read on the primary, with no 500. A real streaming replica:
// test/integration/read-replica.test.ts.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openReadReplica, type ReadRoute } from '../../../src/db/read-replica.js';
import type { Brief } from '../../../src/brief/types.js';
import { makeLog } from '../../../src/lib/log.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../../helpers/app.js';
import { signedIn, textOf } from '../../helpers/console.js';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { freePort } from '../../helpers/doco-process.js';
import { expectError } from '../../helpers/expect-error.js';
import { callToolOk, connectMcp } from '../../helpers/mcp.js';
import { localProviders } from '../../helpers/search.js';
import { tcpProxy } from '../../helpers/tcp-proxy.js';

let t: TestDb;
let ws: TestWorkspace;
let copy: { url: string; drop(): Promise<void> };
const routes: ReadRoute[] = [];
const ids: Record<string, string> = {};
let alphaChangeset: string;
const quiet = makeLog('silent');

const ASK = 'How are invoices numbered?';
const adminUrl = (url: string) => url.replace(/\/[^/]+$/, '/postgres');
const viaPort = (url: string, port: number) => url.replace(/@127\.0\.0\.1:\d+\//, `@127.0.0.1:${port}/`);

/** A read-only copy of `t`'s database as it is now (its connections are closed for the copy; the pool reopens them). */
async function readOnlyCopy(): Promise<{ url: string; drop(): Promise<void> }> {
  const source = new URL(t.url).pathname.slice(1);
  const name = `replica_${randomBytes(6).toString('hex')}`;
  const admin = postgres(adminUrl(t.url), { max: 1, onnotice: () => {} });
  try {
    for (let attempt = 0; ; attempt++) {
      await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${source} and pid <> pg_backend_pid()`;
      try {
        await admin.unsafe(`create database ${name} template ${source}`);
        break;
      } catch (err) {
        if (attempt >= 50 || (err as { code?: string }).code !== '55006') throw err;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    // As a standby is: every transaction read-only, so a write sent there would fail.
    await admin.unsafe(`alter database ${name} set default_transaction_read_only = on`);
  } finally {
    await admin.end();
  }
  return {
    url: t.url.replace(/\/[^/]+$/, `/${name}`),
    async drop() {
      const a = postgres(adminUrl(t.url), { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}

async function appReadingFrom(url: string, opts: { checkEveryMs?: number } = {}) {
  const reads = await openReadReplica(t, { url, maxLagMs: 5000, log: quiet, ...opts });
  routes.push(reads);
  return { reads, ...makeApp(t, undefined, localProviders(), { reads }) };
}

type Api = Awaited<ReturnType<typeof appReadingFrom>>;
const ok = async (api: Api, method: string, path: string, body?: unknown) => {
  const res = await api.call(method, path, method === 'GET' ? ws.readToken : ws.writeToken, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const idsOfBrief = (b: Brief) => [...Object.values(b.tiers).flat(), ...b.proposed].map((i) => i.id);
const idsOfSearch = (s: { results: { id: string }[] }) => s.results.map((r) => r.id);

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'reads');
  const primary = makeApp(t, undefined, localProviders());
  const post = async (path: string, body: unknown) => {
    const res = await primary.call('POST', `/api/v1${path}`, ws.writeToken, body);
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    return res.body;
  };
  await post('/collections', { slug: 'ledger', template: 'product-decisions', goal: 'How the shop keeps its books' });
  ids.beta = (
    await post('/capture', {
      collection: 'ledger',
      node_type: 'decision',
      title: 'Invoices are numbered per year',
      prose: 'Invoice numbers restart every January: one gapless sequence of invoices per year.',
    })
  ).node.id;
  copy = await readOnlyCopy();
  // Written after the copy: on the primary only.
  const alpha = await post('/capture', {
    collection: 'ledger',
    node_type: 'decision',
    title: 'Credit notes take invoice numbers too',
    prose: 'A credit note is numbered in the same sequence as invoices, so the invoice numbers have no gaps.',
  });
  ids.alpha = alpha.node.id;
  alphaChangeset = alpha.changeset_id;
});

afterAll(async () => {
  for (const r of routes) await r.close();
  await copy?.drop();
  await t.drop();
});

describe('with DATABASE_READ_URL', () => {
  let api: Api;
  beforeAll(async () => {
    api = await appReadingFrom(copy.url, { checkEveryMs: 60_000 });
  });

  it('reads briefs and searches over REST from it, and stores the brief on the primary', async () => {
    const found = idsOfSearch(await ok(api, 'GET', `/api/v1/search?q=${encodeURIComponent('invoice numbers')}`));
    expect(found).toContain(ids.beta);
    expect(found).not.toContain(ids.alpha);

    const brief = (await ok(api, 'GET', `/api/v1/brief.json?about=${encodeURIComponent(ASK)}`)) as Brief;
    expect(idsOfBrief(brief)).toContain(ids.beta);
    expect(idsOfBrief(brief)).not.toContain(ids.alpha);
    const posted = (await ok(api, 'POST', '/api/v1/brief', { about: ASK })) as Brief;
    expect(idsOfBrief(posted)).not.toContain(ids.alpha);
    // The copy takes no write: the briefs are on the primary.
    const stored = await t.sql`select id from doco.briefs where id in ${t.sql([brief.brief_id, posted.brief_id])}`;
    expect(stored).toHaveLength(2);
  });

  it('answers a brief or a search asked after_changeset with that write in it', async () => {
    const brief = (await ok(api, 'GET', `/api/v1/brief.json?about=${encodeURIComponent(ASK)}&after_changeset=${alphaChangeset}`)) as Brief;
    expect(idsOfBrief(brief)).toEqual(expect.arrayContaining([ids.alpha, ids.beta]));
    const posted = (await ok(api, 'POST', '/api/v1/brief', { about: ASK, after_changeset: alphaChangeset })) as Brief;
    expect(idsOfBrief(posted)).toContain(ids.alpha);
    const found = idsOfSearch(await ok(api, 'GET', `/api/v1/search?q=invoice+numbers&after_changeset=${alphaChangeset}`));
    expect(found).toEqual(expect.arrayContaining([ids.alpha, ids.beta]));
    // The request is stored as asked, marker included.
    const [row] = await t.sql<
      { after: string }[]
    >`select request->>'after_changeset' as after from doco.briefs where id = ${posted.brief_id}`;
    expect(row!.after).toBe(alphaChangeset);
  });

  it('refuses an after_changeset the workspace does not hold, or one that is no changeset id', async () => {
    const unknown = 'changeset_01K8Z3QH4V6X9M2T7R5B3N8P1D';
    const res = await api.call('GET', `/api/v1/brief.json?about=x&after_changeset=${unknown}`, ws.readToken);
    expectError(res, 404, 'not_found');
    expect(res.body.error.message).toContain(unknown);
    expectError(await api.call('GET', `/api/v1/search?q=x&after_changeset=${unknown}`, ws.readToken), 404, 'not_found');
    const bad = await api.call('POST', '/api/v1/brief', ws.readToken, { about: 'x', after_changeset: 'rule_01K8Z3QH4V6X9M2T7R5B3N8P1D' });
    expectError(bad, 400, 'validation_failed');
    expect(JSON.stringify(bad.body.error)).toContain('after_changeset');
  });

  it('reads doco_brief and doco_search over MCP from it, after_changeset included', async () => {
    const client = await connectMcp(api.app, ws.readToken);
    try {
      expect(idsOfSearch(await callToolOk(client, 'doco_search', { q: 'invoice numbers' }))).not.toContain(ids.alpha);
      expect(idsOfSearch(await callToolOk(client, 'doco_search', { q: 'invoice numbers', after_changeset: alphaChangeset }))).toContain(
        ids.alpha,
      );
      const brief = (await callToolOk(client, 'doco_brief', { about: ASK })) as Brief;
      expect(idsOfBrief(brief)).toContain(ids.beta);
      expect(idsOfBrief(brief)).not.toContain(ids.alpha);
      expect(idsOfBrief((await callToolOk(client, 'doco_brief', { about: ASK, after_changeset: alphaChangeset })) as Brief)).toContain(
        ids.alpha,
      );
    } finally {
      await client.close();
    }
  });

  it("reads a hook's brief from it, and keeps the session's memory on the primary", async () => {
    const res = await api.call('POST', '/api/v1/hooks/claude-code/prompt', ws.readToken, {
      session_id: 'replica-session',
      transcript_path: null,
      cwd: '/tmp',
      hook_event_name: 'UserPromptSubmit',
      prompt: ASK,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const text = res.body.hookSpecificOutput.additionalContext as string;
    expect(text).toContain(ids.beta);
    expect(text).not.toContain(ids.alpha);
    const sent = await t.sql`select 1 from doco.hook_sent where session_id = 'replica-session'`;
    expect(sent.length).toBeGreaterThan(0);
  });

  it("reads the console's search from it, and shows the replica on the overview", async () => {
    const browser = await signedIn(t, api.app, ws, 'read');
    const page = await browser.get(`/search?q=${encodeURIComponent('invoice numbers')}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain(ids.beta);
    expect(page.html).not.toContain(ids.alpha);
    const overview = textOf((await browser.get('/')).html);
    expect(overview).toContain('Briefs and searches read from the replica (not a standby: its lag cannot be measured)');
  });

  it('says on /readyz where reads go', async () => {
    const res = await api.app.request('/readyz');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      ok: true,
      read: { reading_from: 'replica', state: 'ok', standby: false, lag_bytes: null, lag_ms: null, max_lag_ms: 5000 },
    });
  });

  it('works with the read URL at the primary itself (a second connection to it)', async () => {
    const same = await appReadingFrom(t.url, { checkEveryMs: 60_000 });
    expect(idsOfBrief((await ok(same, 'GET', `/api/v1/brief.json?about=${encodeURIComponent(ASK)}`)) as Brief)).toEqual(
      expect.arrayContaining([ids.alpha, ids.beta]),
    );
    expect(idsOfSearch(await ok(same, 'GET', '/api/v1/search?q=invoice+numbers'))).toContain(ids.alpha);
  });
});

describe('a read URL that does not answer', () => {
  it('leaves briefs and searches on the primary, and /readyz ready, saying so', async () => {
    const api = await appReadingFrom(viaPort(copy.url, await freePort()), { checkEveryMs: 60_000 });
    expect(idsOfBrief((await ok(api, 'GET', `/api/v1/brief.json?about=${encodeURIComponent(ASK)}`)) as Brief)).toContain(ids.alpha);
    expect(idsOfSearch(await ok(api, 'GET', '/api/v1/search?q=invoice+numbers'))).toContain(ids.alpha);
    expect(idsOfBrief((await ok(api, 'POST', '/api/v1/brief', { about: ASK, after_changeset: alphaChangeset })) as Brief)).toContain(
      ids.alpha,
    );
    const res = await api.app.request('/readyz');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { read: Record<string, unknown> };
    expect(body.read).toMatchObject({ reading_from: 'primary', state: 'down', standby: null });
    // Unauthenticated: the replica's address stays in the operator's log.
    expect(JSON.stringify(body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|replica_/);

    const browser = await signedIn(t, api.app, ws, 'read');
    expect(textOf((await browser.get('/')).html)).toContain('Briefs and searches read from the primary: the replica does not answer');
  });

  it('sends a brief or a search the replica fails between two checks to the primary, with no 500', async () => {
    const proxy = await tcpProxy(Number(new URL(t.url).port));
    try {
      const api = await appReadingFrom(viaPort(t.url, proxy.port), { checkEveryMs: 60_000 });
      expect(api.reads.status().reading_from).toBe('replica');
      await proxy.close();
      // A brief's steps each turn a failure into a warning: a broken connection is not thinned into one.
      const brief = (await ok(api, 'GET', `/api/v1/brief.json?about=${encodeURIComponent(ASK)}`)) as Brief;
      expect(idsOfBrief(brief)).toContain(ids.alpha);
      expect(brief.warnings).toEqual([]);
      expect(api.reads.status()).toMatchObject({ reading_from: 'primary', state: 'down' });

      const again = await appReadingFrom(viaPort(t.url, (await proxy.open(), proxy.port)), { checkEveryMs: 60_000 });
      expect(again.reads.status().reading_from).toBe('replica');
      await proxy.close();
      expect(idsOfSearch(await ok(again, 'GET', '/api/v1/search?q=invoice+numbers'))).toContain(ids.alpha);
      expect(again.reads.status()).toMatchObject({ reading_from: 'primary', state: 'down' });
    } finally {
      await proxy.close();
    }
  });
});
