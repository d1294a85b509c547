// The Drive job over several pages, run directly (no worker): a first sync cut short keeps what
// it wrote and saves no page token, and its rerun reads only the files it had not read (dedup by
// file id + version); a changes walk cut short keeps the token of the last page that committed,
// and the next run goes on from there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DriveClient } from '../../src/connectors/drive/client.js';
import type { ConnectorDeps } from '../../src/connectors/kind.js';
import { parseAddConnector } from '../../src/connectors/registry.js';
import { sweepConnectors } from '../../src/connectors/run.js';
import { addConnector, readState } from '../../src/connectors/store.js';
import { ensureWorkspace } from '../../src/auth/workspaces.js';
import { makeLog } from '../../src/lib/log.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { driveClientFor } from '../helpers/drive-client.js';
import { FakeDrive, FOLDER_MIME, serviceAccountKey, type FakeDriveFile } from '../helpers/fake-drive.js';

const key = serviceAccountKey();
let t: TestDb;
let fake: FakeDrive;
let deps: ConnectorDeps;
let connectorId: string;
const files: FakeDriveFile[] = [];

const downloads = () => fake.requests.filter((r) => r.path.includes('alt=media')).length;
const versions = async () =>
  (
    await t.sql<
      { n: number }[]
    >`select coalesce(sum(n.version), 0)::int as n from doco.connector_items i join doco.nodes n on n.id = i.node_id where i.kind = 'drive'`
  )[0]!.n;
const sweep = async () => (await sweepConnectors(deps, { connectorId }))[0]!;

beforeAll(async () => {
  t = await createTestDb();
  fake = new FakeDrive(key);
  const origin = await fake.start();
  fake.pageSizeCap = 10;
  fake.add({ id: 'folderBulk001', name: 'Bulk', mimeType: FOLDER_MIME, parents: ['root'] });
  for (let i = 0; i < 25; i++)
    files.push(
      fake.add({
        name: `note-${String(i).padStart(2, '0')}.md`,
        mimeType: 'text/markdown',
        parents: ['folderBulk001'],
        content: `Note ${i} about the ledger.`,
      }),
    );
  const drive = driveClientFor(fake, origin, key);
  deps = { sql: t.sql, db: t.db, log: makeLog('silent'), drive };
  const ws = await ensureWorkspace(t.sql, 'bulk');
  connectorId = (await addConnector(t.sql, ws, parseAddConnector({ kind: 'drive', folders: ['folderBulk001'] }))).id;
});
afterAll(async () => {
  await fake.stop();
  await t.drop();
});

describe('a first sync over several listing pages', () => {
  it('cut short on its third page: what was written stays, no page token is saved', async () => {
    fake.failures.push({ status: 400, reason: 'invalid', path: '/drive/v3/files', skip: 2 });
    expect(await sweep()).toMatchObject({ ok: false });
    expect(await versions()).toBe(20);
    expect((await readState(t.sql, connectorId)).page_token).toBeUndefined();
  });

  it('the rerun lists again but downloads only the 5 files it had not read, then saves the start token', async () => {
    fake.requests.length = 0;
    const out = await sweep();
    expect(out).toMatchObject({ ok: true });
    expect(downloads()).toBe(5);
    expect(out.report!.notModified).toBe(20);
    expect(await versions()).toBe(25);
    expect((await readState(t.sql, connectorId)).page_token).toBe(String(fake.log.length + 1));
  });
});

describe('changes over several pages', () => {
  it('cut short on the second page: the first page is written with its next token; the next run goes on from there', async () => {
    const start = Number((await readState(t.sql, connectorId)).page_token);
    for (const f of files) fake.edit(f.id, `${f.content} Edited.`);
    fake.failures.push({ status: 400, reason: 'invalid', path: '/drive/v3/changes', skip: 1 });
    expect(await sweep()).toMatchObject({ ok: false });
    expect(await versions()).toBe(35);
    expect((await readState(t.sql, connectorId)).page_token).toBe(String(start + 10));
    fake.requests.length = 0;
    expect(await sweep()).toMatchObject({ ok: true });
    expect(downloads()).toBe(15);
    expect(await versions()).toBe(50);
    expect((await readState(t.sql, connectorId)).page_token).toBe(String(fake.log.length + 1));
  });
});
