// Bad input over REST: each gets its documented 4xx in the one error shape, and none of them
// leaves a node, edge, version, changeset or collection row behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../../helpers/app.js';
import { expectError, expectNoWrite } from '../../helpers/expect-error.js';

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;
/** An active rule in the constitution, and a decision in the adrs collection. */
let ruleId: string;
let adrId: string;

const post = (path: string, body: unknown) => api.call('POST', `/api/v1${path}`, ws.writeToken, body);
/** POST with a raw body and content type, for what `call` cannot send (not JSON, wrong type). */
async function rawPost(path: string, body: string, contentType?: string) {
  const headers: Record<string, string> = { authorization: `Bearer ${ws.writeToken}` };
  if (contentType) headers['content-type'] = contentType;
  const res = await api.app.request(`/api/v1${path}`, { method: 'POST', headers, body });
  return { status: res.status, body: (await res.json()) as unknown };
}
/** The call, checked to answer status/code in the error shape and to write nothing. */
const rejected = (status: number, code: string, fn: () => Promise<{ status: number; body: unknown }>) =>
  expectNoWrite(t, async () => expectError(await fn(), status, code));

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'bad-input');
  api = makeApp(t);
  expect((await post('/collections', { slug: 'arch', template: 'adrs', goal: 'Architecture decisions' })).status).toBe(201);
  const rule = await post('/capture', {
    collection: 'constitution',
    node_type: 'rule',
    title: 'Tests run before merge',
    prose: 'Every change runs the test suite before it merges.',
  });
  expect(rule.status).toBe(201);
  ruleId = rule.body.node.id;
  const adr = await post('/capture', {
    collection: 'arch',
    node_type: 'decision',
    prose: 'We store the graph in Postgres.',
    body: { question: 'Where does the graph live?' },
  });
  expect(adr.status).toBe(201);
  adrId = adr.body.node.id;
});
afterAll(async () => t.drop());

describe('unknown names', () => {
  it('an unknown node_type is 400', async () => {
    const err = await rejected(400, 'validation_failed', () =>
      post('/capture', { collection: 'constitution', node_type: 'memo', prose: 'x' }),
    );
    expect(err.details).toMatchObject({ issues: [{ path: 'node_type' }] });
  });

  it('an unknown edge_type is 400', async () => {
    const err = await rejected(400, 'validation_failed', () => post('/relate', { from: adrId, to: ruleId, edge_type: 'blocks' }));
    expect(err.details).toMatchObject({ issues: [{ path: 'edge_type' }] });
  });

  it('an unknown op in a changeset is 400', async () => {
    const err = await rejected(400, 'validation_failed', () =>
      post('/changeset', {
        collection: 'arch',
        operations: [
          { op: 'create', node_type: 'idea', prose: 'ok' },
          { op: 'delete', target: adrId },
        ],
      }),
    );
    expect(err.message).toMatch(/op must be one of/);
  });

  it('a record or edge created already retired is 400', async () => {
    await rejected(400, 'validation_failed', () =>
      post('/capture', { collection: 'constitution', node_type: 'rule', prose: 'x', lifecycle: 'retired' }),
    );
    await rejected(400, 'validation_failed', () =>
      post('/relate', { from: adrId, to: ruleId, edge_type: 'supports', lifecycle: 'retired' }),
    );
  });

  it('a collection that does not exist is 404', async () => {
    const err = await rejected(404, 'not_found', () => post('/capture', { collection: 'nowhere', node_type: 'rule', prose: 'x' }));
    expect(err.message).toContain('nowhere');
  });

  it('an unknown template is 400', async () => {
    await rejected(400, 'validation_failed', () => post('/collections', { slug: 'other', template: 'no-such-template', goal: 'g' }));
  });
});

describe('policies', () => {
  it('an adrs decision without body.question is 422 policy_blocked with the verdicts', async () => {
    const err = await rejected(422, 'policy_blocked', () =>
      post('/capture', { collection: 'arch', node_type: 'decision', prose: 'We use Redis for queues.' }),
    );
    // The app's check answers (with verdicts), before the database's own guard (sql/template_rules.sql) is reached.
    expect(err.message).toBe('blocked by policy adr-has-question: a decision in arch needs body.question');
    const verdicts = (err.details as { verdicts: { policy: string; outcome: string; reason: string }[] }).verdicts;
    expect(verdicts).toContainEqual(
      expect.objectContaining({ policy: 'adr-has-question', outcome: 'block', reason: expect.stringContaining('body.question') }),
    );
    expect(verdicts).toContainEqual(expect.objectContaining({ policy: 'allowed-types', outcome: 'pass' }));
  });

  it('a node_type the collection template does not allow is 422', async () => {
    const err = await rejected(422, 'policy_blocked', () =>
      post('/capture', { collection: 'arch', node_type: 'log', prose: 'Deployed at noon.' }),
    );
    expect(err.message).toBe('blocked by policy allowed-types: collection arch (template adrs) accepts decision, reference, idea, not log');
    expect((err.details as { verdicts: unknown[] }).verdicts).toContainEqual(
      expect.objectContaining({ policy: 'allowed-types', outcome: 'block' }),
    );
  });

  it('one blocked create blocks the whole changeset', async () => {
    await rejected(422, 'policy_blocked', () =>
      post('/changeset', {
        collection: 'arch',
        operations: [
          { op: 'create', node_type: 'idea', prose: 'Maybe a queue.' },
          { op: 'create', node_type: 'decision', prose: 'No question here.' },
        ],
      }),
    );
  });
});

describe('changeset structure', () => {
  it('51 operations are 400', async () => {
    const operations = Array.from({ length: 51 }, (_, i) => ({ op: 'create', node_type: 'idea', prose: `idea ${i}` }));
    const err = await rejected(400, 'validation_failed', () => post('/changeset', { collection: 'arch', operations }));
    expect(err.message).toContain('at most 50');
  });

  it('50 operations are accepted (the limit is inclusive)', async () => {
    const operations = Array.from({ length: 50 }, (_, i) => ({ op: 'create', node_type: 'idea', prose: `limit idea ${i}` }));
    const res = await post('/changeset', { collection: 'arch', operations });
    expect(res.status).toBe(201);
    expect(res.body.nodes).toHaveLength(50);
  });

  it('an empty operations list is 400', async () => {
    await rejected(400, 'validation_failed', () => post('/changeset', { collection: 'arch', operations: [] }));
  });

  it('an alias that names nothing is 400', async () => {
    const err = await rejected(400, 'validation_failed', () =>
      post('/changeset', {
        collection: 'arch',
        operations: [
          { op: 'create', alias: 'a', node_type: 'idea', prose: 'x' },
          { op: 'relate', from: '$a', to: '$ghost', edge_type: 'supports' },
        ],
      }),
    );
    expect(err.details).toMatchObject({ operation: 1, alias: 'ghost' });
  });

  it('an alias used before the op that defines it is 400', async () => {
    const err = await rejected(400, 'validation_failed', () =>
      post('/changeset', {
        collection: 'arch',
        operations: [
          { op: 'relate', from: '$later', to: adrId, edge_type: 'supports' },
          { op: 'create', alias: 'later', node_type: 'idea', prose: 'defined too late' },
        ],
      }),
    );
    expect(err.details).toMatchObject({ operation: 0, alias: 'later' });
  });

  it('an alias defined twice is 400', async () => {
    await rejected(400, 'validation_failed', () =>
      post('/changeset', {
        collection: 'arch',
        operations: [
          { op: 'create', alias: 'a', node_type: 'idea', prose: 'x' },
          { op: 'create', alias: 'a', node_type: 'idea', prose: 'y' },
        ],
      }),
    );
  });

  it('a create without a collection is 400', async () => {
    await rejected(400, 'validation_failed', () =>
      post('/changeset', { operations: [{ op: 'create', node_type: 'idea', prose: 'homeless' }] }),
    );
  });
});

describe('missing records', () => {
  const missing = 'rule_01ARZ3NDEKTSV4RRFFQ69G5FAV';

  it('relate to a missing id is 404', async () => {
    const err = await rejected(404, 'not_found', () => post('/relate', { from: adrId, to: missing, edge_type: 'constrained_by' }));
    expect(err.message).toContain(missing);
  });

  it('a changeset whose last op relates to a missing id writes nothing', async () => {
    await rejected(404, 'not_found', () =>
      post('/changeset', {
        collection: 'arch',
        operations: [
          { op: 'create', alias: 'a', node_type: 'idea', prose: 'first' },
          { op: 'create', alias: 'b', node_type: 'idea', prose: 'second' },
          { op: 'relate', from: '$a', to: missing, edge_type: 'supports' },
        ],
      }),
    );
  });

  it('a changeset whose last op fails inside the transaction rolls back the earlier ones', async () => {
    // The duplicate edge is only found while applying, after both creates and the first relate ran.
    const err = await rejected(409, 'conflict', () =>
      post('/changeset', {
        collection: 'arch',
        operations: [
          { op: 'create', alias: 'a', node_type: 'idea', prose: 'first' },
          { op: 'create', alias: 'b', node_type: 'idea', prose: 'second' },
          { op: 'relate', from: '$a', to: '$b', edge_type: 'supports' },
          { op: 'relate', from: '$a', to: '$b', edge_type: 'supports' },
        ],
      }),
    );
    expect(err.message).toMatch(/^operations\[3\] \(relate\): a live supports edge from \S+ to \S+ already exists \(edge_\w+\)$/);
    expect(err.details).toEqual({ operation: 3, cause: { id: expect.stringMatching(/^edge_/) } });
  });

  it('an edge from a record to itself is 400, refused before SQL', async () => {
    let err = await rejected(400, 'validation_failed', () => post('/relate', { from: adrId, to: adrId, edge_type: 'relates_to' }));
    expect(err.message).toContain('two different records');
    err = await rejected(400, 'validation_failed', () =>
      post('/changeset', {
        collection: 'arch',
        operations: [
          { op: 'create', alias: 'a', node_type: 'idea', prose: 'x' },
          { op: 'relate', from: '$a', to: '$a', edge_type: 'supports' },
        ],
      }),
    );
    expect(err.message).toContain('two different records');
  });

  it('GET /nodes/not-an-id is 400, GET of a missing node is 404', async () => {
    await rejected(400, 'validation_failed', () => api.call('GET', '/api/v1/nodes/not-an-id', ws.readToken));
    await rejected(404, 'not_found', () => api.call('GET', `/api/v1/nodes/${missing}`, ws.readToken));
    await rejected(404, 'not_found', () => api.call('GET', `/api/v1/nodes/${missing}/versions`, ws.readToken));
    await rejected(404, 'not_found', () => api.call('GET', `/api/v1/nodes/${ruleId}/versions/9`, ws.readToken));
    await rejected(400, 'validation_failed', () => api.call('GET', `/api/v1/nodes/${ruleId}/versions/0`, ws.readToken));
  });
});

describe('lifecycle', () => {
  it('supersede of a retired node is 409 lifecycle_violation', async () => {
    const idea = await post('/capture', { collection: 'arch', node_type: 'idea', prose: 'Shard by tenant.' });
    expect(idea.status).toBe(201);
    const retire = await post('/changeset', { operations: [{ op: 'retire', target: idea.body.node.id }] });
    expect(retire.status).toBe(201);
    await rejected(409, 'lifecycle_violation', () =>
      post('/changeset', {
        collection: 'arch',
        operations: [{ op: 'supersede', target: idea.body.node.id, node_type: 'idea', prose: 'Shard by region.' }],
      }),
    );
    await rejected(409, 'lifecycle_violation', () =>
      post('/changeset', { operations: [{ op: 'append', target: idea.body.node.id, prose: 'more' }] }),
    );
  });

  it('a backwards move (queue an active node) is 409', async () => {
    const err = await rejected(409, 'lifecycle_violation', () => post('/changeset', { operations: [{ op: 'queue', target: ruleId }] }));
    expect(err.message).toContain('forward');
    const node = await api.call('GET', `/api/v1/nodes/${ruleId}`, ws.readToken);
    expect(node.body.node.lifecycle).toBe('active');
  });

  it('an active edge between records that are not active is 409', async () => {
    const draft = await post('/capture', { collection: 'arch', node_type: 'idea', prose: 'A draft idea.', lifecycle: 'drafting' });
    expect(draft.status).toBe(201);
    await rejected(409, 'lifecycle_violation', () =>
      post('/relate', { from: draft.body.node.id, to: ruleId, edge_type: 'constrained_by' }),
    );
  });
});

describe('sizes', () => {
  it('an oversize title, prose or body is 400', async () => {
    const base = { collection: 'arch', node_type: 'idea' };
    let err = await rejected(400, 'validation_failed', () => post('/capture', { ...base, title: 'x'.repeat(301), prose: 'p' }));
    expect(err.details).toMatchObject({ issues: [{ path: 'title' }] });
    err = await rejected(400, 'validation_failed', () => post('/capture', { ...base, prose: 'x'.repeat(100_001) }));
    expect(err.details).toMatchObject({ issues: [{ path: 'prose' }] });
    err = await rejected(400, 'validation_failed', () => post('/capture', { ...base, prose: 'p', body: { blob: 'x'.repeat(256 * 1024) } }));
    expect(err.details).toMatchObject({ issues: [{ path: 'body' }] });
  });

  it('title or prose inside body that is over the limit is 400, refused before SQL', async () => {
    // The limits hold for body.title/body.prose too: refused with a message naming the field,
    // not by a database check, and a long body.title is not silently cut.
    let err = await rejected(400, 'validation_failed', () =>
      post('/capture', { collection: 'arch', node_type: 'idea', body: { prose: 'x'.repeat(100_001) } }),
    );
    expect(err.message).toMatch(/prose must be at most 100000/);
    err = await rejected(400, 'validation_failed', () =>
      post('/capture', { collection: 'arch', node_type: 'idea', body: { title: 't'.repeat(301), prose: 'p' } }),
    );
    expect(err.message).toMatch(/title must be at most 300/);
  });

  it('a title or prose at the limit is accepted', async () => {
    const res = await post('/capture', { collection: 'arch', node_type: 'idea', title: 't'.repeat(300), prose: 'p'.repeat(100_000) });
    expect(res.status).toBe(201);
    expect(res.body.node.title).toHaveLength(300);
  });

  it("an error lists a small input's issues, at most 50, and a large one's first: one issue a bad item was 84 MB", async () => {
    // Three bad items of a short list: each named.
    let err = await rejected(400, 'validation_failed', () =>
      api.call('POST', '/api/v1/brief', ws.readToken, { about: 'refunds', touching: [1, 'ok.ts', 2, 3] }),
    );
    expect((err.details as { issues: { path: string }[] }).issues.map((i) => i.path)).toEqual(['touching.0', 'touching.2', 'touching.3']);
    // 5,000 bad items: an input small enough to read whole, its first 50 issues.
    err = await rejected(400, 'validation_failed', () =>
      api.call('POST', '/api/v1/brief', ws.readToken, { about: 'refunds', touching: Array.from({ length: 5000 }, () => 1) }),
    );
    expect((err.details as { issues: unknown[] }).issues).toHaveLength(50);
    // 1,000,000 (a 2 MB body): its first issue, and an answer of a few hundred bytes.
    const res = await rawPost(
      '/brief',
      JSON.stringify({ about: 'refunds', touching: Array.from({ length: 1_000_000 }, () => 1) }),
      'application/json',
    );
    err = expectError(res, 400, 'validation_failed');
    expect(err.message).toMatch(/^brief is invalid: touching\.0 /);
    expect((err.details as { issues: unknown[] }).issues).toHaveLength(1);
    expect(JSON.stringify(res.body).length).toBeLessThan(1000);
  });

  it('a request body over 4 MiB is 413', async () => {
    const body = JSON.stringify({ collection: 'arch', node_type: 'idea', prose: 'x'.repeat(4 * 1024 * 1024) });
    await rejected(413, 'payload_too_large', () => rawPost('/capture', body, 'application/json'));
  });
});

describe('the request itself', () => {
  it('a body that is not JSON is 400', async () => {
    const err = await rejected(400, 'validation_failed', () => rawPost('/capture', '{"collection": "arch",', 'application/json'));
    expect(err.message).toContain('not valid JSON');
  });

  it('a wrong or missing content type is 415', async () => {
    const json = JSON.stringify({ collection: 'arch', node_type: 'idea', prose: 'x' });
    await rejected(415, 'unsupported_media_type', () => rawPost('/capture', json, 'text/plain'));
    await rejected(415, 'unsupported_media_type', () => rawPost('/capture', json));
    await rejected(415, 'unsupported_media_type', () => rawPost('/changeset', json, 'application/x-www-form-urlencoded'));
  });

  it('unknown extra fields are 400, at the top level and inside an operation', async () => {
    let err = await rejected(400, 'validation_failed', () =>
      post('/capture', { collection: 'arch', node_type: 'idea', prose: 'x', priority: 'high' }),
    );
    expect(err.details).toMatchObject({ issues: [{ path: 'priority', message: 'is not a known field' }] });
    err = await rejected(400, 'validation_failed', () =>
      post('/changeset', { collection: 'arch', operations: [{ op: 'retire', target: adrId, reason: 'old' }] }),
    );
    expect(err.details).toMatchObject({ issues: [{ path: 'operations.0.reason' }] });
    await rejected(400, 'validation_failed', () => post('/collections', { slug: 'x2', template: 'adrs', goal: 'g', owner: 'me' }));
  });

  it('a body that is not an object is 400, saying so, on every route that reads JSON', async () => {
    for (const [body, what] of [
      ['[1,2]', 'an array'],
      ['42', 'a number'],
      ['"arch"', 'a string'],
      ['null', 'null'],
      ['true', 'a boolean'],
    ] as const) {
      const err = await rejected(400, 'validation_failed', () => rawPost('/capture', body, 'application/json'));
      expect(err).toEqual({ code: 'validation_failed', message: `the body must be a JSON object, not ${what}` });
    }
    for (const path of ['/relate', '/changeset', '/collections', '/brief', '/align', '/hooks/claude-code/prompt', '/system/docs/search']) {
      const err = await rejected(400, 'validation_failed', () => rawPost(path, '[]', 'application/json'));
      expect(err.message).toBe('the body must be a JSON object, not an array');
    }
  });
});

describe('query parameters', () => {
  const get = (path: string) => api.call('GET', `/api/v1${path}`, ws.readToken);
  const storedBriefs = async () => (await t.sql<{ n: number }[]>`select count(*)::int as n from doco.briefs`)[0]!.n;

  it('an unknown search shape is 400 like an unknown type, naming the shapes', async () => {
    const err = await rejected(400, 'validation_failed', () => get('/search?q=tests&shape=bogus'));
    expect(err.details).toMatchObject({ issues: [{ path: 'shape' }] });
    expect(err.message).toContain('architecturePrinciple');
    const type = await rejected(400, 'validation_failed', () => get('/search?q=tests&type=bogus'));
    expect(type.details).toMatchObject({ issues: [{ path: 'type' }] });
    expect((await get('/search?q=tests&shape=docSection')).status).toBe(200);
  });

  it('a brief format other than json or text is 400, naming both, and composes and stores no brief', async () => {
    const before = await storedBriefs();
    for (const call of [
      () => get('/brief.json?about=tests&format=xml'),
      () => api.call('POST', '/api/v1/brief?format=xml', ws.readToken, { about: 'tests' }),
    ]) {
      const err = await rejected(400, 'validation_failed', call);
      expect(err.message).toBe('brief is invalid: format must be json or text');
      expect(err.details).toMatchObject({ issues: [{ path: 'format' }] });
    }
    expect(await storedBriefs()).toBe(before);
    const stored = await get('/brief.json?about=tests&format=json');
    expect(stored.status).toBe(200);
    const err = await rejected(400, 'validation_failed', () => get(`/briefs/${stored.body.brief_id}?format=xml`));
    expect(err.message).toBe('brief is invalid: format must be json or text');
  });
});

describe('collections', () => {
  it('a duplicate collection slug is 409', async () => {
    const err = await rejected(409, 'conflict', () => post('/collections', { slug: 'arch', template: 'runbooks', goal: 'again' }));
    expect(err.message).toContain('arch');
  });

  it('a second constitution is 409', async () => {
    const err = await rejected(409, 'conflict', () =>
      post('/collections', { slug: 'constitution-two', template: 'constitution', goal: 'Another one' }),
    );
    expect(err.message).toContain('constitution');
  });

  it('a bad slug is 400', async () => {
    await rejected(400, 'validation_failed', () => post('/collections', { slug: 'Not A Slug', template: 'adrs', goal: 'g' }));
  });
});

describe('routes', () => {
  it('an unknown route is 404 in the error shape', async () => {
    await rejected(404, 'not_found', () => api.call('GET', '/api/v1/no-such-thing', ws.readToken));
    await rejected(404, 'not_found', () => api.call('GET', '/nowhere', undefined));
    await rejected(404, 'not_found', () => api.call('DELETE', `/api/v1/nodes/${ruleId}`, ws.writeToken));
  });
});

describe('hostile but well-formed input', () => {
  // Each of these answered 500 (or, nested 2,000–4,000 deep, was stored and could never be
  // indexed): now a 400 naming the field, and nothing written.
  const nested = (depth: number) => {
    let value: unknown = 'leaf';
    for (let i = 0; i < depth; i++) value = { next: value };
    return value;
  };

  it('a NUL character in a field is 400, naming the field', async () => {
    const err = await rejected(400, 'validation_failed', () =>
      post('/capture', { collection: 'constitution', node_type: 'rule', title: 'Nul', prose: 'before\u0000after' }),
    );
    expect(err.details).toMatchObject({ issues: [{ path: 'prose', message: expect.stringContaining('NUL') }] });
  });

  it('a lone surrogate is 400, in a value or in a field name', async () => {
    const inTitle = await rejected(400, 'validation_failed', () =>
      rawPost('/capture', '{"collection":"constitution","node_type":"rule","title":"bad \\ud800 half","prose":"x"}', 'application/json'),
    );
    expect(inTitle.details).toMatchObject({ issues: [{ path: 'title', message: expect.stringContaining('surrogate') }] });
    const inKey = await rejected(400, 'validation_failed', () =>
      rawPost('/capture', '{"collection":"arch","node_type":"decision","prose":"x","body":{"\\udc00":"v"}}', 'application/json'),
    );
    expect(inKey.message).toContain('field name');
  });

  it('nesting past the stated depth is 400 at any depth, 40 or 5,000 levels', async () => {
    for (const depth of [40, 5000]) {
      // Written as text: JSON.stringify itself overflows the stack on 5,000 levels.
      const body = `${'{"next":'.repeat(depth)}"leaf"${'}'.repeat(depth)}`;
      const err = await rejected(400, 'validation_failed', () =>
        rawPost('/capture', `{"collection":"arch","node_type":"decision","prose":"deep","body":${body}}`, 'application/json'),
      );
      expect(err.message).toContain('nests deeper than 32 levels');
    }
    // A body as deep as records need is fine.
    const ok = await post('/capture', {
      collection: 'arch',
      node_type: 'decision',
      prose: 'Shallow enough to keep.',
      body: { question: 'How deep may a body go?', detail: nested(8) },
    });
    expect(ok.status).toBe(201);
  });

  it('a body that is an array, or holds a field named __proto__, is 400; constructor and prototype are kept', async () => {
    const asArray = await rejected(400, 'validation_failed', () =>
      post('/capture', { collection: 'arch', node_type: 'decision', prose: 'x', body: ['question'] }),
    );
    expect(asArray.details).toMatchObject({ issues: [{ path: 'body', message: 'must be a JSON object' }] });
    for (const body of ['{"__proto__":{"question":"q"}}', '{"question":"q","detail":{"__proto__":{"admin":true}}}']) {
      const err = await rejected(400, 'validation_failed', () =>
        rawPost('/capture', `{"collection":"arch","node_type":"decision","prose":"x","body":${body}}`, 'application/json'),
      );
      expect(err.message).toContain('__proto__');
    }
    // Ordinary field names, for all that JavaScript's objects have them too: stored as sent.
    const body = { question: 'Which class builds it?', constructor: 'LedgerBuilder', prototype: { shape: 'fluent' } };
    const kept = await post('/capture', { collection: 'arch', node_type: 'decision', prose: 'Builders are fluent.', body });
    expect(kept.status, JSON.stringify(kept.body)).toBe(201);
    expect(kept.body.node.body).toEqual(body);
    const [row] = await t.sql<{ body: unknown }[]>`select body from doco.node_versions where node_id = ${kept.body.node.id}`;
    expect(row!.body).toEqual(body);
  });

  it('a NUL in a query string is 400 too', async () => {
    const res = await api.call('GET', '/api/v1/search?q=a%00b', ws.writeToken);
    expectError(res, 400, 'validation_failed');
  });
});
