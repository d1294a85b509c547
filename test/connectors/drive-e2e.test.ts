// The Drive connector end to end: a real graphile-worker, real Postgres, the HTTP app in process
// and the fake Google token endpoint and Drive API on loopback (test/helpers/fake-drive.ts says
// which documented behaviour each part stands for). The first sync lists the configured folder
// and its subfolder and saves the start token after; a Doc edited in Drive is updated by the next
// job; a trashed or removed file retires its record; a file of another type is listed as skipped
// in the status; a run with nothing changed makes one changes request and writes nothing; quota
// errors are retried; an outage is a recorded warning with the page token kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { DriveClient } from '../../src/connectors/drive/client.js';
import type { RunningWorker } from '../../src/jobs/worker.js';
import { makeLog } from '../../src/lib/log.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { connectorHarness, until } from '../helpers/connector-e2e.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { driveClientFor } from '../helpers/drive-client.js';
import { startConnectorWorker } from '../helpers/connector-worker.js';
import { FakeDrive, FOLDER_MIME, GOOGLE_DOC, serviceAccountKey, type FakeDriveFile } from '../helpers/fake-drive.js';
import { localProviders } from '../helpers/search.js';

const key = serviceAccountKey();
const providers = localProviders();
const lines: string[] = [];
const log = makeLog('debug', (l) => lines.push(l));
let t: TestDb;
let ws: TestWorkspace;
let fake: FakeDrive;
let worker: RunningWorker;
let h: ReturnType<typeof connectorHarness>;
let connectorId: string;
const f: Record<string, FakeDriveFile> = {};

const items = () =>
  t.sql<
    {
      external_id: string;
      node_id: string;
      version: number;
      lifecycle: string;
      title: string;
      prose: string;
      pointer: Record<string, any>;
    }[]
  >`
    select i.external_id, i.node_id, n.version, n.lifecycle::text as lifecycle, n.title, n.prose, n.body->'pointer' as pointer
      from doco.connector_items i join doco.nodes n on n.id = i.node_id where i.kind = 'drive' order by n.title`;
const item = async (id: string) => (await items()).find((i) => i.external_id === id);
const run = () => h.sweep('drive', connectorId, ws.readToken);
const contentRequests = () => fake.requests.filter((r) => /\/export\?|alt=media/.test(r.path));

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'drv');
  fake = new FakeDrive(key);
  const origin = await fake.start();
  f.folder = fake.add({ id: 'folderSpecs01', name: 'Specs', mimeType: FOLDER_MIME, parents: ['root'] });
  f.sub = fake.add({ id: 'folderSub0001', name: 'Archive', mimeType: FOLDER_MIME, parents: ['folderSpecs01'] });
  f.doc = fake.add({
    name: 'Refund design',
    mimeType: GOOGLE_DOC,
    parents: ['folderSpecs01'],
    content: '# Refund design\n\nRefunds post through `app/ledger/refund.ts`.',
  });
  f.md = fake.add({
    name: 'ledger-notes.md',
    mimeType: 'application/octet-stream',
    parents: ['folderSpecs01'],
    content: '## Ledger\n\n- balances nightly',
  });
  f.txt = fake.add({
    name: 'glossary.txt',
    mimeType: 'text/plain',
    parents: ['folderSub0001'],
    content: 'chargeback: a reversed card payment',
  });
  f.sheet = fake.add({ name: 'Pricing', mimeType: 'application/vnd.google-apps.spreadsheet', parents: ['folderSpecs01'] });
  f.outside = fake.add({ name: 'Personal notes', mimeType: GOOGLE_DOC, parents: ['root'], content: 'not shared with the connector' });
  const app = buildApp(makeApp(t, undefined, providers).deps);
  const drive = driveClientFor(fake, origin, key, { sleep: async () => {} });
  worker = await startConnectorWorker(t, providers, log, { drive });
  h = connectorHarness(t, app, () => worker);
});
afterAll(async () => {
  await worker.stop();
  await fake.stop();
  await t.drop();
});

describe('adding the connector and its first sync', () => {
  it('refuses bad input with nothing stored', async () => {
    for (const body of [
      { kind: 'drive', folders: ['not a folder id!'] },
      { kind: 'drive', folders: 'folderSpecs01' },
      { kind: 'drive', token: 'x' },
    ]) {
      expect((await h.api('POST', '/api/v1/connectors', ws.writeToken, body)).body.error.code).toBe('validation_failed');
    }
    expect(await t.sql`select 1 from doco.connectors`).toHaveLength(0);
  });

  it('lists the folder and its subfolder, copies Docs and .md/.txt files, lists the rest as skipped, and saves the start token after', async () => {
    const startToken = String(fake.log.length + 1);
    const added = await h.api('POST', '/api/v1/connectors', ws.writeToken, { kind: 'drive', folders: ['folderSpecs01'] });
    expect(added.status).toBe(201);
    expect(added.body.connector).toMatchObject({
      kind: 'drive',
      target: 'folderSpecs01',
      config: { folders: ['folderSpecs01'], collection: 'drive' },
    });
    connectorId = added.body.connector.id;
    const s = await until(async () => {
      const st = await h.status(connectorId, ws.readToken);
      return st.last_sync_at ? st : undefined;
    });
    expect(s.last_error).toBeNull();
    expect(s.state.page_token).toBe(startToken);
    expect(s.state.folder_ids).toEqual(['folderSpecs01', 'folderSub0001']);
    expect(s.state.skipped).toEqual({ [f.sheet!.id]: { name: 'Pricing', mime_type: 'application/vnd.google-apps.spreadsheet' } });
    const rows = await items();
    expect(rows.map((r) => r.title)).toEqual(['Refund design', 'glossary.txt', 'ledger-notes.md']);
    const doc = rows.find((r) => r.external_id === f.doc!.id)!;
    expect(doc).toMatchObject({ version: 1, lifecycle: 'active' });
    expect(doc.pointer).toEqual({
      file_id: f.doc!.id,
      url: `https://docs.google.com/document/d/${f.doc!.id}/edit?usp=drivesdk`,
      mime_type: GOOGLE_DOC,
    });
    expect(doc.prose).toContain('Refunds post through `app/ledger/refund.ts`.');
    const touches = (await t.sql<{ value: string }[]>`select value from doco.touches where node_id = ${doc.node_id}`).map((r) => r.value);
    expect(touches).toContain('app/ledger/refund.ts');
    expect(fake.requests.some((r) => r.path.startsWith('/drive/v3/changes?'))).toBe(false);
  });
});

describe('the minute job', () => {
  it('with nothing changed makes one changes request, reads no content and writes nothing', async () => {
    await h.idle();
    await h.idle(); // a job left by the test before must not finish between the two counts
    const before = await h.counts();
    fake.requests.length = 0;
    const s = await run();
    expect(s.last_error).toBeNull();
    expect(fake.requests.map((r) => r.path.split('?')[0])).toEqual(['/drive/v3/changes']);
    expect(await h.counts()).toEqual(before);
  });

  it('a Doc edited in Drive is updated by the next job, reading only that file', async () => {
    fake.edit(f.doc!.id, '# Refund design\n\nRefunds now need a second approver; they post through `app/ledger/refund.ts`.');
    fake.requests.length = 0;
    const s = await run();
    expect(s.last_error).toBeNull();
    const doc = (await item(f.doc!.id))!;
    expect(doc.version).toBe(2);
    expect(doc.prose).toContain('second approver');
    expect(contentRequests().map((r) => r.path.split('?')[0])).toEqual([`/drive/v3/files/${f.doc!.id}/export`]);
    expect(s.state.page_token).toBe(String(fake.log.length + 1));
  });

  it('a new file of another type is listed as skipped; a file outside the folders is not copied', async () => {
    f.pdf = fake.add({ name: 'contract.pdf', mimeType: 'application/pdf', parents: ['folderSub0001'] });
    fake.edit(f.outside!.id, 'still not shared');
    const s = await run();
    expect(Object.values(s.state.skipped)).toEqual(expect.arrayContaining([{ name: 'contract.pdf', mime_type: 'application/pdf' }]));
    expect(await item(f.outside!.id)).toBeUndefined();
  });

  it('a trashed file retires its record; a removed one too; a file moved out of the folders too', async () => {
    fake.trash(f.md!.id);
    fake.remove(f.txt!.id);
    fake.move(f.doc!.id, ['root']);
    const s = await run();
    expect(s.last_error).toBeNull();
    for (const id of [f.md!.id, f.txt!.id, f.doc!.id]) expect((await item(id))!.lifecycle).toBe('retired');
  });

  it('quota errors are retried with backoff and the job completes', async () => {
    f.doc2 = fake.add({
      name: 'Dispute handling',
      mimeType: GOOGLE_DOC,
      parents: ['folderSpecs01'],
      content: 'Disputes freeze the payout.',
    });
    fake.failures.push({ status: 403, reason: 'userRateLimitExceeded' }, { status: 429, reason: 'rateLimitExceeded' });
    const s = await run();
    expect(s.last_error).toBeNull();
    expect(fake.requests.filter((r) => r.status === 403 || r.status === 429)).toHaveLength(2);
    expect(await item(f.doc2!.id)).toMatchObject({ version: 1, title: 'Dispute handling' });
  });

  it('an outage is a recorded error and a warning; the page token stays; the next job catches up', async () => {
    const token = (await h.status(connectorId, ws.readToken)).state.page_token;
    fake.edit(f.doc2!.id, 'Disputes freeze the payout for 30 days.');
    fake.failures.push(...Array.from({ length: 6 }, () => ({ status: 503, reason: 'backendError' })));
    lines.length = 0;
    const failed = await run();
    expect(failed.last_error).toMatch(/503/);
    expect(failed.state.page_token).toBe(token);
    expect(lines.some((l) => / warn .*drive connector.*sweep failed, will retry/.test(l))).toBe(true);
    fake.failures.length = 0;
    const ok = await run();
    expect(ok.last_error).toBeNull();
    expect(ok.state.page_token).not.toBe(token);
    expect((await item(f.doc2!.id))!.prose).toContain('30 days');
  });

  it('a change page that names its own token as the next stops with a recorded error; the token stays; the next job completes', async () => {
    const token = (await h.status(connectorId, ws.readToken)).state.page_token;
    fake.edit(f.doc2!.id, 'Disputes freeze the payout for 45 days.');
    fake.replayChanges = true;
    const pages = () => fake.requests.filter((r) => r.path.includes('/changes')).length;
    const before = pages();
    const failed = await run();
    fake.replayChanges = false;
    expect(failed.last_error).toMatch(/drive changes: the API gave the page cursor "[^"]+" a second time/);
    expect(pages() - before).toBe(1);
    expect(failed.state.page_token).toBe(token);
    const ok = await run();
    expect(ok.last_error).toBeNull();
    expect((await item(f.doc2!.id))!.prose).toContain('45 days');
  });

  it('no log line or status carries the private key or an access token', async () => {
    const all = lines.join('\n') + JSON.stringify(await h.api('GET', '/api/v1/connectors', ws.writeToken));
    expect(all).not.toContain('PRIVATE KEY');
    expect(all).not.toContain('ya29.');
  });
});
