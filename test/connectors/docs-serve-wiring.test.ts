// The composition root wires the Notion and Drive connectors from the environment: `doco serve`
// (HTTP and worker in one process, as startDoco runs it) reads NOTION_TOKEN, NOTION_API_URL,
// GOOGLE_SERVICE_ACCOUNT_FILE, GOOGLE_API_URL and GOOGLE_OAUTH_TOKEN_URL, so adding each
// connector over real HTTP copies the fakes' content in, and a signed Notion event over real HTTP
// is a new version. No log line carries a token or the key. Bad values are clear config errors.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/auth/tokens.js';
import { ConfigError, loadConfig } from '../../src/config/environment.js';
import { parseCrontab } from 'graphile-worker';
import { ensurePrincipal, ensureWorkspace } from '../../src/auth/workspaces.js';
import { crontabFor } from '../../src/jobs/tasks.js';
import { makeLog } from '../../src/lib/log.js';
import { startDoco, type RunningDoco } from '../../src/main.js';
import { until } from '../helpers/connector-e2e.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { freePort } from '../helpers/doco-process.js';
import { FakeDrive, GOOGLE_DOC, serviceAccountKey } from '../helpers/fake-drive.js';
import { FakeNotion, para } from '../helpers/fake-notion.js';

const key = serviceAccountKey();
const lines: string[] = [];
let t: TestDb;
let home: string;
let notion: FakeNotion;
let drive: FakeDrive;
let doco: RunningDoco;
let token: string;

const post = (p: string, body: unknown) =>
  fetch(`${doco.url}${p}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const record = async (externalId: string) =>
  (
    await t.sql<
      { version: number; prose: string }[]
    >`select n.version, n.prose from doco.connector_items i join doco.nodes n on n.id = i.node_id where i.external_id = ${externalId}`
  )[0];

beforeAll(async () => {
  t = await createTestDb();
  home = await mkdtemp(path.join(os.tmpdir(), 'doco-docs-serve-'));
  await chmod(home, 0o755);
  await writeFile(path.join(home, 'sa.json'), key.json);
  notion = new FakeNotion();
  drive = new FakeDrive(key);
  const [notionUrl, driveUrl] = [await notion.start(), await drive.start()];
  const config = loadConfig({
    DATABASE_URL: t.url,
    DOCO_HOME: home,
    DOCO_LOG_LEVEL: 'debug',
    NOTION_TOKEN: notion.token,
    NOTION_API_URL: notionUrl,
    NOTION_REQUESTS_PER_SECOND: '50',
    GOOGLE_SERVICE_ACCOUNT_FILE: path.join(home, 'sa.json'),
    GOOGLE_API_URL: driveUrl,
    GOOGLE_OAUTH_TOKEN_URL: drive.tokenUrl,
  });
  doco = await startDoco(
    config,
    makeLog('debug', (l) => lines.push(l)),
    { http: true, worker: true, port: await freePort() },
  );
  const ws = await ensureWorkspace(t.sql, 'default');
  token = await createToken(t.db, { workspaceId: ws, principalId: await ensurePrincipal(t.db, ws, 'ops', 'cli'), scope: 'write' });
});
afterAll(async () => {
  await doco?.stop();
  await notion.stop();
  await drive.stop();
  await t.drop();
  await rm(home, { recursive: true, force: true });
});

describe('doco serve with Notion and Drive configured', () => {
  it('copies a Notion page in, takes the handshake and a signed event over HTTP', async () => {
    const page = notion.addPage({ title: 'Payout schedule', blocks: [para('Payouts run on Fridays.')] });
    expect((await post('/api/v1/connectors', { kind: 'notion' })).status).toBe(201);
    await until(() => record(page.id));
    expect((await fetch(`${doco.url}/webhooks/notion`, { method: 'POST', ...notion.handshake() })).status).toBe(200);
    notion.edit(page.id, { blocks: [para('Payouts run on Thursdays.')] });
    const res = await fetch(`${doco.url}/webhooks/notion`, { method: 'POST', ...notion.event('page.content_updated', page.id) });
    expect(res.status).toBe(202);
    const edited = await until(async () => ((await record(page.id))?.version === 2 ? record(page.id) : undefined));
    expect(edited!.prose).toContain('Thursdays');
  });

  it('copies a Drive Doc in with the service account from the key file', async () => {
    const doc = drive.add({
      name: 'Chargebacks',
      mimeType: GOOGLE_DOC,
      parents: ['root'],
      content: 'Chargebacks are answered within 7 days.',
    });
    expect((await post('/api/v1/connectors', { kind: 'drive' })).status).toBe(201);
    const r = await until(() => record(doc.id));
    expect(r.prose).toContain('within 7 days');
    expect(drive.tokensIssued).toBe(1);
  });

  it('logs no token, verification token or key', () => {
    const all = lines.join('\n');
    for (const secret of [notion.token, notion.verificationToken, 'PRIVATE KEY', 'ya29.']) expect(all).not.toContain(secret);
  });

  it("the crontab ticks Slack, Notion and Drive every minute, each its own entry beside GitHub's", () => {
    const entries = parseCrontab(crontabFor({ sql: t.sql, log: makeLog('silent') } as never)).filter((i) => i.task === 'connectors__sweep');
    expect(entries.map((e) => [e.identifier, e.payload])).toEqual([
      ['connectors__sweep_github', { kind: 'github' }],
      ['connectors__sweep_slack', { kind: 'slack' }],
      ['connectors__sweep_notion', { kind: 'notion' }],
      ['connectors__sweep_drive', { kind: 'drive' }],
    ]);
    const minute = (min: number) => ({ min, hour: 9, date: 1, month: 1, dow: 4 });
    for (const e of entries.slice(1)) expect([1, 2, 37].every((m) => e.match(minute(m)))).toBe(true);
  });

  it('a bad pacing value or base URL is a clear config error', () => {
    const err = (() => {
      try {
        loadConfig({ NOTION_REQUESTS_PER_SECOND: 'fast', GOOGLE_API_URL: 'not a url' });
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err!.problems.join('\n')).toMatch(/NOTION_REQUESTS_PER_SECOND: must be a positive number \(got "fast"\)/);
    expect(err!.problems.join('\n')).toMatch(/GOOGLE_API_URL: must be a URL/);
  });
});
