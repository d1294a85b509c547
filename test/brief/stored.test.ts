// How a brief is stored (src/brief/stored.ts, migration 0032): its response deflated by the
// server, its receipt and the ids of the items it sent as columns; briefs stored before as jsonb
// keep reading back, with those columns filled from their response; a row holds exactly one form.
import { mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureWorkspace } from '../../src/auth/workspaces.js';
import { connect } from '../../src/db/connect.js';
import { migrate } from '../../src/db/migrate.js';
import { getStoredBrief } from '../../src/brief/stored.js';
import type { Brief } from '../../src/brief/types.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createEmptyDb, createTestDb, type TestDb } from '../helpers/db.js';
import { drainAll, localProviders } from '../helpers/search.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

let t: TestDb;
let ws: TestWorkspace;
let api: ReturnType<typeof makeApp>;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'stored');
  const providers = localProviders();
  api = makeApp(t, undefined, providers);
  const made = await api.call('POST', '/api/v1/collections', ws.writeToken, {
    slug: 'billing',
    template: 'product-decisions',
    goal: 'Money',
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  for (const title of ['Refunds go through the ledger', 'Refund emails are sent once']) {
    const res = await api.call('POST', '/api/v1/capture', ws.writeToken, {
      collection: 'billing',
      node_type: 'decision',
      title,
      prose: `${title}: the billing service refunds a charge through the ledger and mails the customer once.`,
      body: { question: 'How are refunds handled?' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  await drainAll(t.sql, providers);
});
afterAll(async () => t.drop());

describe('a brief as stored', () => {
  it('keeps the response deflated, and its receipt and item ids as columns; it reads back as sent', async () => {
    const res = await api.call('POST', '/api/v1/brief', ws.readToken, { about: 'how are refunds mailed?' });
    expect(res.status).toBe(200);
    const brief = res.body as Brief;
    const sent = Object.values(brief.tiers).flat();
    expect(sent.length).toBeGreaterThan(0);
    const [row] = await t.sql<{ response: unknown; response_deflated: Buffer; receipt: string; item_ids: string[] }[]>`
      select response, response_deflated, receipt, item_ids from doco.briefs where id = ${brief.brief_id}`;
    expect(row!.response).toBeNull();
    // Raw DEFLATE (RFC 1951), as the column's comment says: any zlib reads it.
    expect(JSON.parse(inflateRawSync(row!.response_deflated).toString('utf8'))).toEqual(brief);
    expect(row!.receipt).toBe(brief.receipt);
    expect(row!.item_ids).toEqual(sent.map((i) => i.id));
    const back = await api.call('GET', `/api/v1/briefs/${brief.brief_id}`, ws.readToken);
    expect(back.status).toBe(200);
    expect(back.body).toEqual(brief);
  });

  it('a row holds exactly one form of the response', async () => {
    const insert = (response: unknown, deflated: Buffer | null) => t.sql`
      insert into doco.briefs (id, workspace_id, request, response, response_deflated, receipt, item_ids)
      values ('brief_01JZ0000000000000000000000', ${ws.id}, '{}', ${response as never}, ${deflated}, '', '{}')`;
    await expect(insert(null, null)).rejects.toThrow(/briefs_one_response/);
    await expect(insert(t.sql.json({}), Buffer.from([3, 0]))).rejects.toThrow(/briefs_one_response/);
  });
});

describe('briefs stored before migration 0032', () => {
  let root: string;
  let fresh: Awaited<ReturnType<typeof createEmptyDb>>;
  beforeAll(async () => {
    // A project root holding the migrations up to 0031 and today's sql/.
    root = await mkdtemp(path.join(os.tmpdir(), 'doco-0031-'));
    await mkdir(path.join(root, 'migrations'));
    for (const name of await readdir(path.join(ROOT, 'migrations')))
      if (name < '0032') await symlink(path.join(ROOT, 'migrations', name), path.join(root, 'migrations', name));
    await symlink(path.join(ROOT, 'sql'), path.join(root, 'sql'));
    fresh = await createEmptyDb();
  });
  afterAll(async () => {
    await fresh.drop();
    await rm(root, { recursive: true, force: true });
  });

  it('get their receipt and item ids from the response, and read back as stored', async () => {
    const db = connect(fresh.url);
    try {
      await migrate(db.sql, { root });
      const workspaceId = await ensureWorkspace(db.sql, 'old');
      const response = {
        brief_id: 'brief_01JZ0000000000000000000001',
        about: 'refunds',
        tiers: {
          must_obey: [{ id: 'rule_a' }],
          already_decided: [{ id: 'decision_b' }, { id: 'decision_c' }],
          in_motion: [],
          background: [],
        },
        proposed: [{ id: 'idea_d' }],
        receipt: '[🔮 Doco] briefed: 4 items, 0 held back · searched 1K tokens, sent 200 (0.1s)',
      };
      const older = { ...response, brief_id: 'brief_01JZ0000000000000000000002', proposed: undefined, receipt: 'older' };
      for (const r of [response, older])
        await db.sql`insert into doco.briefs (id, workspace_id, request, response)
                     values (${r.brief_id}, ${workspaceId}, ${db.sql.json({ about: 'refunds' })}, ${db.sql.json(r as never)})`;
      await migrate(db.sql);
      const rows = await db.sql<{ id: string; receipt: string; item_ids: string[] }[]>`
        select id, receipt, item_ids from doco.briefs order by id`;
      expect(rows.map((r) => ({ ...r }))).toEqual([
        { id: response.brief_id, receipt: response.receipt, item_ids: ['rule_a', 'decision_b', 'decision_c', 'idea_d'] },
        { id: older.brief_id, receipt: 'older', item_ids: ['rule_a', 'decision_b', 'decision_c'] },
      ]);
      expect((await getStoredBrief(db.sql, workspaceId, response.brief_id)).brief).toEqual(response);
      // Stored before proposals had a group of their own: read as having sent none.
      expect((await getStoredBrief(db.sql, workspaceId, older.brief_id)).brief.proposed).toEqual([]);
    } finally {
      await db.close();
    }
  });
});
