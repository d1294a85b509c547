// Authentication, scopes and workspace isolation over REST: no token is 401, a read token
// cannot write, and a token of workspace A neither sees nor touches anything of workspace B.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../../helpers/app.js';
import { expectError, expectNoWrite } from '../../helpers/expect-error.js';

let t: TestDb;
let a: TestWorkspace;
let b: TestWorkspace;
let api: ReturnType<typeof makeApp>;
let aRule: string;
let aDecision: string;
let bRule: string;
let bIdea: string;
const B_SECRET_TITLE = 'Workspace B keeps its launch date to itself';

const rejected = (status: number, code: string, fn: () => Promise<{ status: number; body: unknown }>) =>
  expectNoWrite(t, async () => {
    const res = await fn();
    expectError(res, status, code);
    return res;
  });

beforeAll(async () => {
  t = await createTestDb();
  a = await makeWorkspace(t, 'alpha');
  b = await makeWorkspace(t, 'beta');
  api = makeApp(t);
  const ar = await api.call('POST', '/api/v1/capture', a.writeToken, {
    collection: 'constitution',
    node_type: 'rule',
    title: 'Alpha reviews every change',
    prose: 'Every change in alpha gets a review.',
  });
  expect(ar.status).toBe(201);
  aRule = ar.body.node.id;
  const ad = await api.call('POST', '/api/v1/capture', a.writeToken, {
    collection: 'constitution',
    node_type: 'decision',
    prose: 'Alpha ships on Tuesdays.',
  });
  expect(ad.status).toBe(201);
  aDecision = ad.body.node.id;
  expect(
    (
      await api.call('POST', '/api/v1/collections', b.writeToken, {
        slug: 'beta-roadmap',
        template: 'roadmap',
        goal: 'What beta builds next',
      })
    ).status,
  ).toBe(201);
  const br = await api.call('POST', '/api/v1/capture', b.writeToken, {
    collection: 'constitution',
    node_type: 'rule',
    title: B_SECRET_TITLE,
    prose: 'The launch date is not shared outside beta.',
  });
  expect(br.status).toBe(201);
  bRule = br.body.node.id;
  const bi = await api.call('POST', '/api/v1/capture', b.writeToken, {
    collection: 'beta-roadmap',
    node_type: 'idea',
    prose: 'A beta-only idea.',
  });
  expect(bi.status).toBe(201);
  bIdea = bi.body.node.id;
});
afterAll(async () => t.drop());

const writeRoutes: [string, () => unknown][] = [
  ['/api/v1/capture', () => ({ collection: 'constitution', node_type: 'rule', prose: 'Read tokens cannot write this.' })],
  ['/api/v1/relate', () => ({ from: aDecision, to: aRule, edge_type: 'relates_to' })],
  ['/api/v1/changeset', () => ({ collection: 'constitution', operations: [{ op: 'create', node_type: 'rule', prose: 'nor this' }] })],
  ['/api/v1/collections', () => ({ slug: 'sneaky', template: 'runbooks', goal: 'nope' })],
];

describe('authentication', () => {
  it('no token is 401 in the error shape, on reads and writes', async () => {
    await rejected(401, 'unauthorized', () => api.call('GET', `/api/v1/nodes/${aRule}`, undefined));
    await rejected(401, 'unauthorized', () => api.call('GET', '/api/v1/collections', undefined));
    for (const [path, body] of writeRoutes) await rejected(401, 'unauthorized', () => api.call('POST', path, undefined, body()));
  });

  it('a bogus token is 401', async () => {
    await rejected(401, 'unauthorized', () => api.call('GET', `/api/v1/nodes/${aRule}`, 'doco_bogus-token-that-was-never-issued'));
    await rejected(401, 'unauthorized', () => api.call('POST', '/api/v1/capture', 'doco_bogus', writeRoutes[0]![1]()));
  });

  it('a malformed Authorization header is 401', async () => {
    for (const authorization of [a.writeToken, `Basic ${a.writeToken}`, 'Bearer', `Bearer ${a.writeToken} extra`]) {
      const res = await api.app.request(`/api/v1/nodes/${aRule}`, { headers: { authorization } });
      expectError({ status: res.status, body: await res.json() }, 401, 'unauthorized');
    }
  });

  it('a revoked token is 401', async () => {
    const { createToken } = await import('../../../src/auth/tokens.js');
    const token = await createToken(t.db, { workspaceId: a.id, principalId: a.principalId, scope: 'write' });
    expect((await api.call('GET', `/api/v1/nodes/${aRule}`, token)).status).toBe(200);
    const revoked =
      await t.sql`update doco.tokens set revoked_at = now() where token_hash = encode(sha256(convert_to(${token}, 'UTF8')), 'hex') returning id`;
    expect(revoked).toHaveLength(1);
    await rejected(401, 'unauthorized', () => api.call('GET', `/api/v1/nodes/${aRule}`, token));
  });

  it('/healthz and /readyz need no token', async () => {
    for (const path of ['/healthz', '/readyz', '/api/v1/healthz', '/api/v1/readyz']) {
      const res = await api.call('GET', path, undefined);
      expect(res.status, path).toBe(200);
      expect(res.body.ok).toBe(true);
    }
  });
});

describe('scopes', () => {
  it('a read token gets 403 on every write route and writes nothing', async () => {
    for (const [path, body] of writeRoutes) {
      const res = await rejected(403, 'forbidden', () => api.call('POST', path, a.readToken, body()));
      expect(res.status, path).toBe(403);
    }
  });

  it('the same bodies are accepted with a write token (so the 403 is the scope, not the body)', async () => {
    for (const [path, body] of writeRoutes) {
      const res = await api.call('POST', path, a.writeToken, body());
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(201);
    }
  });

  it('a read token can read', async () => {
    const node = await api.call('GET', `/api/v1/nodes/${aRule}`, a.readToken);
    expect(node.status).toBe(200);
    expect(node.body.node.id).toBe(aRule);
    expect((await api.call('GET', `/api/v1/nodes/${aRule}/versions`, a.readToken)).body.versions).toHaveLength(1);
    expect((await api.call('GET', `/api/v1/nodes/${aRule}/versions/1`, a.readToken)).status).toBe(200);
    const collections = await api.call('GET', '/api/v1/collections', a.readToken);
    expect(collections.status).toBe(200);
    expect(collections.body.collections.map((c: { slug: string }) => c.slug)).toContain('constitution');
    expect((await api.call('GET', '/api/v1/templates', a.readToken)).body.templates).toHaveLength(21);
  });
});

describe('workspace isolation', () => {
  const noLeak = (res: { body: unknown }) => {
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(B_SECRET_TITLE);
    expect(text).not.toContain(b.id);
  };

  it("A's token never reads B's node: 404, not 403, and nothing of B in the answer", async () => {
    for (const path of [`/api/v1/nodes/${bRule}`, `/api/v1/nodes/${bRule}/versions`, `/api/v1/nodes/${bRule}/versions/1`]) {
      for (const token of [a.readToken, a.writeToken]) {
        const res = await rejected(404, 'not_found', () => api.call('GET', path, token));
        noLeak(res);
      }
    }
    // And B's own token does read it: the 404 above is isolation, not a missing record.
    expect((await api.call('GET', `/api/v1/nodes/${bRule}`, b.readToken)).body.node.title).toBe(B_SECRET_TITLE);
  });

  it("A cannot relate to or from B's node", async () => {
    for (const body of [
      { from: aRule, to: bRule, edge_type: 'relates_to' },
      { from: bRule, to: aRule, edge_type: 'relates_to' },
    ])
      noLeak(await rejected(404, 'not_found', () => api.call('POST', '/api/v1/relate', a.writeToken, body)));
    noLeak(
      await rejected(404, 'not_found', () =>
        api.call('POST', '/api/v1/changeset', a.writeToken, {
          collection: 'constitution',
          operations: [
            { op: 'create', alias: 'mine', node_type: 'rule', prose: 'Mine.' },
            { op: 'relate', from: '$mine', to: bRule, edge_type: 'supports' },
          ],
        }),
      ),
    );
  });

  it("A cannot append to, retire, activate or supersede B's node", async () => {
    const ops = [
      { op: 'append', target: bRule, prose: 'Alpha was here.' },
      { op: 'retire', target: bRule },
      { op: 'activate', target: bIdea },
      { op: 'supersede', target: bRule, node_type: 'rule', prose: 'Alpha rewrote this.' },
    ];
    for (const op of ops) {
      noLeak(
        await rejected(404, 'not_found', () =>
          api.call('POST', '/api/v1/changeset', a.writeToken, { collection: 'constitution', operations: [op] }),
        ),
      );
      noLeak(await rejected(404, 'not_found', () => api.call('POST', '/api/v1/changeset', a.writeToken, { operations: [op] })));
    }
    const after = await api.call('GET', `/api/v1/nodes/${bRule}`, b.readToken);
    expect(after.body.node).toMatchObject({ lifecycle: 'active', version: 1, prose: 'The launch date is not shared outside beta.' });
  });

  it("A cannot list B's collections", async () => {
    const res = await api.call('GET', '/api/v1/collections', a.readToken);
    expect(res.status).toBe(200);
    const slugs = res.body.collections.map((c: { slug: string }) => c.slug);
    expect(slugs).not.toContain('beta-roadmap');
    noLeak(res);
    // Each workspace has its own constitution: A sees exactly one, its own.
    const ids = res.body.collections.filter((c: { slug: string }) => c.slug === 'constitution').map((c: { id: string }) => c.id);
    const [own] = await t.sql`select id from doco.collections where workspace_id = ${a.id} and slug = 'constitution'`;
    expect(ids).toEqual([own!.id]);
    expect((await api.call('GET', '/api/v1/collections', b.readToken)).body.collections.map((c: { slug: string }) => c.slug)).toContain(
      'beta-roadmap',
    );
  });

  it("B's collections are not usable by A", async () => {
    // The 404 names the slug A sent, and nothing of B's.
    noLeak(
      await rejected(404, 'not_found', () =>
        api.call('POST', '/api/v1/capture', a.writeToken, { collection: 'beta-roadmap', node_type: 'idea', prose: 'Alpha sneaks in.' }),
      ),
    );
    noLeak(
      await rejected(404, 'not_found', () =>
        api.call('POST', '/api/v1/changeset', a.writeToken, {
          collection: 'beta-roadmap',
          operations: [{ op: 'create', node_type: 'idea', prose: 'Alpha sneaks in.' }],
        }),
      ),
    );
  });

  it('A may make a collection with the slug B uses; the two stay apart', async () => {
    const made = await api.call('POST', '/api/v1/collections', a.writeToken, {
      slug: 'beta-roadmap',
      template: 'backlog',
      goal: "Alpha's own",
    });
    expect(made.status).toBe(201);
    const idea = await api.call('POST', '/api/v1/capture', a.writeToken, {
      collection: 'beta-roadmap',
      node_type: 'idea',
      prose: 'An alpha idea.',
    });
    expect(idea.status).toBe(201);
    const [row] = await t.sql`select workspace_id from doco.nodes where id = ${idea.body.node.id}`;
    expect(row!.workspace_id).toBe(a.id);
    const [bCount] =
      await t.sql`select count(*)::int as n from doco.nodes n join doco.collections c on c.id = n.collection_id where c.workspace_id = ${b.id} and c.slug = 'beta-roadmap'`;
    expect(bCount!.n).toBe(1);
  });
});
