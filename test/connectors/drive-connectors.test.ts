// Two Drive connectors in one workspace (docs/connectors.md: the workspace holding the Drive
// account may add more folders), against the fake Drive API: the changes feed covers the whole
// account, so each connector sees the other's files as outside its folders; neither retires what
// the other wrote. And no connector writes into the constitution.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureWorkspace } from '../../src/auth/workspaces.js';
import { DriveClient } from '../../src/connectors/drive/client.js';
import type { ConnectorDeps } from '../../src/connectors/kind.js';
import { parseAddConnector } from '../../src/connectors/registry.js';
import { sweepConnectors } from '../../src/connectors/run.js';
import { addConnector } from '../../src/connectors/store.js';
import { makeLog } from '../../src/lib/log.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { driveClientFor } from '../helpers/drive-client.js';
import { FakeDrive, FOLDER_MIME, serviceAccountKey } from '../helpers/fake-drive.js';

const key = serviceAccountKey();
let t: TestDb;
let fake: FakeDrive;
let deps: ConnectorDeps;
let ws: string;

const lifecycleOf = async (fileId: string) =>
  (
    await t.sql<{ lifecycle: string }[]>`
      select n.lifecycle from doco.connector_items i join doco.nodes n on n.id = i.node_id where i.kind = 'drive' and i.external_id = ${fileId}`
  )[0]?.lifecycle;

beforeAll(async () => {
  t = await createTestDb();
  fake = new FakeDrive(key);
  const origin = await fake.start();
  const drive = driveClientFor(fake, origin, key);
  deps = { sql: t.sql, db: t.db, log: makeLog('silent'), drive };
  ws = await ensureWorkspace(t.sql, 'two-drives');
});
afterAll(async () => {
  await fake.stop();
  await t.drop();
});

describe('two Drive connectors in one workspace', () => {
  it('each keeps its own records: a change the other sees outside its folders retires nothing', async () => {
    fake.add({ id: 'folderAAAA01', name: 'A', mimeType: FOLDER_MIME, parents: ['root'] });
    fake.add({ id: 'folderBBBB01', name: 'B', mimeType: FOLDER_MIME, parents: ['root'] });
    const inA = fake.add({
      name: 'ledger.md',
      mimeType: 'text/markdown',
      parents: ['folderAAAA01'],
      content: 'The ledger is append-only.',
    });
    const inB = fake.add({ name: 'billing.md', mimeType: 'text/markdown', parents: ['folderBBBB01'], content: 'Invoices are numbered.' });
    const a = (await addConnector(t.sql, ws, parseAddConnector({ kind: 'drive', folders: ['folderAAAA01'] }))).id;
    const b = (await addConnector(t.sql, ws, parseAddConnector({ kind: 'drive', folders: ['folderBBBB01'] }))).id;
    const sweep = async (connectorId: string) => (await sweepConnectors(deps, { connectorId }))[0]!;
    expect(await sweep(a)).toMatchObject({ ok: true });
    expect(await sweep(b)).toMatchObject({ ok: true });
    expect([await lifecycleOf(inA.id), await lifecycleOf(inB.id)]).toEqual(['active', 'active']);

    fake.edit(inA.id, 'The ledger is append-only; corrections are new entries.');
    const other = await sweep(b);
    expect(other).toMatchObject({ ok: true });
    expect(other.report!.items.retired).toBe(0);
    expect(await lifecycleOf(inA.id)).toBe('active');
    // Its own connector still reads the change.
    const own = await sweep(a);
    expect(own.report!.items.updated).toBe(1);
    // A file its own connector sees removed is retired, as before.
    fake.edit(inB.id, 'Invoices are numbered per year.');
    fake.trash(inB.id);
    await sweep(a);
    expect(await lifecycleOf(inB.id)).toBe('active');
    await sweep(b);
    expect(await lifecycleOf(inB.id)).toBe('retired');
  });
});

describe('a connector into the constitution', () => {
  it('is refused when added, naming the collection; nothing is added', async () => {
    const add = addConnector(t.sql, ws, parseAddConnector({ kind: 'drive', folders: ['folderCCCC01'], collection: 'constitution' }));
    await expect(add).rejects.toMatchObject({
      code: 'validation_failed',
      message: expect.stringContaining('collection constitution is the constitution'),
    });
    const rows = await t.sql`select 1 from doco.connectors where workspace_id = ${ws} and config->>'collection' = 'constitution'`;
    expect(rows).toHaveLength(0);
  });
});
