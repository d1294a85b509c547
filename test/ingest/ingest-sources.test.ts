// Sources never step on each other: the filesystem ingester's reap is scoped to its own
// manifest ('fs'), so it never retires a docs pack's sections or a connector's documents, even
// in the same collection and with the same section keys; a pack's reap is scoped the same way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeset } from '../../src/graph/writes.js';
import { ingestDocSections } from '../../src/ingest/docs/ingest.js';
import { splitMarkdown } from '../../src/ingest/docs/sections.js';
import { noJudge } from '../../src/providers/judge.js';
import { makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { ingestTree, makeTree, manifestRecords, nodeById, prose, removeTree, writeTree } from '../helpers/docs.js';

let t: TestDb;
let ws: TestWorkspace;
let root: string;
let connectorId: string;
const text = (name: string) => `# ${name}\n\n## One\n\n${prose(`${name} one`)}\n\n## Two\n\n${prose(`${name} two`)}`;

/** The same file and section keys under 'pack:x' as under 'fs', so only the source tells them apart. */
const packIngest = (files: string[], into = ws) =>
  ingestDocSections(
    { sql: t.sql, db: t.db },
    {
      workspaceId: into.id,
      principalId: into.principalId,
      source: 'pack:x',
      root: 'http://pack.test',
      files: files.map((f) => ({ path: f, sections: splitMarkdown(f, text(f)).sections })),
    },
  );

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'sources');
  root = await makeTree({ 'docs/a.md': text('docs/a.md'), 'docs/b.md': text('docs/b.md') });
  await ingestTree(t, ws, root);
  await packIngest(['docs/a.md', 'docs/b.md']);
  const res = await changeset(
    { db: t.db, judge: noJudge },
    { workspaceId: ws.id, principalId: ws.principalId, source: 'connector' },
    {
      collection: 'docs',
      operations: [
        {
          op: 'create',
          node_type: 'reference',
          title: 'Notion: billing',
          prose: prose('notion page'),
          body: {
            source_kind: 'notion',
            source_type: 'doc_expectation',
            pointer: { path: 'docs/a.md', heading: 'One', section_key: 'docs/a.md#one' },
          },
        },
      ],
    },
  );
  connectorId = res.results[0]!.id;
});
afterAll(async () => {
  await t.drop();
  await removeTree(root);
});

describe('sources', () => {
  it('keeps one manifest per source: the same keys map to different records', async () => {
    const fs = await manifestRecords(t, ws, 'fs');
    const pack = await manifestRecords(t, ws, 'pack:x');
    expect([...fs.keys()].sort()).toEqual([...pack.keys()].sort());
    expect(fs.get('docs/a.md#one')!.node_id).not.toBe(pack.get('docs/a.md#one')!.node_id);
    expect(pack.get('docs/a.md#one')!.body.source_kind).toBe('docs_pack');
    expect(fs.get('docs/a.md#one')!.body.source_kind).toBe('doc');
  });

  it("the filesystem reap never retires a pack's sections or a connector's documents", async () => {
    const fsBefore = await manifestRecords(t, ws, 'fs');
    const packBefore = await manifestRecords(t, ws, 'pack:x');
    await writeTree(root, { 'docs/a.md': `# docs/a.md\n\n## One\n\n${prose('docs/a.md one')}` });
    const report = await ingestTree(t, ws, root);
    expect(report.reap).toEqual({ outcome: 'reaped', reason: null, count: 1 });
    expect((await nodeById(t, fsBefore.get('docs/a.md#two')!.node_id))!.lifecycle).toBe('retired');
    const pack = await manifestRecords(t, ws, 'pack:x');
    expect([...pack.values()].map((r) => [r.section_key, r.node_id, r.lifecycle])).toEqual(
      [...packBefore.values()].map((r) => [r.section_key, r.node_id, 'active']),
    );
    expect((await nodeById(t, connectorId))!.lifecycle).toBe('active');
  });

  it("a pack's reap never retires the filesystem's sections", async () => {
    const fsTree = await makeTree({
      'docs/a.md': text('docs/a.md'),
      'docs/b.md': text('docs/b.md'),
      'docs/c.md': text('docs/c.md'),
      'docs/d.md': text('docs/d.md'),
    });
    const other = await makeWorkspace(t, 'sources-pack');
    const fsIngest = await ingestTree(t, other, fsTree);
    expect(fsIngest.created).toBe(8);
    await packIngest(['docs/a.md', 'docs/b.md', 'docs/c.md', 'docs/d.md'], other);
    const report = await packIngest(['docs/a.md', 'docs/b.md', 'docs/c.md'], other);
    expect(report.reap).toEqual({ outcome: 'reaped', reason: null, count: 2 });
    const fs = await manifestRecords(t, other, 'fs');
    expect(fs.size).toBe(8);
    expect([...fs.values()].every((r) => r.lifecycle === 'active')).toBe(true);
    expect([...(await manifestRecords(t, other, 'pack:x')).keys()].some((k) => k.startsWith('docs/d.md'))).toBe(false);
    await removeTree(fsTree);
  });
});
