// The touches index of sql/touches.sql: doco.extract_touches(text) on its own, and the trigger
// that keeps doco.touches in step with every record's title, prose and body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { findProjectRoot } from '../../src/lib/project-root.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { insertEdge, insertNode, one, sqlWorkspace, type SqlWorkspace } from './helpers.js';

let t: TestDb;
let ws: SqlWorkspace;

beforeAll(async () => {
  t = await createTestDb();
  ws = await sqlWorkspace(t.sql, 'touch');
});
afterAll(async () => t.drop());

type Touch = [kind: string, value: string];

async function extract(text: string): Promise<Touch[]> {
  const rows = await t.sql<{ kind: string; value: string }[]>`
    select kind, value from doco.extract_touches(${text}) order by kind, value`;
  return rows.map((r) => [r.kind, r.value]);
}

const sorted = (touches: Touch[]) => [...touches].sort((a, b) => (a[0] + ' ' + a[1] < b[0] + ' ' + b[1] ? -1 : 1));

const RECORD = 'decision_01K8Z3QH5Y2V4XJ7B9C0D1E2F3';

describe('doco.extract_touches', () => {
  const cases: [string, Touch[]][] = [
    // file paths
    ['Refunds live in app/routes/billing.tsx now.', [['path', 'app/routes/billing.tsx']]],
    ['Start from ./src/x.ts please', [['path', 'src/x.ts']]],
    [
      'Also ../lib/a.rb and /srv/app/config.yml',
      [
        ['path', 'lib/a.rb'],
        ['path', 'srv/app/config.yml'],
      ],
    ],
    ['Everything under app/routes/ is public', [['path', 'app/routes']]],
    ['Read README.md first.', [['path', 'README.md']]],
    [
      'See Makefile and the Dockerfile.',
      [
        ['path', 'Dockerfile'],
        ['path', 'Makefile'],
      ],
    ],
    ['It panics at file.go:42', [['path', 'file.go']]],
    ['It panics at node/state/validation.go:42:7, twice', [['path', 'node/state/validation.go']]],
    [
      'Use **app/x.ts** and `src/y.go`',
      [
        ['path', 'app/x.ts'],
        ['path', 'src/y.go'],
      ],
    ],
    ['See [the guide](docs/a.md).', [['path', 'docs/a.md']]],
    [
      'Built by build-image/Dockerfile and tools/Makefile',
      [
        ['path', 'build-image/Dockerfile'],
        ['path', 'tools/Makefile'],
      ],
    ],
    // URLs
    ['Docs at https://example.com/a?b=1.', [['url', 'https://example.com/a?b=1']]],
    ['Dev server on http://localhost:3000/x', [['url', 'http://localhost:3000/x']]],
    ['[spec](https://example.com/spec)', [['url', 'https://example.com/spec']]],
    // a Markdown reference definition without its space, and a URL after `=`
    [
      '[mempool-link]:https://github.com/acme/node/blob/main/mempool/mempool.go',
      [
        ['path', 'mempool/mempool.go'],
        ['url', 'https://github.com/acme/node/blob/main/mempool/mempool.go'],
      ],
    ],
    ['url=https://example.com/x', [['url', 'https://example.com/x']]],
    // repository blob and tree URLs also yield the repo-relative path
    [
      'https://github.com/acme/shop/blob/main/app/routes/billing.tsx#L10',
      [
        ['path', 'app/routes/billing.tsx'],
        ['url', 'https://github.com/acme/shop/blob/main/app/routes/billing.tsx#L10'],
      ],
    ],
    [
      'https://github.com/acme/shop/tree/main/app/routes/',
      [
        ['path', 'app/routes'],
        ['url', 'https://github.com/acme/shop/tree/main/app/routes/'],
      ],
    ],
    [
      'https://gitlab.com/g/p/-/blob/main/lib/a.rb',
      [
        ['path', 'lib/a.rb'],
        ['url', 'https://gitlab.com/g/p/-/blob/main/lib/a.rb'],
      ],
    ],
    // pull requests and issues
    [
      'Fixed in https://github.com/acme/shop/pull/212).',
      [
        ['issue', '#212'],
        ['issue', 'acme/shop#212'],
        ['url', 'https://github.com/acme/shop/pull/212'],
      ],
    ],
    [
      'Tracked in https://github.com/acme/shop/issues/7',
      [
        ['issue', '#7'],
        ['issue', 'acme/shop#7'],
        ['url', 'https://github.com/acme/shop/issues/7'],
      ],
    ],
    [
      'Landed as acme/shop#212, see review',
      [
        ['issue', '#212'],
        ['issue', 'acme/shop#212'],
      ],
    ],
    ['Reverts #212.', [['issue', '#212']]],
    [
      '(#31) and #32:',
      [
        ['issue', '#31'],
        ['issue', '#32'],
      ],
    ],
    // tokens end at every separator, a candidate's words before and after it included
    [
      'see(docs/a.md)|Makefile,x;tools/Dockerfile{CODEOWNERS}<b/c.go>"d.rs"`e.py`',
      [
        ['path', 'CODEOWNERS'],
        ['path', 'Makefile'],
        ['path', 'b/c.go'],
        ['path', 'd.rs'],
        ['path', 'docs/a.md'],
        ['path', 'e.py'],
        ['path', 'tools/Dockerfile'],
      ],
    ],
    [
      'run\tmake -f build/x.mk\nthen profile.d/x.sh',
      [
        ['path', 'build/x.mk'],
        ['path', 'profile.d/x.sh'],
      ],
    ],
    // record ids
    [`Follows ${RECORD}.`, [['record', RECORD]]],
    [`[why](${RECORD})`, [['record', RECORD]]],
  ];

  it.each(cases)('extracts from %j', async (text, expected) => {
    expect(await extract(text)).toEqual(sorted(expected));
  });

  it('extracts every kind from one longer text, each value once', async () => {
    const text = `Decision ${RECORD} moved app/routes/billing.tsx (see #212 and acme/shop#212); again: app/routes/billing.tsx, #212.`;
    expect(await extract(text)).toEqual(
      sorted([
        ['issue', '#212'],
        ['issue', 'acme/shop#212'],
        ['path', 'app/routes/billing.tsx'],
        ['record', RECORD],
      ]),
    );
  });

  const nonMatches = [
    'and/or',
    'client/server',
    'TCP/IP',
    'I/O',
    'e.g. this',
    'i.e. that',
    'etc.',
    'version 1.2.3',
    'v1.2.3',
    'pi is 3.14 and half is 0.5',
    '1/2 of 2024/01/05',
    'plain words, nothing else',
    'docs/guide',
    '## Heading',
    'issue # alone',
    'C# and F#',
    'foo#bar',
    'a#12',
    '#12a',
    'mailto:a@b.com',
    'a@b.com',
    'ftp://x.y/z',
    'note:ftp://x.y/z',
    'build-image/Dockerfiles',
    '',
    '   ',
    // Not record ids: a letter outside Crockford base32 (U), 27 chars, glued to a word, lower case.
    'decision_01K8Z3QH5Y2V4XJ7B9C0D1E2FU',
    'decision_01K8Z3QH5Y2V4XJ7B9C0D1E2F3X',
    'xdecision_01K8Z3QH5Y2V4XJ7B9C0D1E2F3',
    'decision_01k8z3qh5y2v4xj7b9c0d1e2f3',
    'memo_01K8Z3QH5Y2V4XJ7B9C0D1E2F3',
  ];

  it.each(nonMatches)('finds nothing in %j', async (text) => {
    expect(await extract(text)).toEqual([]);
  });

  it('returns nothing for null', async () => {
    const rows = await t.sql`select * from doco.extract_touches(null)`;
    expect(rows.length).toBe(0);
  });
});

describe('the touches trigger', () => {
  const touchesOf = async (id: string) => {
    const rows = await t.sql<{ kind: string; value: string; workspace_id: string }[]>`
      select kind, value, workspace_id from doco.touches where node_id = ${id} order by kind, value`;
    expect(new Set(rows.map((r) => r.workspace_id))).toEqual(rows.length ? new Set([ws.id]) : new Set());
    return rows.map((r): Touch => [r.kind, r.value]);
  };

  it('indexes the title, the prose and every string inside body on insert', async () => {
    const id = await insertNode(t.sql, ws, {
      type: 'decision',
      title: 'Move billing.go out of the root',
      prose: `Per ${RECORD}, see https://github.com/acme/shop/pull/9`,
      body: { question: 'Keep app/routes/billing.tsx?', alternatives: [{ option: 'lib/billing/', rejected_because: 'see #10' }], n: 5 },
    });
    expect(await touchesOf(id)).toEqual(
      sorted([
        ['path', 'billing.go'],
        ['record', RECORD],
        ['url', 'https://github.com/acme/shop/pull/9'],
        ['issue', 'acme/shop#9'],
        ['issue', '#9'],
        ['path', 'app/routes/billing.tsx'],
        ['path', 'lib/billing'],
        ['issue', '#10'],
      ]),
    );
  });

  it('does not index a record naming itself', async () => {
    const { id } = one(await t.sql`select doco.new_id('rule') as id`);
    await t.sql`
      insert into doco.nodes (id, workspace_id, collection_id, node_type, title, prose)
      values (${id}, ${ws.id}, ${ws.constitution}, 'rule', 'Self', ${`I am ${id}; see ${RECORD}`})`;
    expect(await touchesOf(id)).toEqual([['record', RECORD]]);
  });

  it('re-extracts on update and drops touches the text no longer names', async () => {
    const id = await insertNode(t.sql, ws, { title: 'Refunds', prose: 'See app/routes/billing.tsx and #212' });
    expect(await touchesOf(id)).toEqual([
      ['issue', '#212'],
      ['path', 'app/routes/billing.tsx'],
    ]);

    await t.sql`update doco.nodes set prose = 'Moved to src/billing/refunds.ts (#213)' where id = ${id}`;
    expect(await touchesOf(id)).toEqual([
      ['issue', '#213'],
      ['path', 'src/billing/refunds.ts'],
    ]);

    await t.sql`update doco.nodes set body = '{"see": "README.md"}' where id = ${id}`;
    expect(await touchesOf(id)).toEqual([
      ['issue', '#213'],
      ['path', 'README.md'],
      ['path', 'src/billing/refunds.ts'],
    ]);

    await t.sql`update doco.nodes set title = 'Refunds (see docs/refunds.md)', prose = 'nothing', body = '{}' where id = ${id}`;
    expect(await touchesOf(id)).toEqual([['path', 'docs/refunds.md']]);

    await t.sql`update doco.nodes set title = 'Refunds', prose = 'nothing' where id = ${id}`;
    expect(await touchesOf(id)).toEqual([]);
  });

  it('keeps the touches of one record apart from another', async () => {
    const a = await insertNode(t.sql, ws, { prose: 'a.go' });
    const b = await insertNode(t.sql, ws, { prose: 'a.go and b.go' });
    await t.sql`update doco.nodes set prose = 'nothing' where id = ${b}`;
    expect(await touchesOf(a)).toEqual([['path', 'a.go']]);
    expect(await touchesOf(b)).toEqual([]);
  });
});

describe('touches a replacement inherits', () => {
  const inherited = (id: string) => t.sql<{ value: string; inherited_from: string | null }[]>`
    select value, inherited_from from doco.touches where node_id = ${id} order by value`;

  it("copies the replaced record's touches on a replaces edge from psql, and no edit drops them", async () => {
    const old = await insertNode(t.sql, ws, { title: 'Old', prose: 'See app/routes/billing.tsx and app/x.ts' });
    const next = await insertNode(t.sql, ws, { title: 'New', prose: 'Also app/x.ts and app/y.ts' });
    await insertEdge(t.sql, ws, next, old, 'replaces');
    // app/x.ts it names itself too: it becomes inherited, so it stays when the text drops it.
    expect(await inherited(next)).toEqual([
      { value: 'app/routes/billing.tsx', inherited_from: old },
      { value: 'app/x.ts', inherited_from: old },
      { value: 'app/y.ts', inherited_from: null },
    ]);
    await t.sql`update doco.nodes set prose = 'Now only app/z.ts' where id = ${next}`;
    expect(await inherited(next)).toEqual([
      { value: 'app/routes/billing.tsx', inherited_from: old },
      { value: 'app/x.ts', inherited_from: old },
      { value: 'app/z.ts', inherited_from: null },
    ]);
    expect(await inherited(old)).toEqual([
      { value: 'app/routes/billing.tsx', inherited_from: null },
      { value: 'app/x.ts', inherited_from: null },
    ]);
  });

  it('does not inherit through an edge of another type, or a replaces edge made already retired', async () => {
    const old = await insertNode(t.sql, ws, { title: 'Old', prose: 'See lib/a.go' });
    const other = await insertNode(t.sql, ws, { title: 'Other' });
    await insertEdge(t.sql, ws, other, old, 'relates_to');
    await insertEdge(t.sql, ws, other, old, 'replaces', 'retired');
    expect(await inherited(other)).toEqual([]);
  });

  it('inherits when a replaces edge becomes live, not while it waits for review, nor after it is rejected', async () => {
    const old = await insertNode(t.sql, ws, { title: 'Auth', prose: 'Secrets live in src/auth/session-secret.ts' });
    const next = await insertNode(t.sql, ws, { title: 'Billing', prose: 'The page is app/routes/billing.tsx' });
    const own = [{ value: 'app/routes/billing.tsx', inherited_from: null }];
    // An agent's relation lands queued: the record it would replace gives nothing yet.
    const waiting = await insertEdge(t.sql, ws, next, old, 'replaces', 'queued');
    expect(await inherited(next)).toEqual(own);
    // A person rejects it: still nothing, and nothing to take back.
    await t.sql`update doco.edges set lifecycle = 'retired' where id = ${waiting}`;
    expect(await inherited(next)).toEqual(own);
    // Proposed again and approved: now the replacement governs what the old record did.
    const approved = await insertEdge(t.sql, ws, next, old, 'replaces', 'queued');
    expect(await inherited(next)).toEqual(own);
    await t.sql`update doco.edges set lifecycle = 'active' where id = ${approved}`;
    expect(await inherited(next)).toEqual([
      { value: 'app/routes/billing.tsx', inherited_from: null },
      { value: 'src/auth/session-secret.ts', inherited_from: old },
    ]);
  });

  it('migration 0038 takes back what a replaces edge gave while it waited, keeping what the record names itself', async () => {
    const old = await insertNode(t.sql, ws, { title: 'Auth', prose: 'See src/auth/tokens.ts and lib/shared.ts' });
    const next = await insertNode(t.sql, ws, { title: 'Billing', prose: 'See app/billing.ts and lib/shared.ts' });
    const live = await insertNode(t.sql, ws, { title: 'Payouts v2', prose: 'See app/payouts.ts' });
    const older = await insertNode(t.sql, ws, { title: 'Payouts v1', prose: 'See app/payouts/schedule.ts' });
    // What the trigger gave before this change: a queued edge's touches (lib/shared.ts, which the
    // record names too, became inherited), and a live edge's, which stay.
    await insertEdge(t.sql, ws, next, old, 'replaces', 'queued');
    await t.sql`
      insert into doco.touches (node_id, workspace_id, kind, value, inherited_from, links_only)
      select ${next}, workspace_id, kind, value, ${old}, links_only from doco.touches where node_id = ${old}
      on conflict (node_id, kind, value) do update set inherited_from = excluded.inherited_from`;
    await insertEdge(t.sql, ws, live, older, 'replaces');
    expect((await inherited(next)).filter((r) => r.inherited_from === old)).toHaveLength(2);
    const migration = await readFile(path.join(findProjectRoot(), 'migrations/0038_touches_from_live_replacements.sql'), 'utf8');
    await t.sql.begin((sql) => sql.unsafe(migration));
    expect(await inherited(next)).toEqual([
      { value: 'app/billing.ts', inherited_from: null },
      { value: 'lib/shared.ts', inherited_from: null },
    ]);
    expect(await inherited(live)).toEqual([
      { value: 'app/payouts.ts', inherited_from: null },
      { value: 'app/payouts/schedule.ts', inherited_from: older },
    ]);
  });

  it('takes body.touch_paths as paths as given (dotfiles, extension-less), and nothing that is not a relative path', async () => {
    const id = await insertNode(t.sql, ws, {
      title: 'Pull request',
      prose: 'No paths in the prose.',
      body: {
        touch_paths: ['.github/workflows/ci.yml', 'Makefile', './bin/deploy', 'src/', '../escape', 'a b', 'https://x.test/y', '"q"', 7],
      },
    });
    const rows = await t.sql<{ value: string }[]>`select value from doco.touches where node_id = ${id} and kind = 'path' order by value`;
    expect(rows.map((r) => r.value)).toEqual(['.github/workflows/ci.yml', 'bin/deploy', 'Makefile', 'src'].sort());
    await t.sql`update doco.nodes set body = '{"touch_paths": ["Dockerfile"]}'::jsonb where id = ${id}`;
    expect((await t.sql<{ value: string }[]>`select value from doco.touches where node_id = ${id}`).map((r) => r.value)).toEqual([
      'Dockerfile',
    ]);
  });
});
