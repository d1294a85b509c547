// Two ingests at once must not duplicate: each run holds its (workspace, source) lock from its
// manifest read to its reap, so a second run waits and then finds every section in the manifest.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestDocSections } from '../../src/ingest/docs/ingest.js';
import { readDocTree } from '../../src/ingest/docs/walk.js';
import { makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { ingestTree, makeTree, prose, removeTree } from '../helpers/docs.js';

let t: TestDb;
let root: string;
const topics = Array.from({ length: 12 }, (_, i) => `Topic ${i}`);

beforeAll(async () => {
  t = await createTestDb();
  const files: Record<string, string> = {};
  for (let f = 0; f < 5; f++) files[`docs/f${f}.md`] = `# F${f}\n\n${topics.map((x) => `## ${x}\n\n${prose(`${f} ${x}`)}`).join('\n\n')}`;
  root = await makeTree(files);
});
afterAll(async () => {
  await t.drop();
  await removeTree(root);
});

async function counts(ws: TestWorkspace) {
  const [row] = await t.sql<{ records: number; keys: number; manifest: number }[]>`
    select (select count(*)::int from doco.nodes where workspace_id = ${ws.id} and node_type = 'reference') as records,
           (select count(distinct body->'pointer'->>'section_key')::int from doco.nodes where workspace_id = ${ws.id} and node_type = 'reference') as keys,
           (select count(*)::int from doco.doc_manifest where workspace_id = ${ws.id}) as manifest`;
  return row!;
}

describe('concurrent runs', () => {
  it('three runs of one tree at once make exactly one record per section_key', async () => {
    const ws = await makeWorkspace(t, 'concurrent');
    const reports = await Promise.all([1, 2, 3].map(() => ingestTree(t, ws, root)));
    expect(reports.map((r) => r.created).sort((a, b) => a - b)).toEqual([0, 0, 60]);
    expect(reports.map((r) => r.skipped).sort((a, b) => a - b)).toEqual([0, 60, 60]);
    expect(await counts(ws)).toEqual({ records: 60, keys: 60, manifest: 60 });
  });

  it('runs of different sources at once each keep their own manifest, and share the one collection they make', async () => {
    const ws = await makeWorkspace(t, 'concurrent-sources');
    const tree = await readDocTree(root);
    const run = (source: 'fs' | 'pack:a' | 'pack:b') =>
      ingestDocSections({ sql: t.sql, db: t.db }, { workspaceId: ws.id, principalId: ws.principalId, source, root, files: tree.files });
    const reports = await Promise.all([run('fs'), run('pack:a'), run('pack:b')]);
    expect(reports.map((r) => r.created)).toEqual([60, 60, 60]);
    const collections = await t.sql`select slug from doco.collections where workspace_id = ${ws.id} and template = 'documentation'`;
    expect(collections).toEqual([{ slug: 'docs' }]);
    expect((await counts(ws)).manifest).toBe(180);
  });
});
