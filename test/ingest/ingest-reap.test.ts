// The reap: manifest keys a run no longer saw are retracted (records retired, history kept,
// manifest rows dropped), a section trimmed under the floor included; its three guards — a run
// forced to named files reaps only within them, a file that could not be read keeps its
// sections, more than a quarter of the manifest or an empty document list is refused — and the
// refusal reported as its own outcome, with its reason, in the report, the runs table and the log.
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { ingestTree, makeTree, manifestRecords, nodeById, prose, removeTree, writeTree } from '../helpers/docs.js';

let t: TestDb;
let ws: TestWorkspace;
let root: string;
const roots: string[] = [];
let n = 0;

const doc = (name: string, a = prose(`${name} one`), b = prose(`${name} two`)) => `# ${name}\n\n## One\n\n${a}\n\n## Two\n\n${b}`;

/** Four files of two sections each: a manifest of 8, so a reap of 2 is allowed and 3 refused. */
beforeEach(async () => {
  t ??= await createTestDb();
  ws = await makeWorkspace(t, `reap-${++n}`);
  root = await makeTree({ 'docs/a.md': doc('a'), 'docs/b.md': doc('b'), 'docs/c.md': doc('c'), 'docs/d.md': doc('d') });
  roots.push(root);
  expect((await ingestTree(t, ws, root)).created).toBe(8);
});
afterAll(async () => {
  await t.drop();
  await Promise.all(roots.map(removeTree));
});

const oneSection = (name: string) => `# ${name}\n\n## One\n\n${prose(`${name} one`)}`;
const manifestKeys = async () => [...(await manifestRecords(t, ws)).keys()].sort();
const liveSections = async () =>
  (
    await t.sql<
      { n: number }[]
    >`select count(*)::int as n from doco.nodes where workspace_id = ${ws.id} and node_type = 'reference' and lifecycle = 'active'`
  )[0]!.n;

describe('the reap', () => {
  it('reports nothing_to_reap when every key was seen', async () => {
    expect((await ingestTree(t, ws, root)).reap).toEqual({ outcome: 'nothing_to_reap', reason: null, count: 0 });
  });

  it('retires the record of a deleted heading, keeps its history readable and drops its manifest row', async () => {
    const id = (await manifestRecords(t, ws)).get('docs/a.md#two')!.node_id;
    await writeTree(root, { 'docs/a.md': oneSection('a') });
    expect((await ingestTree(t, ws, root)).reap).toEqual({ outcome: 'reaped', reason: null, count: 1 });
    expect((await nodeById(t, id))!.lifecycle).toBe('retired');
    const versions = await t.sql`select version, lifecycle::text, prose from doco.node_versions where node_id = ${id} order by version`;
    expect(versions).toEqual([
      { version: 1, lifecycle: 'active', prose: prose('a two') },
      { version: 2, lifecycle: 'retired', prose: prose('a two') },
    ]);
    expect(await manifestKeys()).not.toContain('docs/a.md#two');
    expect(await liveSections()).toBe(7);
  });

  it('retracts a section trimmed below the floor instead of keeping its longer text (the trap docs/ingest.md names)', async () => {
    const id = (await manifestRecords(t, ws)).get('docs/b.md#two')!.node_id;
    await writeTree(root, { 'docs/b.md': doc('b', prose('b one'), 'A stub now.') });
    const report = await ingestTree(t, ws, root);
    expect(report).toMatchObject({ updated: 0, reap: { outcome: 'reaped', count: 1 } });
    expect(await nodeById(t, id)).toMatchObject({ lifecycle: 'retired', prose: prose('b two') });
    expect(await manifestKeys()).not.toContain('docs/b.md#two');
  });

  it('retracts every section of a deleted file', async () => {
    await rm(path.join(root, 'docs/d.md'));
    expect((await ingestTree(t, ws, root)).reap).toEqual({ outcome: 'reaped', reason: null, count: 2 });
    expect((await manifestKeys()).filter((k) => k.startsWith('docs/d.md'))).toEqual([]);
  });
});

describe('guard 1: a run forced to named files', () => {
  it('reaps only within the files it was told to read', async () => {
    await writeTree(root, { 'docs/a.md': oneSection('a'), 'docs/b.md': oneSection('b') });
    const report = await ingestTree(t, ws, root, { only: ['docs/a.md'] });
    expect(report.reap).toEqual({ outcome: 'reaped', reason: null, count: 1 });
    const keys = await manifestKeys();
    expect(keys).not.toContain('docs/a.md#two');
    expect(keys).toContain('docs/b.md#two');
  });

  it('never reaps the files it did not read, however many sections they lost', async () => {
    await rm(path.join(root, 'docs/c.md'));
    await rm(path.join(root, 'docs/d.md'));
    const report = await ingestTree(t, ws, root, { only: ['docs/a.md'] });
    expect(report.reap).toEqual({ outcome: 'nothing_to_reap', reason: null, count: 0 });
    expect(await manifestKeys()).toHaveLength(8);
  });
});

describe('guard 2: a file that could not be read', () => {
  it('keeps all the sections of a file whose read failed, reports it, and still reaps elsewhere', async () => {
    await writeTree(root, { 'docs/a.md': oneSection('a'), 'docs/b.md': oneSection('b') });
    const read = async (rel: string) => {
      if (rel === 'docs/b.md') throw new Error('EIO: i/o error, read');
      return readFile(path.join(root, rel), 'utf8');
    };
    const report = await ingestTree(t, ws, root, { read });
    expect(report.unreadable).toEqual(['docs/b.md']);
    expect(report.reap).toEqual({ outcome: 'reaped', reason: null, count: 1 });
    const keys = await manifestKeys();
    expect(keys).toContain('docs/b.md#two');
    expect(keys).not.toContain('docs/a.md#two');
    const [run] = await t.sql`select unreadable from doco.doc_ingest_runs where id = ${report.run_id}`;
    expect(run!.unreadable).toEqual(['docs/b.md']);
  });

  it('keeps every section of a file whose read failed, even when the other files lost theirs', async () => {
    await writeTree(root, { 'docs/a.md': oneSection('a') });
    const read = async (rel: string) => {
      if (rel === 'docs/c.md') throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      return readFile(path.join(root, rel), 'utf8');
    };
    const report = await ingestTree(t, ws, root, { only: ['docs/a.md', 'docs/c.md'], read });
    expect(report.unreadable).toEqual(['docs/c.md']);
    expect(report.reap).toEqual({ outcome: 'reaped', reason: null, count: 1 });
    expect((await manifestKeys()).filter((k) => k.startsWith('docs/c.md'))).toEqual(['docs/c.md#one', 'docs/c.md#two']);
  });
});

describe('retracting a deleted file by name', () => {
  it('takes a named file that no longer exists as gone, and reaps its sections within that file', async () => {
    await rm(path.join(root, 'docs/a.md'));
    const report = await ingestTree(t, ws, root, { only: ['docs/a.md'] });
    expect(report.unreadable).toEqual([]);
    expect(report.reap).toEqual({ outcome: 'reaped', reason: null, count: 2 });
    expect((await manifestKeys()).filter((k) => k.startsWith('docs/a.md'))).toEqual([]);
  });
});

describe('guard 3: the refusals', () => {
  it('reaps exactly a quarter of the manifest', async () => {
    await writeTree(root, { 'docs/a.md': oneSection('a'), 'docs/b.md': oneSection('b') });
    expect((await ingestTree(t, ws, root)).reap).toEqual({ outcome: 'reaped', reason: null, count: 2 });
  });

  it('refuses a reap of more than a quarter of the manifest: nothing retired, the reason reported, logged and kept in the runs table', async () => {
    await writeTree(root, { 'docs/a.md': oneSection('a'), 'docs/b.md': oneSection('b'), 'docs/c.md': oneSection('c') });
    const warnings: string[] = [];
    const report = await ingestTree(t, ws, root, { log: { warn: (m) => warnings.push(m) } });
    expect(report.reap.outcome).toBe('refused');
    expect(report.reap.count).toBe(0);
    expect(report.reap.reason).toMatch(/^3 of 8 sections would be reaped, more than a quarter/);
    expect(await manifestKeys()).toHaveLength(8);
    expect(await liveSections()).toBe(8);
    expect(warnings).toEqual([expect.stringContaining(`reap refused: ${report.reap.reason}`)]);
    const [run] = await t.sql`select reap_outcome, reap_reason, reap_count from doco.doc_ingest_runs where id = ${report.run_id}`;
    expect(run).toEqual({ reap_outcome: 'refused', reap_reason: report.reap.reason, reap_count: 0 });
  });

  it('refuses any reap on an empty document list (an emptied docs/)', async () => {
    await rm(path.join(root, 'docs'), { recursive: true });
    const report = await ingestTree(t, ws, root);
    expect(report.reap.outcome).toBe('refused');
    expect(report.reap.reason).toMatch(/no documents/);
    expect(await manifestKeys()).toHaveLength(8);
    expect(await liveSections()).toBe(8);
  });

  it("still writes the run's creates and updates when the reap is refused", async () => {
    await writeTree(root, {
      'docs/a.md': `# a\n\n## Three\n\n${prose('a three')}`,
      'docs/b.md': oneSection('b'),
      'docs/c.md': doc('c', prose('c one', 6)),
    });
    const report = await ingestTree(t, ws, root);
    expect(report).toMatchObject({ created: 1, updated: 1, reap: { outcome: 'refused' } });
    expect((await manifestRecords(t, ws)).get('docs/a.md#three')!.lifecycle).toBe('active');
  });
});
