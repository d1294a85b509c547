// Who may call what, walked whole: every route the app registers × every kind of caller (no
// credential, a person's read token, an agent's read token (what its hooks hold), an agent's
// write token (its MCP entry's), another workspace's person, the workspace's person), each cell's answer derived from the route's own declaration
// (src/http/admits.ts), and every refusal shown to change nothing in the database. A route
// without a declaration, or without a sample request here, fails the first test; the MCP tools
// are walked the same way; and docs/security.md's table must be the declarations, row for row.
import { readFile } from 'node:fs/promises';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, createToken } from '../../src/auth/tokens.js';
import { buildApp } from '../../src/http/app.js';
import { routeTable, type Admission, type DeclaredRoute } from '../../src/http/admits.js';
import { mcpTools } from '../../src/http/mcp/server.js';
import { noJudge } from '../../src/providers/judge.js';
import { makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { sessionFor, signInForm } from '../helpers/console.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { makeTree, removeTree, ingestTree, prose } from '../helpers/docs.js';
import { expectError } from '../helpers/expect-error.js';
import { callTool, connectMcp } from '../helpers/mcp.js';
import { localProviders } from '../helpers/search.js';
import { stateDigest } from '../helpers/state.js';

type Caller = 'none' | 'read' | 'agentRead' | 'agent' | 'foreign' | 'person';
/** The workspace's person goes last: its success may use up what the route acts on. */
const CALLERS: Caller[] = ['none', 'read', 'agentRead', 'agent', 'foreign', 'person'];

interface Request {
  path: string;
  /** JSON for token routes, a form for console posts (the CSRF token is added). */
  body?: unknown;
  headers?: Record<string, string>;
}

interface Sample {
  /** The request a caller sends (a fresh one per cell where a second would collide). */
  request: (caller: Caller) => Request | Promise<Request>;
  /** The status an admitted caller gets. */
  ok: number;
  /** The status another workspace's person gets when the request names this workspace's things. */
  foreign?: number;
}

let t: TestDb;
let a: TestWorkspace;
let b: TestWorkspace;
let app: ReturnType<typeof buildApp>;
let agentToken: string;
let agentReadToken: string;
let agentPrincipalId: string;
let docsRoot: string;
const ids = { rule: '', decision: '', brief: '', connector: '', queued: [] as string[], revocable: '', endable: '' };
let counter = 0;
const unique = (caller: Caller) => `${caller}-${++counter}`;

const json = async (method: string, path: string, token: string, body?: unknown) => {
  const res = await app.request(path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
};

beforeAll(async () => {
  t = await createTestDb();
  a = await makeWorkspace(t, 'table-a');
  b = await makeWorkspace(t, 'table-b');
  app = buildApp({
    db: t.db,
    sql: t.sql,
    judge: noJudge,
    version: 'test',
    ...localProviders(),
    githubWebhookSecret: 'github-secret',
    slackSigningSecret: 'slack-secret',
  });
  agentToken = (await json('POST', '/api/v1/hooks/tokens', a.writeToken, { agent: 'codex', checkout: 'table' })).mcp_token;
  agentPrincipalId = (await authenticate(t.sql, agentToken))!.principalId;
  agentReadToken = await createToken(t.db, {
    workspaceId: a.id,
    principalId: agentPrincipalId,
    scope: 'read',
    label: 'table: agent hooks',
  });
  const capture = (token: string, title: string, node_type = 'rule') =>
    json('POST', '/api/v1/capture', token, { collection: 'constitution', node_type, title, prose: `${title}: ${prose(title, 2)}` });
  ids.rule = (await capture(a.writeToken, 'Refunds go back to the card')).node.id;
  ids.decision = (await capture(a.writeToken, 'Refund emails come from billing', 'decision')).node.id;
  ids.queued.push((await capture(agentToken, 'Agents propose refund wording')).node.id);
  ids.brief = (await json('POST', '/api/v1/brief', a.readToken, { about: 'refunds' })).brief_id;
  ids.connector = (await json('POST', '/api/v1/connectors', a.writeToken, { kind: 'notion' })).connector.id;
  await json('POST', '/api/v1/system/docs/packs', a.writeToken, { code: 'table-pack', base_url: 'https://packs.example.com' });
  await createToken(t.db, { workspaceId: a.id, principalId: a.principalId, scope: 'read', label: 'table: to revoke' });
  const [revocable] = await t.sql<{ id: string }[]>`select id from doco.tokens where label = 'table: to revoke'`;
  ids.revocable = revocable!.id;
  await sessionFor(t, { workspaceId: a.id, principalId: a.principalId, scope: 'read' });
  const [endable] = await t.sql<{ id_hash: string }[]>`select id_hash from doco.console_sessions order by created_at desc limit 1`;
  ids.endable = endable!.id_hash;
  docsRoot = await makeTree({ 'docs/guide.md': `# Guide\n\n## Refunds\n\n${prose('refunds')}\n` });
  await ingestTree(t, a, docsRoot);
});
afterAll(async () => {
  await removeTree(docsRoot);
  await t.drop();
});

const mcpList = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
const badSignature = { 'x-hub-signature-256': 'sha256=00', 'x-github-event': 'push', 'x-github-delivery': 'table-1' };

/**
 * One sample request per route, keyed `METHOD path` as the app registers it. A webhook's `ok` is
 * what its source would get; no caller here is that source, so each gets 401.
 */
const SAMPLES: Record<string, Sample> = {
  'GET /healthz': { request: () => ({ path: '/healthz' }), ok: 200 },
  'GET /readyz': { request: () => ({ path: '/readyz' }), ok: 200 },
  'GET /api/v1/healthz': { request: () => ({ path: '/api/v1/healthz' }), ok: 200 },
  'GET /api/v1/readyz': { request: () => ({ path: '/api/v1/readyz' }), ok: 200 },
  'GET /api/v1/system/docs/pack': { request: () => ({ path: '/api/v1/system/docs/pack' }), ok: 200 },
  'POST /webhooks/github': { request: () => ({ path: '/webhooks/github', body: { zen: 'hi' }, headers: badSignature }), ok: 202 },
  'POST /webhooks/notion': {
    request: () => ({
      path: '/webhooks/notion',
      body: { id: 'evt', type: 'page.created' },
      headers: { 'x-notion-signature': 'sha256=00' },
    }),
    ok: 202,
  },
  'POST /webhooks/slack/events': {
    request: () => ({
      path: '/webhooks/slack/events',
      body: { type: 'event_callback' },
      headers: { 'x-slack-request-timestamp': String(Math.floor(Date.now() / 1000)), 'x-slack-signature': 'v0=00' },
    }),
    ok: 200,
  },
  'GET /api/v1/templates': { request: () => ({ path: '/api/v1/templates' }), ok: 200 },
  'GET /api/v1/collections': { request: () => ({ path: '/api/v1/collections' }), ok: 200 },
  'POST /api/v1/collections': {
    request: (c) => ({ path: '/api/v1/collections', body: { slug: `table-${unique(c)}`, template: 'runbooks', goal: 'How we run it' } }),
    ok: 201,
  },
  'PATCH /api/v1/collections/:slug': {
    request: () => ({ path: '/api/v1/collections/constitution', body: { agents_may_activate: false } }),
    ok: 200,
  },
  'GET /api/v1/workspace': { request: () => ({ path: '/api/v1/workspace' }), ok: 200 },
  'PATCH /api/v1/workspace': { request: () => ({ path: '/api/v1/workspace', body: { agents_may_activate: false } }), ok: 200 },
  'POST /api/v1/capture': {
    request: (c) => ({
      path: '/api/v1/capture',
      body: { collection: 'constitution', node_type: 'rule', prose: `Rule ${unique(c)}: ${prose(c, 1)}` },
    }),
    ok: 201,
  },
  'POST /api/v1/relate': {
    // A fresh record each time: one live edge of a type joins two records.
    request: async (c) => {
      const from = (
        await json('POST', '/api/v1/capture', a.writeToken, {
          collection: 'constitution',
          node_type: 'decision',
          prose: `Decision ${unique(c)}: ${prose(c, 1)}`,
        })
      ).node.id;
      return { path: '/api/v1/relate', body: { from, to: ids.rule, edge_type: 'relates_to' } };
    },
    ok: 201,
    foreign: 404,
  },
  'POST /api/v1/changeset': {
    request: (c) => ({
      path: '/api/v1/changeset',
      body: { collection: 'constitution', operations: [{ op: 'create', node_type: 'rule', prose: `Rule ${unique(c)}: ${prose(c, 1)}` }] },
    }),
    ok: 201,
  },
  'GET /api/v1/nodes/:id': { request: () => ({ path: `/api/v1/nodes/${ids.rule}` }), ok: 200, foreign: 404 },
  'GET /api/v1/nodes/:id/versions': { request: () => ({ path: `/api/v1/nodes/${ids.rule}/versions` }), ok: 200, foreign: 404 },
  'GET /api/v1/nodes/:id/versions/:n': { request: () => ({ path: `/api/v1/nodes/${ids.rule}/versions/1` }), ok: 200, foreign: 404 },
  'GET /api/v1/brief.json': { request: () => ({ path: '/api/v1/brief.json?about=refunds' }), ok: 200 },
  'POST /api/v1/brief': { request: () => ({ path: '/api/v1/brief', body: { about: 'refunds' } }), ok: 200 },
  'GET /api/v1/briefs/:id': { request: () => ({ path: `/api/v1/briefs/${ids.brief}` }), ok: 200, foreign: 404 },
  'GET /api/v1/search': { request: () => ({ path: '/api/v1/search?q=refunds' }), ok: 200 },
  'POST /api/v1/system/docs/packs': {
    request: (c) => ({ path: '/api/v1/system/docs/packs', body: { code: `table-${unique(c)}`, base_url: 'https://packs.example.com' } }),
    ok: 202,
  },
  'GET /api/v1/system/docs/packs': { request: () => ({ path: '/api/v1/system/docs/packs' }), ok: 200 },
  'DELETE /api/v1/system/docs/packs/:code': { request: () => ({ path: '/api/v1/system/docs/packs/table-pack' }), ok: 200, foreign: 404 },
  'POST /api/v1/system/docs/search': { request: () => ({ path: '/api/v1/system/docs/search', body: { query: 'refunds' } }), ok: 200 },
  'GET /api/v1/system/docs/document': {
    request: () => ({ path: '/api/v1/system/docs/document?path=docs/guide.md' }),
    ok: 200,
    foreign: 404,
  },
  'GET /api/v1/whoami': { request: () => ({ path: '/api/v1/whoami' }), ok: 200 },
  'POST /api/v1/hooks/tokens': {
    request: (c) => ({ path: '/api/v1/hooks/tokens', body: { agent: 'codex', checkout: `table-${unique(c)}` } }),
    ok: 201,
  },
  'POST /api/v1/hooks/:agent/:event': {
    request: (c) => ({
      path: '/api/v1/hooks/claude-code/prompt',
      body: {
        session_id: `table-${unique(c)}`,
        transcript_path: null,
        cwd: '/nonexistent',
        hook_event_name: 'UserPromptSubmit',
        prompt: 'refunds',
      },
    }),
    ok: 200,
  },
  'GET /api/v1/connectors': { request: () => ({ path: '/api/v1/connectors' }), ok: 200 },
  'POST /api/v1/connectors': {
    // An installation of its own each time: an installation serves the first workspace on it (sql/connectors.sql).
    request: (c) => ({
      path: '/api/v1/connectors',
      body: { kind: 'github', installation_id: 7000 + ++counter, repo: `octo/table-${unique(c)}` },
    }),
    ok: 201,
  },
  'GET /api/v1/connectors/:id': { request: () => ({ path: `/api/v1/connectors/${ids.connector}` }), ok: 200, foreign: 404 },
  'POST /api/v1/connectors/:id/rearm': { request: () => ({ path: `/api/v1/connectors/${ids.connector}/rearm` }), ok: 200, foreign: 404 },
  'DELETE /api/v1/connectors/:id': { request: () => ({ path: `/api/v1/connectors/${ids.connector}` }), ok: 200, foreign: 404 },
  'POST /api/v1/align': { request: () => ({ path: '/api/v1/align', body: { changed: [{ path: 'src/refunds.ts' }] } }), ok: 200 },
  'ALL /mcp': { request: () => ({ path: '/mcp', body: mcpList, headers: { accept: 'application/json, text/event-stream' } }), ok: 200 },
  'GET /console.css': { request: () => ({ path: '/console.css' }), ok: 200 },
  'GET /favicon.svg': { request: () => ({ path: '/favicon.svg' }), ok: 200 },
  'GET /favicon.ico': { request: () => ({ path: '/favicon.ico' }), ok: 200 },
  'GET /': { request: () => ({ path: '/' }), ok: 200 },
  'GET /sign-in': { request: () => ({ path: '/sign-in' }), ok: 200 },
  'POST /sign-in': { request: () => ({ path: '/sign-in', body: {} }), ok: 303 },
  'POST /sign-out': { request: () => ({ path: '/sign-out', body: {} }), ok: 303 },
  'POST /verify': { request: () => ({ path: '/verify', body: {} }), ok: 303 },
  'GET /review': { request: () => ({ path: '/review' }), ok: 200 },
  'POST /review': { request: () => ({ path: '/review', body: { one: `approve ${ids.queued[0]} 1` } }), ok: 303, foreign: 404 },
  'GET /records/:id': { request: () => ({ path: `/records/${ids.rule}` }), ok: 200, foreign: 404 },
  'GET /briefs': { request: () => ({ path: '/briefs' }), ok: 200 },
  'POST /briefs': { request: () => ({ path: '/briefs', body: { about: 'refunds' } }), ok: 303 },
  'GET /briefs/:id': { request: () => ({ path: `/briefs/${ids.brief}` }), ok: 200, foreign: 404 },
  'GET /search': { request: () => ({ path: '/search?q=refunds' }), ok: 200 },
  'GET /docs': { request: () => ({ path: '/docs' }), ok: 200 },
  'GET /tokens': { request: () => ({ path: '/tokens' }), ok: 200 },
  'POST /tokens': { request: (c) => ({ path: '/tokens', body: { scope: 'read', label: `table ${unique(c)}` } }), ok: 200 },
  'POST /tokens/:id/revoke': { request: () => ({ path: `/tokens/${ids.revocable}/revoke`, body: {} }), ok: 303, foreign: 404 },
  'POST /sessions/:hash/end': { request: () => ({ path: `/sessions/${ids.endable}/end`, body: {} }), ok: 303, foreign: 404 },
};

interface Cell {
  status: number;
  /** Refused: the answer must change nothing. */
  refused: boolean;
}

/** What a caller gets from a route, read off its declaration alone (and, for another workspace, the sample). */
function expected(admission: Admission, sample: Sample, caller: Caller): Cell {
  if (admission.credential === 'none') return { status: sample.ok, refused: false };
  // None of these callers is the source that signs a webhook: each is turned away by the signature.
  if (admission.credential === 'signature') return { status: 401, refused: true };
  // Without a session a browser is sent to sign in; without a token (or with a bogus one pasted) it is 401.
  if (caller === 'none') return { status: admission.credential === 'session' ? 303 : 401, refused: true };
  const kind = caller === 'agent' || caller === 'agentRead' ? 'agent' : 'person';
  const writes = caller !== 'read' && caller !== 'agentRead';
  if (!admission.principals.includes(kind) || (admission.scope === 'write' && !writes)) return { status: 403, refused: true };
  if (caller === 'foreign' && sample.foreign !== undefined) return { status: sample.foreign, refused: true };
  return { status: sample.ok, refused: false };
}

const tokenOf = (caller: Caller): string | undefined =>
  ({ none: undefined, read: a.readToken, agentRead: agentReadToken, agent: agentToken, foreign: b.writeToken, person: a.writeToken })[
    caller
  ];

async function sessionOf(caller: Caller): Promise<{ cookie: string; csrf: string } | undefined> {
  switch (caller) {
    case 'none':
      return undefined;
    case 'read':
      return sessionFor(t, { workspaceId: a.id, principalId: a.principalId, scope: 'read' });
    case 'agentRead':
      return sessionFor(t, { workspaceId: a.id, principalId: agentPrincipalId, scope: 'read' });
    case 'agent':
      return sessionFor(t, { workspaceId: a.id, principalId: agentPrincipalId, scope: 'write' });
    case 'foreign':
      return sessionFor(t, { workspaceId: b.id, principalId: b.principalId, scope: 'write' });
    case 'person':
      return sessionFor(t, { workspaceId: a.id, principalId: a.principalId, scope: 'write' });
  }
}

/**
 * The request this caller sends to a route with this declaration, its credential made first (a
 * console session, the sign-in form's cookie) so that making it is not counted as the request's doing.
 */
async function present(method: string, admission: Admission, req: Request, caller: Caller): Promise<() => Promise<Response>> {
  const headers: Record<string, string> = { ...req.headers };
  let body: string | undefined;
  if (admission.credential === 'session' || admission.credential === 'sign-in') {
    // The console, as a browser sees it: a form post carries the CSRF token of its page.
    const form = new URLSearchParams(req.body as Record<string, string> | undefined);
    const held = admission.credential === 'session' ? await sessionOf(caller) : await signInForm(t);
    if (held) headers.cookie = held.cookie;
    if (admission.credential === 'sign-in') form.set('token', tokenOf(caller) ?? 'doco_not-a-token-at-all');
    headers.accept = 'text/html';
    if (method !== 'GET') {
      form.set('_csrf', held?.csrf ?? '');
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = form.toString();
    }
  } else {
    const token = tokenOf(caller);
    if (token) headers.authorization = `Bearer ${token}`;
    if (req.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.body);
    }
  }
  const init = { method: method === 'ALL' ? 'POST' : method, headers, ...(body === undefined ? {} : { body }) };
  return async () => app.request(req.path, init);
}

const routes = (): DeclaredRoute[] => routeTable(buildApp({} as never).routes);

/**
 * Behind a token, the one route that answers a browser without one (src/http/rest/brief.ts): a
 * stored brief's link, a commit's `Doco-Brief:` trailer, goes to the console's page for it.
 */
const BROWSER_LINKS: Record<string, (path: string) => string> = {
  'GET /api/v1/briefs/:id': (path) => path.replace(/^\/api\/v1/, ''),
};
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('the route table', () => {
  it('every route declares whom it admits, once, and has a sample here', () => {
    const table = routes();
    expect(table.filter((r) => r.admissions.length !== 1).map((r) => `${r.method} ${r.path}: ${r.admissions.length} declarations`)).toEqual(
      [],
    );
    const keys = table.map((r) => `${r.method} ${r.path}`);
    expect(keys.filter((k) => !SAMPLES[k]).map((k) => `${k} has no sample request in this test`)).toEqual([]);
    expect(
      Object.keys(SAMPLES)
        .filter((k) => !keys.includes(k))
        .map((k) => `${k} is not a route`),
    ).toEqual([]);
  });

  it('a route registered without a declaration shows up as undeclared', () => {
    const extra = buildApp({} as never);
    extra.post('/api/v1/forgotten', (c) => c.json({}));
    const forgotten = routeTable(extra.routes).find((r) => r.path === '/api/v1/forgotten');
    expect(forgotten?.admissions).toEqual([]);
  });

  it("behind a token, a browser without one is refused like any caller, but a stored brief's link goes to its console page", async () => {
    for (const route of routes()) {
      const key = `${route.method} ${route.path}`;
      if (route.admissions[0]?.credential !== 'token' || !SAMPLES[key]) continue;
      const req = await SAMPLES[key].request('none');
      const before = await stateDigest(t);
      const res = await app.request(req.path, {
        method: route.method === 'ALL' ? 'POST' : route.method,
        headers: { accept: BROWSER_ACCEPT, ...(req.body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(req.body === undefined ? {} : { body: JSON.stringify(req.body) }),
      });
      const link = BROWSER_LINKS[key];
      if (link) {
        expect(res.status, key).toBe(303);
        expect(res.headers.get('location'), key).toBe(link(req.path));
      } else expectError({ status: res.status, body: await res.json() }, 401, 'unauthorized');
      expect(await stateDigest(t), `${key} as a browser changed the database`).toEqual(before);
    }
    expect(Object.keys(BROWSER_LINKS).filter((k) => !routes().some((r) => `${r.method} ${r.path}` === k))).toEqual([]);
  });

  for (const route of routes()) {
    const key = `${route.method} ${route.path}`;
    const admission = route.admissions[0];
    const sample = SAMPLES[key];
    if (!admission || !sample) continue;
    it(`${key}: ${admission.principals.join(', ')} (${admission.credential}, ${admission.scope})`, async () => {
      for (const caller of CALLERS) {
        const want = expected(admission, sample, caller);
        const request = await present(route.method, admission, await sample.request(caller), caller);
        const before = want.refused ? await stateDigest(t) : undefined;
        const res = await request();
        const text = await res.text();
        expect(res.status, `${key} as ${caller}: ${text.slice(0, 300)}`).toBe(want.status);
        if (before) expect(await stateDigest(t), `${key} as ${caller} changed the database`).toEqual(before);
        // Refusals behind a token answer the one error shape.
        if (want.refused && admission.credential === 'token') {
          expectError(
            { status: res.status, body: JSON.parse(text) },
            want.status,
            want.status === 401 ? 'unauthorized' : want.status === 403 ? 'forbidden' : 'not_found',
          );
        }
        if (want.status === 303 && caller === 'none') expect(res.headers.get('location')).toMatch(/^\/sign-in/);
      }
    });
  }
});

describe('the MCP tools', () => {
  for (const tool of mcpTools) {
    it(`${tool.name}: ${tool.admits.principals.join(', ')} (${tool.admits.scope})`, async () => {
      for (const caller of CALLERS.filter((c) => c !== 'none')) {
        const admission: Admission = { ...tool.admits, credential: 'token' };
        const want = expected(admission, { request: () => ({ path: '/mcp' }), ok: 200 }, caller);
        const client = await connectMcp(app, tokenOf(caller));
        try {
          const before = await stateDigest(t);
          // Arguments no tool takes: an admitted caller gets as far as validation, a refused one not even there.
          const res = await callTool(client, tool.name, { not_an_argument: true });
          expect(res.isError).toBe(true);
          const code = v.parse(v.object({ error: v.object({ code: v.string() }) }), res.structuredContent).error.code;
          expect(code, `${tool.name} as ${caller}`).toBe(want.refused ? 'forbidden' : 'validation_failed');
          expect(await stateDigest(t)).toEqual(before);
        } finally {
          await client.close();
        }
      }
    });
  }
});

/** The rows docs/security.md's table must hold, in the app's order. */
function documentedRows(): string[] {
  const who = (a: Admission) => a.principals.join(', ');
  return [
    ...routes().map(
      (r) => `| \`${r.method} ${r.path}\` | ${r.admissions[0]!.credential} | ${who(r.admissions[0]!)} | ${r.admissions[0]!.scope} |`,
    ),
    ...mcpTools.map((tool) => `| MCP \`${tool.name}\` | token | ${tool.admits.principals.join(', ')} | ${tool.admits.scope} |`),
  ];
}

describe('docs/security.md', () => {
  it('lists every declaration as it is in the code ("Who may call what")', async () => {
    const doc = await readFile(new URL('../../docs/security.md', import.meta.url), 'utf8');
    const section = doc.split(/^## /m).find((s) => s.startsWith('Who may call what'));
    expect(section, 'docs/security.md has a section "Who may call what"').toBeDefined();
    const rows = section!.split('\n').filter((line) => /^\| (`|MCP `)/.test(line));
    expect(rows, `the table should read:\n${documentedRows().join('\n')}`).toEqual(documentedRows());
  });
});
