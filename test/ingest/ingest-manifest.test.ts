// The manifest (section_key → {hash, record}): create once, skip what did not change, update a
// changed section in place (same id, a new version, the old one readable), and create anew
// when the manifest's record was retired; every run is recorded in doco.doc_ingest_runs.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createCollection } from '../../src/graph/collections.js';
import { changeset } from '../../src/graph/writes.js';
import { noJudge } from '../../src/providers/judge.js';
import { ingestDocSections } from '../../src/ingest/docs/ingest.js';
import { readDocTree } from '../../src/ingest/docs/walk.js';
import { makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { ingestTree, makeTree, manifestRecords, nodeById, prose, removeTree, writeTree } from '../helpers/docs.js';

let t: TestDb;
let ws: TestWorkspace;
let root: string;
const roots: string[] = [];
let n = 0;

const files = () => ({
  'docs/billing.md': `# Billing\n\n## Invoices\n\n${prose('invoice')}\n\n## Refunds\n\n${prose('refund')}`,
  'docs/tax.md': `# Tax\n\n## Rates\n\n${prose('rate')}`,
});

beforeEach(async () => {
  t ??= await createTestDb();
  ws = await makeWorkspace(t, `manifest-${++n}`);
  root = await makeTree(files());
  roots.push(root);
});
afterAll(async () => {
  await t.drop();
  await Promise.all(roots.map(removeTree));
});

const countVersions = async (id: string) =>
  (await t.sql<{ n: number }[]>`select count(*)::int as n from doco.node_versions where node_id = ${id}`)[0]!.n;

describe('the manifest', () => {
  it('creates one record per section on the first run and maps each section_key to its record and hash', async () => {
    const report = await ingestTree(t, ws, root);
    expect(report).toMatchObject({ created: 3, updated: 0, skipped: 0, unchanged_files: 0, unreadable: [] });
    const manifest = await t.sql<{ section_key: string; hash: string; node_id: string; path: string }[]>`
      select section_key, hash, node_id, path from doco.doc_manifest where workspace_id = ${ws.id} and source = 'fs' order by section_key`;
    expect(manifest.map((m) => m.section_key)).toEqual(['docs/billing.md#invoices', 'docs/billing.md#refunds', 'docs/tax.md#rates']);
    expect(manifest.every((m) => /^[0-9a-f]{64}$/.test(m.hash) && m.node_id.startsWith('reference_'))).toBe(true);
    expect(new Set(manifest.map((m) => m.hash)).size).toBe(3);
  });

  it('counts no file unchanged on a first run, one with no section above the floor included', async () => {
    await writeTree(root, { 'docs/notes.md': '# Notes\n\nShort.' });
    const report = await ingestTree(t, ws, root);
    expect(report).toMatchObject({ created: 3, unchanged_files: 0 });
  });

  it('skips every section on a rerun of an unchanged tree: no write, no new version, every file unchanged', async () => {
    await ingestTree(t, ws, root);
    const before =
      await t.sql`select id, version, hash from doco.nodes where workspace_id = ${ws.id} and node_type = 'reference' order by id`;
    const changesets = (await t.sql`select count(*)::int as n from doco.changesets where workspace_id = ${ws.id}`)[0]!.n;
    const report = await ingestTree(t, ws, root);
    expect(report).toMatchObject({ created: 0, updated: 0, skipped: 3, unchanged_files: 2 });
    expect(
      await t.sql`select id, version, hash from doco.nodes where workspace_id = ${ws.id} and node_type = 'reference' order by id`,
    ).toEqual(before);
    expect((await t.sql`select count(*)::int as n from doco.changesets where workspace_id = ${ws.id}`)[0]!.n).toBe(changesets);
  });

  it('updates a changed section in place: the same id, version 2, the first text still readable', async () => {
    await ingestTree(t, ws, root);
    const id = (await manifestRecords(t, ws)).get('docs/billing.md#refunds')!.node_id;
    await writeTree(root, { 'docs/billing.md': `# Billing\n\n## Invoices\n\n${prose('invoice')}\n\n## Refunds\n\n${prose('refund', 5)}` });
    const report = await ingestTree(t, ws, root);
    expect(report).toMatchObject({ created: 0, updated: 1, skipped: 2, unchanged_files: 1 });
    const after = (await manifestRecords(t, ws)).get('docs/billing.md#refunds')!;
    expect(after.node_id).toBe(id);
    expect(after.version).toBe(2);
    expect(after.prose).toBe(prose('refund', 5));
    const versions = await t.sql<
      { version: number; prose: string }[]
    >`select version, prose from doco.node_versions where node_id = ${id} order by version`;
    expect(versions).toEqual([
      { version: 1, prose: prose('refund') },
      { version: 2, prose: prose('refund', 5) },
    ]);
  });

  it("falls back to a create when the manifest's record was retired, and repoints the manifest", async () => {
    await ingestTree(t, ws, root);
    const old = (await manifestRecords(t, ws)).get('docs/tax.md#rates')!.node_id;
    await changeset(
      { db: t.db, judge: noJudge },
      { workspaceId: ws.id, principalId: ws.principalId, source: 'api' },
      { operations: [{ op: 'retire', target: old }] },
    );
    const report = await ingestTree(t, ws, root);
    expect(report).toMatchObject({ created: 1, updated: 0, skipped: 2 });
    const now = (await manifestRecords(t, ws)).get('docs/tax.md#rates')!;
    expect(now.node_id).not.toBe(old);
    expect(now.lifecycle).toBe('active');
    expect(now.prose).toBe(prose('rate'));
    expect((await nodeById(t, old))!.lifecycle).toBe('retired');
    expect(await countVersions(old)).toBe(2);
  });

  it('updates a section whose hash changed even when its text did not (a different collection)', async () => {
    await ingestTree(t, ws, root);
    const before = await manifestRecords(t, ws);
    const tree = await readDocTree(root);
    const report = await ingestDocSections(
      { sql: t.sql, db: t.db },
      { workspaceId: ws.id, principalId: ws.principalId, source: 'fs', root, files: tree.files, collection: 'handbook' },
    );
    expect(report).toMatchObject({ created: 0, updated: 3, skipped: 0 });
    const after = await manifestRecords(t, ws);
    for (const [key, row] of before) expect(after.get(key)!.node_id).toBe(row.node_id);
    const [c] =
      await t.sql`select c.slug, c.template from doco.nodes n join doco.collections c on c.id = n.collection_id where n.id = ${before.get('docs/tax.md#rates')!.node_id}`;
    expect(c).toEqual({ slug: 'handbook', template: 'documentation' });
  });

  it('records every run in doco.doc_ingest_runs with its counts and reap outcome', async () => {
    const first = await ingestTree(t, ws, root);
    const second = await ingestTree(t, ws, root);
    const runs = await t.sql`
      select id::int, source, root, files, unreadable, created, updated, skipped, unchanged_files, reap_outcome, reap_reason, reap_count, error, finished_at is not null as finished
        from doco.doc_ingest_runs where workspace_id = ${ws.id} order by id`;
    expect(runs).toEqual([
      {
        id: first.run_id,
        source: 'fs',
        root,
        files: 2,
        unreadable: [],
        created: 3,
        updated: 0,
        skipped: 0,
        unchanged_files: 0,
        reap_outcome: 'nothing_to_reap',
        reap_reason: null,
        reap_count: 0,
        error: null,
        finished: true,
      },
      {
        id: second.run_id,
        source: 'fs',
        root,
        files: 2,
        unreadable: [],
        created: 0,
        updated: 0,
        skipped: 3,
        unchanged_files: 2,
        reap_outcome: 'nothing_to_reap',
        reap_reason: null,
        reap_count: 0,
        error: null,
        finished: true,
      },
    ]);
  });

  it('refuses a collection whose template does not take reference records, and records nothing', async () => {
    await createCollection(t.db, ws.id, { slug: 'goals', template: 'okrs', goal: 'What we are trying to achieve.' });
    const tree = await readDocTree(root);
    await expect(
      ingestDocSections(
        { sql: t.sql, db: t.db },
        { workspaceId: ws.id, principalId: ws.principalId, source: 'fs', root, files: tree.files, collection: 'goals' },
      ),
    ).rejects.toThrow(/does not take reference records/);
    expect((await t.sql`select count(*)::int as n from doco.doc_manifest where workspace_id = ${ws.id}`)[0]!.n).toBe(0);
  });
});
