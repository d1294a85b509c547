// The GitHub connector's smaller paths, without a worker: a push refreshes the files of the open
// PR on that branch; a PR holding a credential is not written (the record keeps its last clean
// version); the webhook route's edges (unconfigured, form-encoded, unknown events, missing
// headers); the GITHUB_* configuration and the 5-minute crontab entry.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseCrontab } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { loadConfig } from '../../src/config/environment.js';
import { recordDelivery } from '../../src/connectors/deliveries.js';
import { GithubClient } from '../../src/connectors/github/client.js';
import type { ConnectorDeps } from '../../src/connectors/kind.js';
import { parseAddConnector } from '../../src/connectors/registry.js';
import { processDelivery } from '../../src/connectors/run.js';
import { addConnector, type ConnectorRow } from '../../src/connectors/store.js';
import { crontabFor } from '../../src/jobs/tasks.js';
import { makeLog } from '../../src/lib/log.js';
import { githubWebhookSecret, makeGithubClient } from '../../src/connectors/github/from-config.js';
import { makeApp, makeWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import type { FakeGithub, FakePull } from '../helpers/fake-github.js';
import { fakeCredentials } from '../helpers/fake-secrets.js';
import { APP_ID, appKeys, delivery, fakeGithub, INSTALLATION_ID, sign, WEBHOOK_SECRET } from '../helpers/github-app.js';
import { localProviders } from '../helpers/search.js';

const REPO = 'octo-org/billing';
const keys = appKeys();
const log = makeLog('silent');
let t: TestDb;
let gh: FakeGithub;
let deps: ConnectorDeps;
let connector: ConnectorRow;
let n = 0;

beforeAll(async () => {
  t = await createTestDb();
  const ws = await makeWorkspace(t, 'events');
  gh = fakeGithub(keys.publicKey, REPO);
  const origin = await gh.start();
  deps = {
    sql: t.sql,
    db: t.db,
    log,
    github: new GithubClient({ apiUrl: origin, appId: APP_ID, privateKey: keys.pem, retry: { sleep: async () => {} } }),
  };
  connector = await addConnector(t.sql, ws.id, parseAddConnector({ kind: 'github', installation_id: INSTALLATION_ID, repo: REPO }));
});
afterAll(async () => {
  await gh.stop();
  await t.drop();
});

const pr = (over: Partial<FakePull> = {}): FakePull => ({
  number: 5,
  title: 'Split invoices',
  body: 'Splits them.',
  state: 'open',
  merged: false,
  updated_at: '2026-11-30T10:00:00Z',
  head: { ref: 'split-invoices' },
  base: { ref: 'main' },
  files: ['app/invoices/split.ts'],
  ...over,
});

async function deliver(event: string, payload: Record<string, unknown>) {
  const id = `d-${++n}`;
  await recordDelivery(t.sql, {
    kind: 'github',
    deliveryId: id,
    connectorId: connector.id,
    event,
    payload: { repository: { full_name: REPO }, installation: { id: INSTALLATION_ID }, ...payload },
  });
  return processDelivery(deps, 'github', id);
}

const record = async (number: number) =>
  (
    await t.sql<{ version: number; prose: string; touches: string[] }[]>`
    select n.version, n.prose, array(select value from doco.touches where node_id = n.id and kind = 'path' order by value) as touches
      from doco.connector_items i join doco.nodes n on n.id = i.node_id where i.external_id = ${`${REPO}#${number}`}`
  )[0];

describe('push and credentials', () => {
  it("a push to an open PR's head branch re-reads its files: a new version with the new touch", async () => {
    gh.pulls.set(5, pr());
    expect(await deliver('pull_request', { action: 'opened', pull_request: gh.pullJson(pr()) })).toMatchObject({
      outcome: 'processed',
      report: { created: 1 },
    });
    expect((await record(5))!.touches).toEqual(['app/invoices/split.ts']);
    gh.pulls.set(5, pr({ files: ['app/invoices/split.ts', 'app/invoices/merge.ts'], updated_at: '2026-11-30T10:05:00Z' }));
    const other = await deliver('push', { ref: 'refs/heads/another-branch', commits: [] });
    expect(other).toMatchObject({ outcome: 'processed', report: { created: 0, updated: 0 } });
    const pushed = await deliver('push', {
      ref: 'refs/heads/split-invoices',
      commits: [{ id: 'a1', modified: ['app/invoices/merge.ts'], added: [], removed: [] }],
    });
    expect(pushed).toMatchObject({ outcome: 'processed', report: { updated: 1 } });
    expect(await record(5)).toMatchObject({ version: 2, touches: ['app/invoices/merge.ts', 'app/invoices/split.ts'] });
  });

  it('a PR whose text holds a credential is not written; the record keeps its last clean version', async () => {
    const secret = fakeCredentials(7).github_pat;
    const leaky = pr({ body: `Use ${secret} to deploy.`, updated_at: '2026-11-30T10:10:00Z' });
    gh.pulls.set(5, leaky);
    const result = await deliver('pull_request', { action: 'edited', pull_request: gh.pullJson(leaky) });
    expect(result).toMatchObject({ outcome: 'processed', report: { updated: 0, secrets: [{ external_id: `${REPO}#5`, field: 'prose' }] } });
    expect(JSON.stringify(result)).not.toContain(secret);
    const rec = await record(5);
    expect(rec!.version).toBe(2);
    expect(rec!.prose).not.toContain(secret);
    expect((await t.sql`select 1 from doco.node_versions where prose like ${`%${secret}%`}`).length).toBe(0);
  });

  it("comments and reviews join their PR's record text; a deleted one leaves it; one holding a credential is not kept", async () => {
    const clean = pr({ body: 'Splits them.', updated_at: '2026-11-30T10:20:00Z' });
    gh.pulls.set(5, clean);
    const issueOfPr = {
      number: 5,
      title: clean.title,
      state: 'open',
      html_url: gh.htmlUrl('pull', 5),
      updated_at: clean.updated_at,
      pull_request: { url: 'x' },
    };
    await deliver('issue_comment', {
      action: 'created',
      issue: issueOfPr,
      comment: { id: 901, body: 'Does this keep\nthe old totals?', user: { login: 'alice' } },
    });
    await deliver('pull_request_review', {
      action: 'submitted',
      pull_request: gh.pullJson(clean),
      review: { id: 77, state: 'approved', body: 'Ship it.', user: { login: 'bob' } },
    });
    let rec = await record(5);
    expect(rec!.prose).toContain('Comments:\n- @alice: Does this keep the old totals?\n- @bob: (approved) Ship it.');
    const secret = fakeCredentials(8).github_pat;
    const leaky = await deliver('issue_comment', {
      action: 'created',
      issue: issueOfPr,
      comment: { id: 902, body: `token ${secret}`, user: { login: 'eve' } },
    });
    expect(leaky).toMatchObject({ report: { secrets: [{ external_id: `${REPO}#5`, field: 'comment comment-902' }] } });
    expect(JSON.stringify(leaky)).not.toContain(secret);
    await deliver('issue_comment', { action: 'deleted', issue: issueOfPr, comment: { id: 901, body: '', user: { login: 'alice' } } });
    rec = await record(5);
    expect(rec!.prose).not.toContain('alice');
    expect(rec!.prose).toContain('@bob: (approved) Ship it.');
    expect(rec!.prose).not.toContain(secret);
    expect((await t.sql`select 1 from doco.connector_item_comments where body like ${`%${secret}%`}`).length).toBe(0);
  });

  it('a delivery is processed once: asking again is already_processed, and its payload is cleared', async () => {
    const [row] = await t.sql<
      { delivery_id: string; payload: unknown; processed_at: Date | null }[]
    >`select delivery_id, payload, processed_at from doco.connector_deliveries order by received_at limit 1`;
    expect(row).toMatchObject({ payload: null });
    expect(row!.processed_at).not.toBeNull();
    expect(await processDelivery(deps, 'github', row!.delivery_id)).toEqual({ outcome: 'already_processed' });
  });
});

describe('housekeeping SQL', () => {
  it('doco.connector_status shows cursors; old delivery ids are pruned', async () => {
    await t.sql`insert into doco.connector_state (connector_id, key, value) values (${connector.id}, 'issues_since', '"2026-11-30T10:00:00Z"') on conflict do nothing`;
    const [row] =
      await t.sql`select workspace, kind, target, cursors, deliveries_pending from doco.connector_status where id = ${connector.id}`;
    expect(row).toMatchObject({
      workspace: 'events',
      kind: 'github',
      target: REPO,
      cursors: { issues_since: '2026-11-30T10:00:00Z' },
      deliveries_pending: 0,
    });
    const total = (await t.sql<{ n: number }[]>`select count(*)::int as n from doco.connector_deliveries`)[0]!.n;
    await t.sql`update doco.connector_deliveries set received_at = now() - interval '31 days' where delivery_id = 'd-1'`;
    expect((await t.sql<{ n: number }[]>`select doco.prune_connector_deliveries() as n`)[0]!.n).toBe(1);
    expect((await t.sql<{ n: number }[]>`select count(*)::int as n from doco.connector_deliveries`)[0]!.n).toBe(total - 1);
  });
});

describe('the webhook route', () => {
  it('answers 503 when no webhook secret is configured, storing nothing', async () => {
    const app = buildApp(makeApp(t, undefined, localProviders()).deps);
    const d = delivery('pull_request', {});
    const res = await app.request('/webhooks/github', { method: 'POST', headers: d.headers, body: d.body });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unavailable');
  });

  it('takes a form-encoded payload, ignores events it does not consume, and wants the delivery headers', async () => {
    const app = buildApp({ ...makeApp(t, undefined, localProviders()).deps, githubWebhookSecret: WEBHOOK_SECRET });
    const before = (await t.sql<{ n: number }[]>`select count(*)::int as n from doco.connector_deliveries`)[0]!.n;
    const payload = JSON.stringify({
      action: 'opened',
      pull_request: gh.pullJson(pr({ number: 6 })),
      repository: { full_name: 'Octo-Org/Billing' },
      installation: { id: INSTALLATION_ID },
    });
    const form = `payload=${encodeURIComponent(payload)}`;
    const post = (headers: Record<string, string>, body: string) => app.request('/webhooks/github', { method: 'POST', headers, body });
    const formRes = await post(
      {
        'content-type': 'application/x-www-form-urlencoded',
        'x-github-event': 'pull_request',
        'x-github-delivery': 'form-1',
        'x-hub-signature-256': sign(WEBHOOK_SECRET, form),
      },
      form,
    );
    expect(formRes.status).toBe(202);
    const star = delivery('star', { action: 'created' });
    expect(await (await post(star.headers, star.body)).json()).toMatchObject({ ignored: true });
    const noId = delivery('issues', {});
    const { 'x-github-delivery': _dropped, ...headers } = noId.headers;
    expect((await post(headers, noId.body)).status).toBe(400);
    const notJson = 'not json';
    expect(
      (
        await post(
          {
            'content-type': 'application/json',
            'x-github-event': 'issues',
            'x-github-delivery': 'bad-1',
            'x-hub-signature-256': sign(WEBHOOK_SECRET, notJson),
          },
          notJson,
        )
      ).status,
    ).toBe(400);
    expect((await t.sql<{ n: number }[]>`select count(*)::int as n from doco.connector_deliveries`)[0]!.n).toBe(before + 1);
  });

  it('reads a form only as GitHub sends one: a signed JSON body sent again as a form is refused', async () => {
    const app = buildApp({ ...makeApp(t, undefined, localProviders()).deps, githubWebhookSecret: WEBHOOK_SECRET });
    const before = (await t.sql<{ n: number }[]>`select count(*)::int as n from doco.connector_deliveries`)[0]!.n;
    // A delivery for a repository no connector covers, whose issue text spells out a form field:
    // read as a form, its `payload` would be an issue in the covered repository.
    const forged = JSON.stringify({
      action: 'opened',
      issue: { number: 999, title: 'Forged', body: 'Made up', user: { login: 'mallory' } },
      repository: { full_name: 'Octo-Org/Billing' },
      installation: { id: INSTALLATION_ID },
    });
    const json = JSON.stringify({
      action: 'opened',
      issue: { number: 1, title: 'Elsewhere', body: `x&payload=${encodeURIComponent(forged)}&z=`, user: { login: 'mallory' } },
      repository: { full_name: 'someone/else' },
      installation: { id: INSTALLATION_ID },
    });
    const signature = sign(WEBHOOK_SECRET, json);
    const send = (contentType: string, id: string) =>
      app.request('/webhooks/github', {
        method: 'POST',
        headers: { 'content-type': contentType, 'x-github-event': 'issues', 'x-github-delivery': id, 'x-hub-signature-256': signature },
        body: json,
      });
    expect(await (await send('application/json', 'json-1')).json()).toMatchObject({ ignored: true });
    const asForm = await send('application/x-www-form-urlencoded', 'form-2');
    expect(asForm.status).toBe(400);
    expect(await asForm.json()).toMatchObject({ error: { code: 'validation_failed', message: expect.stringContaining('payload=') } });
    expect((await t.sql<{ n: number }[]>`select count(*)::int as n from doco.connector_deliveries`)[0]!.n).toBe(before);
  });
});

describe('configuration', () => {
  it('reads GITHUB_* with defaults; a key given inline with \\n escapes becomes a PEM', () => {
    const none = loadConfig({});
    expect(none.github).toEqual({ apiUrl: 'https://api.github.com', appId: undefined, privateKey: undefined, webhookSecret: undefined });
    const inline = loadConfig({
      GITHUB_APP_ID: '123',
      GITHUB_APP_PRIVATE_KEY: 'line1\\nline2',
      GITHUB_WEBHOOK_SECRET: 's',
      GITHUB_API_URL: 'http://127.0.0.1:9/api/v3/',
    });
    expect(inline.github).toEqual({
      apiUrl: 'http://127.0.0.1:9/api/v3',
      appId: '123',
      privateKey: { pem: 'line1\nline2' },
      webhookSecret: { value: 's' },
    });
  });

  it('a bad GITHUB_APP_ID is a config error that never quotes a secret', () => {
    let message = '';
    try {
      loadConfig({ GITHUB_APP_ID: 'forty-two', GITHUB_APP_PRIVATE_KEY: keys.pem, GITHUB_WEBHOOK_SECRET: 'hush-hush-value' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/GITHUB_APP_ID/);
    expect(message).not.toContain('PRIVATE KEY');
    expect(message).not.toContain('hush-hush-value');
  });

  it('reads the key and secret from files; an unreadable file names the file, never the content', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'doco-gh-'));
    try {
      await writeFile(path.join(dir, 'app.pem'), keys.pem);
      await writeFile(path.join(dir, 'hook'), 'from-a-file\n');
      const config = loadConfig({
        GITHUB_APP_ID: APP_ID,
        GITHUB_APP_PRIVATE_KEY_FILE: path.join(dir, 'app.pem'),
        GITHUB_WEBHOOK_SECRET_FILE: path.join(dir, 'hook'),
      });
      expect(makeGithubClient(config, log)).toBeInstanceOf(GithubClient);
      expect(githubWebhookSecret(config)).toBe('from-a-file');
      const missing = loadConfig({ GITHUB_APP_ID: APP_ID, GITHUB_APP_PRIVATE_KEY_FILE: path.join(dir, 'nope.pem') });
      expect(() => makeGithubClient(missing, log)).toThrow(/cannot read GITHUB_APP_PRIVATE_KEY_FILE from .*nope\.pem: ENOENT/);
      expect(makeGithubClient(loadConfig({ GITHUB_APP_ID: APP_ID }), log)).toBeUndefined();
      expect(() => makeGithubClient(loadConfig({ GITHUB_APP_ID: APP_ID, GITHUB_APP_PRIVATE_KEY: 'not a key' }), log)).toThrow(
        /not a PEM private key/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the crontab sweeps GitHub connectors every 5 minutes and Slack connectors every minute', () => {
    const entries = parseCrontab(crontabFor({ ...localProviders(), sql: t.sql, log, keeper: undefined as never })).filter(
      (i) => i.task === 'connectors__sweep',
    );
    const entry = entries.find((i) => (i.payload as { kind?: string }).kind === 'github');
    const slack = entries.find((i) => (i.payload as { kind?: string }).kind === 'slack');
    const digest = (min: number) => ({ min, hour: 9, date: 1, month: 1, dow: 4 });
    expect(entry!.match(digest(5))).toBe(true);
    expect(entry!.match(digest(6))).toBe(false);
    expect(slack!.match(digest(5))).toBe(true);
    expect(slack!.match(digest(6))).toBe(true);
  });
});
