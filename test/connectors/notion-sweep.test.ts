// The Notion tick over many search pages, run directly (no worker): a first sync walks every
// page of search results and moves the cursor only once the whole walk has committed; a walk
// cut short keeps the cursor, and the rerun reads only the content it had not read yet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotionClient } from '../../src/connectors/notion/client.js';
import { parseAddConnector } from '../../src/connectors/registry.js';
import { sweepConnectors } from '../../src/connectors/run.js';
import { addConnector, readState } from '../../src/connectors/store.js';
import type { ConnectorDeps } from '../../src/connectors/kind.js';
import { ensureWorkspace } from '../../src/auth/workspaces.js';
import { makeLog } from '../../src/lib/log.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { FakeNotion, para } from '../helpers/fake-notion.js';

let t: TestDb;
let fake: FakeNotion;
let deps: ConnectorDeps;
let connectorId: string;

const children = () => fake.requests.filter((r) => r.path.includes('/children')).length;
const searches = () => fake.requests.filter((r) => r.path === '/v1/search').length;
const count = async () => (await t.sql<{ n: number }[]>`select count(*)::int as n from doco.connector_items where kind = 'notion'`)[0]!.n;

beforeAll(async () => {
  t = await createTestDb();
  fake = new FakeNotion();
  const origin = await fake.start();
  for (let i = 0; i < 230; i++) {
    if (i % 40 === 0) fake.clock += 60_000; // forty pages share each edited minute
    fake.addPage({ title: `Page ${i}`, blocks: [para(`Body of page ${i}.`)] });
  }
  deps = {
    sql: t.sql,
    db: t.db,
    log: makeLog('silent'),
    notion: new NotionClient({ apiUrl: origin, token: fake.token, requestsPerSecond: 1000, retry: { maxAttempts: 1 } }),
  };
  const ws = await ensureWorkspace(t.sql, 'many');
  connectorId = (await addConnector(t.sql, ws, parseAddConnector({ kind: 'notion' }))).id;
});
afterAll(async () => {
  await fake.stop();
  await t.drop();
});

describe('a first sync over several search pages', () => {
  it('cut short on its third search page: what was read is kept, the cursor is not set', async () => {
    fake.failures.push({ status: 400, code: 'validation_error', path: '/v1/search', skip: 2 });
    const [outcome] = await sweepConnectors(deps, { connectorId });
    expect(outcome).toMatchObject({ ok: false });
    expect(searches()).toBe(3);
    expect(await count()).toBe(200);
    expect((await readState(t.sql, connectorId)).search_since).toBeUndefined();
  });

  it('the rerun walks search again but reads only the 30 pages it had not read, then sets the cursor', async () => {
    fake.requests.length = 0;
    const [outcome] = await sweepConnectors(deps, { connectorId });
    expect(outcome).toMatchObject({ ok: true });
    expect(outcome!.report!.items.created).toBe(30);
    expect(outcome!.report!.notModified).toBe(200);
    expect(children()).toBe(30);
    expect(await count()).toBe(230);
    expect((await readState(t.sql, connectorId)).search_since).toBe(new Date(fake.clock - 30_000).toISOString());
  });

  it('a later tick stops at the cursor: one search page, the boundary minute deduplicated', async () => {
    fake.requests.length = 0;
    const [outcome] = await sweepConnectors(deps, { connectorId });
    expect(outcome).toMatchObject({ ok: true });
    expect(searches()).toBe(1);
    expect(children()).toBe(0);
    // The newest minute's pages are re-read from search (the boundary), their content is not.
    expect(outcome!.report!.notModified).toBe(30);
  });
});

describe('upToDate: when an equal last_edited_time proves nothing new', () => {
  const edited = '2026-05-01T10:07:00.000Z';
  const known = (fetched_at: string, over: Partial<{ retired: boolean; last_edited_time: string }> = {}) => ({
    meta: { last_edited_time: over.last_edited_time ?? edited, fetched_at },
    retired: over.retired ?? false,
  });
  it('only when the read began after the edited minute ended, with the clock margin', async () => {
    const { upToDate } = await import('../../src/connectors/notion/pages.js');
    expect(upToDate(known('2026-05-01T10:09:00.000Z'), edited)).toBe(true);
    // Read during the edited minute (or too close after it): a later edit in that minute would hide behind the same value.
    expect(upToDate(known('2026-05-01T10:07:40.000Z'), edited)).toBe(false);
    expect(upToDate(known('2026-05-01T10:08:10.000Z'), edited)).toBe(false);
    expect(upToDate(known('2026-05-01T10:09:00.000Z', { last_edited_time: '2026-05-01T10:06:00.000Z' }), edited)).toBe(false);
    expect(upToDate(undefined, edited)).toBe(false);
    expect(upToDate(known('2026-05-01T10:00:00.000Z', { retired: true }), edited)).toBe(true);
  });
});
