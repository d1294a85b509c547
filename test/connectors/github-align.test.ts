// The alignment scan on GitHub pushes, through the signed webhook, a real graphile-worker and the
// fake GitHub API: a push to the default branch is scanned in the delivery job (the compare API
// gives the files and patches) and each expected file's report is stored as a log in the
// doc-alignment collection, which a brief touching the doc lists under in motion as "docs that
// expect `consensus/wal.go`, changed in a1b2c3d"; a push to another branch scans nothing. A log
// settles as the docs catch up: a revised or retired section leaves it, and the last one retires it.
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { GithubClient } from '../../src/connectors/github/client.js';
import { newChangeset, openChangeset } from '../../src/graph/open-changeset.js';
import type { RunningWorker } from '../../src/jobs/worker.js';
import { makeLog } from '../../src/lib/log.js';
import { ALIGN_FIXTURE, ingestAlignFixture, WAL_PATCH } from '../helpers/align-fixture.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { ingestTree, makeTree, removeTree } from '../helpers/docs.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { startConnectorWorker } from '../helpers/connector-worker.js';
import type { FakeGithub } from '../helpers/fake-github.js';
import { APP_ID, appKeys, delivery, fakeGithub, INSTALLATION_ID, WEBHOOK_SECRET } from '../helpers/github-app.js';
import { localProviders } from '../helpers/search.js';
import { until } from '../helpers/until.js';

const REPO = 'tidewater/tidewater';
const BEFORE = '9f8e7d6c5b4a39281706f5e4d3c2b1a098765432';
const AFTER = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
const keys = appKeys();
const providers = localProviders();
const log = makeLog('silent');
let t: TestDb;
let ws: TestWorkspace;
let gh: FakeGithub;
let worker: RunningWorker;
let app: ReturnType<typeof buildApp>;

const api = async (method: string, path: string, token: string, body?: unknown) => {
  const res = await app.request(path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};
const send = async (d: ReturnType<typeof delivery>) => {
  const res = await app.request('/webhooks/github', { method: 'POST', headers: d.headers, body: d.body });
  return res.status;
};
const idle = () => until(async () => (await t.sql<{ n: number }[]>`select count(*)::int as n from graphile_worker.jobs`)[0]!.n === 0);
const alignLogs = () =>
  t.sql<{ id: string; title: string; prose: string; body: Record<string, any>; node_type: string; collection: string; template: string }[]>`
    select n.id, n.title, n.prose, n.body, n.node_type, c.slug as collection, c.template from doco.nodes n join doco.collections c on c.id = n.collection_id
     where n.workspace_id = ${ws.id} and c.slug = 'doc-alignment' order by n.created_at`;
const push = (ref: string, after = AFTER) => ({
  ref,
  before: BEFORE,
  after,
  repository: { full_name: REPO, default_branch: 'main' },
  installation: { id: INSTALLATION_ID },
  commits: [{ id: after, message: 'WriteSync takes fsync', added: [], modified: ['consensus/wal.go'], removed: [] }],
});

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'align-gh');
  gh = fakeGithub(keys.publicKey, REPO);
  const origin = await gh.start();
  app = buildApp({ ...makeApp(t, undefined, providers).deps, githubWebhookSecret: WEBHOOK_SECRET });
  await ingestAlignFixture(t, ws, providers);
  const github = new GithubClient({
    apiUrl: origin,
    appId: APP_ID,
    privateKey: keys.pem,
    retry: { sleep: async () => {}, maxAttempts: 2 },
  });
  worker = await startConnectorWorker(t, providers, log, { github });
  expect(
    (await api('POST', '/api/v1/connectors', ws.writeToken, { kind: 'github', installation_id: INSTALLATION_ID, repo: REPO })).status,
  ).toBe(201);
  await idle();
});
afterAll(async () => {
  await worker.stop();
  await gh.stop();
  await t.drop();
});

describe('pushes', () => {
  it('a push to another branch scans nothing: no compare call, no report', async () => {
    gh.compares.set(`${BEFORE}...${AFTER}`, [{ filename: 'consensus/wal.go', status: 'modified', patch: WAL_PATCH }]);
    expect(await send(delivery('push', push('refs/heads/feature-x')))).toBe(202);
    await idle();
    expect(gh.requests.some((r) => r.path.includes('/compare/'))).toBe(false);
    expect(await alignLogs()).toHaveLength(0);
  });

  it('a push to the default branch is scanned in the delivery job and its report stored as a log per expected file', async () => {
    expect(await send(delivery('push', push('refs/heads/main')))).toBe(202);
    const [logged] = await until(async () => {
      const rows = await alignLogs();
      return rows.length ? rows : undefined;
    });
    expect(gh.requests.some((r) => r.path === `/repos/${REPO}/compare/${BEFORE}...${AFTER}`)).toBe(true);
    expect(logged).toMatchObject({ node_type: 'log', template: 'evals', title: 'docs that expect `consensus/wal.go`, changed in a1b2c3d' });
    expect(logged!.body.align).toMatchObject({ base: BEFORE, head: AFTER, branch: 'main', path: 'consensus/wal.go' });
    expect(logged!.body.align.expectations[0]).toMatchObject({
      section_key: 'docs/architecture/wal.md#every-entry-is-logged-before-it-is-acknowledged',
      confidence: 'high',
    });
    expect(logged!.prose).toContain('docs/architecture/wal.md — Every entry is logged before it is acknowledged');
    const touches = (await t.sql<{ value: string }[]>`select value from doco.touches where node_id = ${logged!.id} and kind = 'path'`).map(
      (r) => r.value,
    );
    expect(touches).toEqual(expect.arrayContaining(['consensus/wal.go', 'docs/architecture/wal.md']));
  });

  it('a redelivered push (a new delivery id, same commits) writes no second report', async () => {
    await idle();
    const before = (await alignLogs()).map((r) => r.id);
    // The same body again is a replay, dropped at the webhook (github-replay.test.ts); a body that
    // differs elsewhere reaches the scan, which finds its report already written.
    expect(await send(delivery('push', push('refs/heads/main')))).toBe(200);
    expect(await send(delivery('push', { ...push('refs/heads/main'), pusher: { name: 'again' } }))).toBe(202);
    await idle();
    expect((await alignLogs()).map((r) => r.id)).toEqual(before);
  });

  it('a brief touching the expected doc shows the report under in motion', async () => {
    const [logged] = await alignLogs();
    const res = await api('POST', '/api/v1/brief', ws.readToken, {
      about: 'update the write-ahead log docs',
      touching: ['docs/architecture/wal.md'],
    });
    expect(res.status).toBe(200);
    const item = (res.body.tiers.in_motion as { id: string; title: string; because: string }[]).find((i) => i.id === logged!.id);
    expect(item, JSON.stringify(res.body.tiers, null, 1)).toMatchObject({
      title: 'docs that expect `consensus/wal.go`, changed in a1b2c3d',
      because: 'touches docs/architecture/wal.md',
    });
  });
});

describe('settling', () => {
  const WAL_DOC = 'docs/architecture/wal.md';
  const liveLog = async () => (await alignLogs()).find((r) => r.body.align.path === 'consensus/wal.go')!;
  const lifecycleOf = async (id: string) =>
    (await t.sql<{ lifecycle: string; version: number }[]>`select lifecycle, version from doco.nodes where id = ${id}`)[0]!;

  it('a section that is not in any log changes nothing there', async () => {
    const before = await t.sql`select id, version from doco.nodes where workspace_id = ${ws.id} and node_type = 'log' order by id`;
    const listed = (await liveLog()).body.align.expectations.map((e: { id: string }) => e.id);
    const other = (
      await t.sql<
        { id: string }[]
      >`select id from doco.nodes where workspace_id = ${ws.id} and node_type = 'reference' and lifecycle = 'active' and id <> all(${listed}) limit 1`
    )[0]!;
    await t.sql.begin(async (tx) => {
      await openChangeset(
        tx,
        newChangeset({ workspaceId: ws.id, actorId: ws.principalId, source: 'ui', summary: 'unrelated edit by hand' }),
      );
      await tx`update doco.nodes set prose = prose || ' Unrelated edit.' where id = ${other.id}`;
    });
    expect(await t.sql`select id, version from doco.nodes where workspace_id = ${ws.id} and node_type = 'log' order by id`).toEqual(before);
  });

  it('a re-ingest that revises a listed section takes it out of the log, which stays in motion for the rest', async () => {
    const before = await liveLog();
    const expected = before.body.align.expectations as { id: string; section_key: string; line: string }[];
    expect(expected.length).toBeGreaterThan(1);
    const revised = expected.find((e) => e.section_key.startsWith(`${WAL_DOC}#every-entry`))!;
    const root = await makeTree({});
    try {
      await cp(ALIGN_FIXTURE, root, { recursive: true });
      const file = path.join(root, WAL_DOC);
      const text = await readFile(file, 'utf8');
      await writeFile(
        file,
        text.replace(
          '## Every entry is logged before it is acknowledged\n',
          '## Every entry is logged before it is acknowledged\n\nWriteSync now takes an fsync flag: callers that need durability pass true.\n',
        ),
      );
      const report = await ingestTree(t, ws, root);
      expect(report.updated).toBe(1);
    } finally {
      await removeTree(root);
    }
    const after = await liveLog();
    expect(after.id).toBe(before.id);
    expect((after.body.align.expectations as { id: string }[]).map((e) => e.id)).toEqual(
      expected.filter((e) => e.id !== revised.id).map((e) => e.id),
    );
    expect(after.body.align.settled).toEqual([
      expect.objectContaining({
        id: revised.id,
        section_key: revised.section_key,
        how: 'revised',
        changeset_id: expect.stringMatching(/^changeset_/),
      }),
    ]);
    expect(after.prose).not.toContain(revised.line);
    expect(after.prose).toBe([before.body.align.intro, ...expected.filter((e) => e.id !== revised.id).map((e) => e.line)].join('\n'));
    expect(await lifecycleOf(after.id)).toMatchObject({
      lifecycle: 'active',
      version: (await t.sql<{ n: number }[]>`select count(*)::int as n from doco.node_versions where node_id = ${after.id}`)[0]!.n,
    });
    const changeset = (
      await t.sql<
        { source: string }[]
      >`select c.source from doco.nodes n join doco.changesets c on c.id = n.changeset_id where n.id = ${after.id}`
    )[0]!;
    expect(changeset.source).toBe('ingest');
  });

  it('retiring or editing the remaining sections by hand (psql) settles the log the same way, and the last one retires it', async () => {
    const log = await liveLog();
    const left = log.body.align.expectations as { id: string }[];
    for (const [i, e] of left.entries()) {
      await t.sql.begin(async (tx) => {
        await openChangeset(tx, newChangeset({ workspaceId: ws.id, actorId: ws.principalId, source: 'ui', summary: `by hand ${i}` }));
        await (i === 0
          ? tx`update doco.nodes set lifecycle = 'retired' where id = ${e.id}`
          : tx`update doco.nodes set prose = prose || ' Revised by hand.' where id = ${e.id}`);
      });
    }
    const settled = (
      await t.sql<
        { lifecycle: string; body: Record<string, any>; prose: string }[]
      >`select lifecycle, body, prose from doco.nodes where id = ${log.id}`
    )[0]!;
    expect(settled.lifecycle).toBe('retired');
    expect(settled.body.align.expectations).toEqual([]);
    expect((settled.body.align.settled as { how: string }[]).map((s) => s.how)).toEqual([
      'revised',
      'retired',
      ...left.slice(1).map(() => 'revised'),
    ]);
    expect((await t.sql`select * from doco.verify_chains()`).length).toBe(0);
    const res = await api('POST', '/api/v1/brief', ws.readToken, { about: 'update the write-ahead log docs', touching: [WAL_DOC] });
    expect((res.body.tiers.in_motion as { id: string }[]).some((i) => i.id === log.id)).toBe(false);
  });
});
