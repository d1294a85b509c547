// The GitHub connector end to end: a real graphile-worker, real Postgres, the HTTP app in
// process, the fake GitHub API on loopback and deliveries signed in the test. A signed
// pull_request delivery becomes the PR's record, which a brief touching one of its files lists
// under in motion; a redelivery changes nothing; a bad signature is 401 with nothing stored; the
// sweep after missed webhooks picks up exactly what was missed; an outage is a recorded error
// and a later retry with the cursor untouched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { GithubClient } from '../../src/connectors/github/client.js';
import { SWEEP_TASK } from '../../src/connectors/queue.js';
import type { RunningWorker } from '../../src/jobs/worker.js';
import { makeLog } from '../../src/lib/log.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { startConnectorWorker } from '../helpers/connector-worker.js';
import type { FakeGithub, FakePull } from '../helpers/fake-github.js';
import { APP_ID, appKeys, delivery, fakeGithub, INSTALLATION_ID, WEBHOOK_SECRET } from '../helpers/github-app.js';
import { localProviders } from '../helpers/search.js';
import { callApi, jsonOf, until } from '../helpers/until.js';

const REPO = 'octo-org/billing';
const keys = appKeys();
const providers = localProviders();
const lines: string[] = [];
const log = makeLog('info', (l) => lines.push(l));
let t: TestDb;
let ws: TestWorkspace;
let gh: FakeGithub;
let worker: RunningWorker;
let app: ReturnType<typeof buildApp>;
let connectorId: string;

const api = (method: string, path: string, token: string | undefined, body?: unknown) => callApi(app, method, path, token, body);
const send = async (d: ReturnType<typeof delivery>) =>
  jsonOf(await app.request('/webhooks/github', { method: 'POST', headers: d.headers, body: d.body }));

const items = () =>
  t.sql<{ external_id: string; node_id: string; version: number; lifecycle: string; title: string; state: string }[]>`
    select i.external_id, i.node_id, n.version, n.lifecycle::text as lifecycle, n.title, n.body->'pointer'->>'state' as state
      from doco.connector_items i join doco.nodes n on n.id = i.node_id order by i.external_id`;
/** What a webhook writes; its jobs are deliveries (a cron sweep or an index drain may come and go meanwhile). */
const counts = async () =>
  (
    await t.sql<{ nodes: number; versions: number; changesets: number; deliveries: number; jobs: number }[]>`
    select (select count(*) from doco.nodes)::int as nodes, (select count(*) from doco.node_versions)::int as versions,
           (select count(*) from doco.changesets)::int as changesets, (select count(*) from doco.connector_deliveries)::int as deliveries,
           (select count(*) from graphile_worker.jobs where task_identifier = 'connectors__delivery')::int as jobs`
  )[0]!;
const status = async () => (await api('GET', `/api/v1/connectors/${connectorId}`, ws.readToken)).body.connector;
const idle = () => until(async () => (await t.sql<{ n: number }[]>`select count(*)::int as n from graphile_worker.jobs`)[0]!.n === 0);

async function sweep() {
  const before = (await status()).last_sync_at ?? '';
  const beforeErr = (await status()).last_error_at ?? '';
  await worker.runner.addJob(SWEEP_TASK, { kind: 'github' });
  await until(async () => {
    const s = await status();
    return (s.last_sync_at ?? '') !== before || (s.last_error_at ?? '') !== beforeErr;
  });
  return status();
}

const at = (minute: number) => new Date(Date.UTC(2026, 10, 30, 9, minute)).toISOString();
const pull = (n: number, over: Partial<FakePull> = {}): FakePull => ({
  number: n,
  title: `PR ${n}`,
  body: `Body of ${n}.`,
  state: 'open',
  merged: false,
  updated_at: at(n % 60),
  head: { ref: `feature-${n}` },
  base: { ref: 'main' },
  files: [`src/pr${n}.ts`],
  ...over,
});
const pullPayload = (action: string, p: FakePull) => ({
  action,
  number: p.number,
  pull_request: gh.pullJson(p),
  repository: { full_name: REPO },
  installation: { id: INSTALLATION_ID },
});

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'gh');
  gh = fakeGithub(keys.publicKey, REPO);
  const origin = await gh.start();
  app = buildApp({ ...makeApp(t, undefined, providers).deps, githubWebhookSecret: WEBHOOK_SECRET });
  const github = new GithubClient({
    apiUrl: origin,
    appId: APP_ID,
    privateKey: keys.pem,
    retry: { sleep: async () => {}, maxAttempts: 2 },
  });
  worker = await startConnectorWorker(t, providers, log, { github });
});
afterAll(async () => {
  await worker.stop();
  await gh.stop();
  await t.drop();
});

describe('the connectors API', () => {
  it('adds a GitHub connector (write token), queues its first sweep, and shows its status without secrets', async () => {
    expect(
      (await api('POST', '/api/v1/connectors', ws.readToken, { kind: 'github', installation_id: INSTALLATION_ID, repo: REPO })).status,
    ).toBe(403);
    const bad = await api('POST', '/api/v1/connectors', ws.writeToken, { kind: 'github', installation_id: 'forty', repo: 'not a repo' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
    const unknown = await api('POST', '/api/v1/connectors', ws.writeToken, { kind: 'fax', installation_id: 1 });
    expect(unknown.body.error).toMatchObject({ code: 'validation_failed' });
    expect(await t.sql`select 1 from doco.connectors`).toHaveLength(0);

    const added = await api('POST', '/api/v1/connectors', ws.writeToken, {
      kind: 'github',
      installation_id: INSTALLATION_ID,
      repo: 'Octo-Org/Billing',
    });
    expect(added.status).toBe(201);
    expect(added.body.connector).toMatchObject({
      kind: 'github',
      workspace: 'gh',
      routing_key: String(INSTALLATION_ID),
      target: REPO,
      config: { repo: REPO, collection: 'github-octo-org-billing' },
      status: 'active',
    });
    connectorId = added.body.connector.id;
    const again = await api('POST', '/api/v1/connectors', ws.writeToken, { kind: 'github', installation_id: INSTALLATION_ID, repo: REPO });
    expect(again.status).toBe(409);
    // The first sweep ran against the (empty) repository and left its cursors.
    await until(async () => (await status()).last_sync_at);
    const listed = await api('GET', '/api/v1/connectors', ws.readToken);
    expect(listed.body.connectors).toHaveLength(1);
    expect(JSON.stringify(listed.body)).not.toContain(WEBHOOK_SECRET);
    expect(JSON.stringify(listed.body)).not.toContain('PRIVATE KEY');
    expect(JSON.stringify(listed.body)).not.toContain(gh.token());
  });
});

describe('webhooks', () => {
  const pr212 = pull(212, {
    title: 'Move billing to the new layout',
    body: 'Moves the billing page onto the new layout.',
    files: ['app/routes/billing.tsx', 'app/components/invoice-table.tsx'],
    updated_at: at(10),
  });
  const opened = () => delivery('pull_request', pullPayload('opened', pr212), { id: 'delivery-212-opened' });

  it('answers ping with 200 and stores nothing', async () => {
    const before = await counts();
    const res = await send(delivery('ping', { zen: 'Keep it logically awesome.', hook_id: 1 }));
    expect(res.status).toBe(200);
    expect(await counts()).toEqual(before);
  });

  it('a bad signature is 401 and stores nothing: no delivery, no job, no record', async () => {
    gh.pulls.set(212, pr212);
    const before = await counts();
    const d = opened();
    for (const signature of ['sha256=' + '0'.repeat(64), 'sha256=abc', d.headers['x-hub-signature-256'].slice(7), '']) {
      const res = await send({ ...d, headers: { ...d.headers, 'x-hub-signature-256': signature } });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
    const tampered = await send({ ...d, body: d.body.replace('new layout', 'old layout') });
    expect(tampered.status).toBe(401);
    const wrongSecret = await send(delivery('pull_request', pullPayload('opened', pr212), { secret: 'not the secret' }));
    expect(wrongSecret.status).toBe(401);
    expect(await counts()).toEqual(before);
  });

  it('a signed pull_request opened delivery becomes the PR record, which a brief touching its file lists under in motion', async () => {
    const res = await send(opened());
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ queued: true, duplicate: false });
    const [item] = await until(async () => {
      const rows = await items();
      return rows.length ? rows : undefined;
    });
    expect(item).toMatchObject({
      external_id: `${REPO}#212`,
      version: 1,
      lifecycle: 'active',
      title: 'Move billing to the new layout',
      state: 'open',
    });
    const [node] = await t.sql<{ body: Record<string, any>; prose: string; source: string; collection: string }[]>`
      select n.body, n.prose, cs.source, c.slug as collection from doco.nodes n
        join doco.node_versions v on v.node_id = n.id and v.version = 1 join doco.changesets cs on cs.id = v.changeset_id
        join doco.collections c on c.id = n.collection_id where n.id = ${item!.node_id}`;
    expect(node).toMatchObject({
      source: 'connector',
      collection: 'github-octo-org-billing',
      body: { source_kind: 'github', pointer: { repo: REPO, number: 212, url: `https://github.com/${REPO}/pull/212`, state: 'open' } },
    });
    expect(node!.prose).toContain('app/routes/billing.tsx');
    const touches = (
      await t.sql<{ kind: string; value: string }[]>`select kind, value from doco.touches where node_id = ${item!.node_id}`
    ).map((r) => `${r.kind}:${r.value}`);
    expect(touches).toEqual(
      expect.arrayContaining(['path:app/routes/billing.tsx', 'path:app/components/invoice-table.tsx', `issue:${REPO}#212`, 'issue:#212']),
    );

    const brief = await api('POST', '/api/v1/brief', ws.readToken, {
      about: 'change the billing page',
      touching: ['app/routes/billing.tsx'],
    });
    expect(brief.status).toBe(200);
    const inMotion = brief.body.tiers.in_motion as { id: string; because: string }[];
    expect(inMotion.find((i) => i.id === item!.node_id)).toMatchObject({ because: 'touches app/routes/billing.tsx' });
    const byNumber = await api('POST', '/api/v1/brief', ws.readToken, { about: 'billing layout', touching: ['#212'] });
    expect(
      Object.values(byNumber.body.tiers)
        .flat()
        .some((i: any) => i.id === item!.node_id),
    ).toBe(true);
  });

  it('a redelivery (same X-GitHub-Delivery) is acknowledged and changes nothing', async () => {
    await idle();
    const before = await counts();
    const itemsBefore = await items();
    const res = await send(opened());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ queued: false, duplicate: true });
    expect(await counts()).toEqual(before);
    expect(await items()).toEqual(itemsBefore);
  });

  it('an edit and a merge are new versions of the same record, never a second record', async () => {
    const edited = { ...pr212, title: 'Move billing to the new layout (v2)', updated_at: at(11) };
    gh.pulls.set(212, edited);
    await send(delivery('pull_request', pullPayload('edited', edited)));
    await until(async () => (await items())[0]!.version === 2 || undefined);
    const merged = { ...edited, state: 'closed' as const, merged: true, updated_at: at(12) };
    gh.pulls.set(212, merged);
    await send(delivery('pull_request', pullPayload('closed', merged)));
    const rows = await until(async () => {
      const r = await items();
      return r[0]!.version === 3 ? r : undefined;
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ title: 'Move billing to the new layout (v2)', state: 'merged', version: 3 });
    // An older copy arriving late (out of order) does not overwrite the newer one.
    await send(delivery('pull_request', pullPayload('edited', { ...pr212, title: 'stale title' })));
    await idle();
    expect((await items())[0]).toMatchObject({ title: 'Move billing to the new layout (v2)', version: 3 });
  });

  it('an issue becomes a record; a deleted issue retires it', async () => {
    const issue = {
      number: 7,
      title: 'Invoices show the wrong total',
      body: 'See app/lib/total.ts.',
      state: 'open' as const,
      updated_at: at(13),
    };
    const payload = (action: string) => ({
      action,
      issue: { ...issue, html_url: `https://github.com/${REPO}/issues/7`, labels: [] },
      repository: { full_name: REPO },
      installation: { id: INSTALLATION_ID },
    });
    await send(delivery('issues', payload('opened')));
    await until(async () => (await items()).find((i) => i.external_id === `${REPO}#7`));
    await send(delivery('issues', payload('deleted')));
    const retired = await until(async () => (await items()).find((i) => i.external_id === `${REPO}#7` && i.lifecycle === 'retired'));
    expect(retired.version).toBe(2);
    // A late delivery for the deleted issue does not bring it back as a new record.
    const nodes = (await counts()).nodes;
    await send(delivery('issues', payload('edited')));
    await idle();
    expect((await counts()).nodes).toBe(nodes);
    expect((await items()).find((i) => i.external_id === `${REPO}#7`)).toMatchObject({
      node_id: retired.node_id,
      lifecycle: 'retired',
      version: 2,
    });
  });

  it('a delivery for a repository with no connector is acknowledged and not stored', async () => {
    const before = await counts();
    const res = await send(delivery('pull_request', { ...pullPayload('opened', pr212), repository: { full_name: 'someone/else' } }));
    expect(res.status).toBe(200);
    expect(res.body.ignored).toBe(true);
    expect(await counts()).toEqual(before);
  });
});

describe('the sweep', () => {
  it('after missed webhooks picks up exactly what was missed: no gap, no duplicate', async () => {
    await idle();
    const before = await items();
    // Changed on GitHub while no webhook arrived: a new PR, a new issue, an edited PR.
    gh.pulls.set(300, pull(300, { title: 'Retry failed charges', files: ['app/jobs/retry-charges.ts'], updated_at: at(20) }));
    gh.issues.set(8, { number: 8, title: 'Refunds are slow', body: 'Refunds take days.', state: 'open', updated_at: at(21) });
    const s = await sweep();
    expect(s.last_error).toBeNull();
    const after = await items();
    const byId = new Map(after.map((i) => [i.external_id, i]));
    expect(after.map((i) => i.external_id).sort()).toEqual([...before.map((i) => i.external_id), `${REPO}#300`, `${REPO}#8`].sort());
    expect(byId.get(`${REPO}#300`)).toMatchObject({ version: 1, title: 'Retry failed charges' });
    expect(byId.get(`${REPO}#8`)).toMatchObject({ version: 1, title: 'Refunds are slow' });
    // What the webhooks had already written is unchanged: same record, same version.
    for (const b of before) expect(byId.get(b.external_id)).toMatchObject({ node_id: b.node_id, version: b.version });
    expect(s.state).toMatchObject({ issues_since: at(21), pulls_since: at(20) });
  });

  it('a sweep with nothing new asks with ETags, gets 304s and writes nothing', async () => {
    const before = await counts();
    const listCalls = () =>
      gh.requests
        .filter((r) => /\/(issues|pulls)\?/.test(r.path))
        .map((r) => `${r.path.includes('/issues?') ? 'issues' : 'pulls'} ${r.status}`);
    gh.requests.length = 0;
    // The issues cursor moved in the last sweep, so its URL (since=…) is new once: a 200 whose
    // items are all unchanged. The pulls list URL is fixed: 304 at once.
    expect((await sweep()).last_error).toBeNull();
    expect(listCalls()).toEqual(['issues 200', 'pulls 304']);
    gh.requests.length = 0;
    expect((await sweep()).last_error).toBeNull();
    expect(listCalls()).toEqual(['issues 304', 'pulls 304']);
    expect(gh.requests.filter((r) => r.path.includes('/files'))).toHaveLength(0);
    const { nodes, versions, changesets } = await counts();
    expect({ nodes, versions, changesets }).toEqual({ nodes: before.nodes, versions: before.versions, changesets: before.changesets });
  });

  it('an outage is a recorded error and a warning; the cursor stays, and the next sweep catches up', async () => {
    const cursorBefore = (await status()).state;
    gh.pulls.set(301, pull(301, { title: 'Tax exports', files: ['app/tax/export.ts'], updated_at: at(30) }));
    gh.failures.push(...Array.from({ length: 10 }, () => ({ status: 503, message: 'GitHub is down' })));
    lines.length = 0;
    const failed = await sweep();
    expect(failed.last_error).toMatch(/503/);
    expect(failed.state.issues_since).toBe(cursorBefore.issues_since);
    expect(failed.state.pulls_since).toBe(cursorBefore.pulls_since);
    expect(lines.some((l) => / warn .*sweep failed, will retry/.test(l))).toBe(true);
    expect((await items()).some((i) => i.external_id === `${REPO}#301`)).toBe(false);
    gh.failures.length = 0;
    const ok = await sweep();
    expect(ok.last_error).toBeNull();
    expect(ok.state.pulls_since).toBe(at(30));
    expect((await items()).filter((i) => i.external_id === `${REPO}#301`)).toHaveLength(1);
  });

  it('a 429 with Retry-After delays, then the sweep completes', async () => {
    gh.pulls.set(302, pull(302, { title: 'Dunning emails', files: ['app/mail/dunning.ts'], updated_at: at(31) }));
    gh.failures.push({ status: 429, message: 'slow down', headers: { 'retry-after': '1' } });
    const s = await sweep();
    expect(s.last_error).toBeNull();
    expect(gh.requests.some((r) => r.status === 429)).toBe(true);
    expect((await items()).filter((i) => i.external_id === `${REPO}#302`)).toHaveLength(1);
  });

  it("picks up comments missed by webhooks into their PR's and issue's records", async () => {
    const pr300 = gh.pulls.get(300)!;
    gh.pulls.set(300, { ...pr300, updated_at: at(40) });
    gh.issues.set(8, { ...gh.issues.get(8)!, updated_at: at(41) });
    gh.comments.set(5001, { id: 5001, issue: 300, body: 'Retries need a cap.', login: 'carol', updated_at: at(40) });
    gh.comments.set(5002, { id: 5002, issue: 8, body: 'Seen in production too.', login: 'dan', updated_at: at(41) });
    const s = await sweep();
    expect(s.last_error).toBeNull();
    expect(s.state.comments_since).toBe(at(41));
    const prose = async (n: number) =>
      (
        await t.sql<
          { prose: string }[]
        >`select n.prose from doco.connector_items i join doco.nodes n on n.id = i.node_id where i.external_id = ${`${REPO}#${n}`}`
      )[0]!.prose;
    expect(await prose(300)).toContain('- @carol: Retries need a cap.');
    expect(await prose(8)).toContain('- @dan: Seen in production too.');
    expect((await items()).filter((i) => [`${REPO}#300`, `${REPO}#8`].includes(i.external_id)).map((i) => i.version)).toEqual([2, 2]);
  });

  it('joins reviews and review comments missed by webhooks into the PR record; dotfiles and extension-less files are its touches', async () => {
    gh.pulls.set(
      304,
      pull(304, {
        title: 'CI for billing',
        files: ['.github/workflows/ci.yml', 'Makefile', 'Dockerfile', 'bin/deploy', 'app/billing/ci.ts'],
        updated_at: at(45),
      }),
    );
    gh.reviews.set(9001, { id: 9001, pull: 304, state: 'CHANGES_REQUESTED', body: 'Pin the action versions.', login: 'erin' });
    gh.reviews.set(9002, { id: 9002, pull: 304, state: 'COMMENTED', body: '', login: 'erin' });
    gh.reviewComments.set(9101, {
      id: 9101,
      pull: 304,
      path: '.github/workflows/ci.yml',
      body: 'Use a pinned checkout.',
      login: 'frank',
      updated_at: at(45),
    });
    const s = await sweep();
    expect(s.last_error).toBeNull();
    expect(s.state.review_comments_since).toBe(at(45));
    const [row] = await t.sql<
      { node_id: string; prose: string }[]
    >`select i.node_id, n.prose from doco.connector_items i join doco.nodes n on n.id = i.node_id where i.external_id = ${`${REPO}#304`}`;
    expect(row!.prose).toContain('- @erin: (changes_requested) Pin the action versions.');
    expect(row!.prose).toContain('- @frank: (on .github/workflows/ci.yml) Use a pinned checkout.');
    const paths = (await t.sql<{ value: string }[]>`select value from doco.touches where node_id = ${row!.node_id} and kind = 'path'`).map(
      (r) => r.value,
    );
    expect(paths).toEqual(
      expect.arrayContaining(['.github/workflows/ci.yml', 'Makefile', 'Dockerfile', 'bin/deploy', 'app/billing/ci.ts']),
    );
    const brief = await api('POST', '/api/v1/brief', ws.readToken, {
      about: 'change the CI workflow',
      touching: ['.github/workflows/ci.yml'],
    });
    expect(
      Object.values(brief.body.tiers)
        .flat()
        .find((i: any) => i.id === row!.node_id),
    ).toMatchObject({ because: 'touches .github/workflows/ci.yml' });
  });

  it('removing the connector keeps its records; webhooks for it are then ignored', async () => {
    const gone = await api('DELETE', `/api/v1/connectors/${connectorId}`, ws.writeToken);
    expect(gone.status).toBe(200);
    expect((await api('GET', `/api/v1/connectors/${connectorId}`, ws.readToken)).status).toBe(404);
    const res = await send(delivery('pull_request', pullPayload('opened', pull(303))));
    expect(res.body.ignored).toBe(true);
    expect((await items()).length).toBeGreaterThan(0);
  });
});
