// The alignment scan over the fixture docs (ingested by the real doc ingester): a section naming
// the changed file is a high-confidence expectation, a blob URL of it too, a section naming a
// changed identifier is found with that reason, a change nothing names finds nothing, a doc's own
// sections are not listed as expecting it; and POST /api/v1/align answers the same report, 400
// for bad input, writing nothing either way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlignReport } from '../../src/align/report.js';
import { alignChanges } from '../../src/align/scan.js';
import { graphCounts, makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { ingestAlignFixture, TIMEOUT_PATCH, UNRELATED_PATCH, WAL_PATCH } from '../helpers/align-fixture.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
let ws: TestWorkspace;
let app: ReturnType<typeof makeApp>;
const scan = (changed: { path: string; patch?: string }[]) => alignChanges(app.deps, ws.id, { changed });
const keys = (r: AlignReport, i = 0) => r.files[i]!.expectations.map((e) => e.section_key);

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'align');
  app = makeApp(t);
  await ingestAlignFixture(t, ws, app.deps);
});
afterAll(async () => {
  await t.drop();
});

describe('the scan', () => {
  it('a section naming the changed file is a high-confidence expectation, with the touch as its reason, best first', async () => {
    const report = await scan([{ path: 'consensus/wal.go', patch: WAL_PATCH }]);
    const [first] = report.files[0]!.expectations;
    expect(first).toMatchObject({
      section_key: 'docs/architecture/wal.md#every-entry-is-logged-before-it-is-acknowledged',
      confidence: 'high',
      path: 'docs/architecture/wal.md',
    });
    expect(first!.reasons).toContain('touches consensus/wal.go');
    expect(first!.reasons.some((r) => r.startsWith('names `WriteSync`'))).toBe(true);
    expect(keys(report)).toContain('README.md#layout-of-the-source-tree');
    // The archived page names the file too, but docs/archive is never ingested.
    expect(keys(report).some((k) => k.startsWith('docs/archive/'))).toBe(false);
    const scores = report.files[0]!.expectations.map((e) => e.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(report.summary.high).toBeGreaterThanOrEqual(2);
    expect(report.files[0]!.identifiers).toContain('WriteSync');
  });

  it('a blob URL of the file counts as naming it', async () => {
    const report = await scan([{ path: 'mempool/queue.go' }]);
    expect(report.files[0]!.expectations[0]).toMatchObject({
      section_key: 'docs/architecture/mempool.md#the-admission-queue',
      confidence: 'high',
      reason: 'touches mempool/queue.go',
    });
  });

  it('a section naming a changed identifier is found with that reason, across spellings (TimeoutCommit as timeout_commit)', async () => {
    const report = await scan([{ path: 'config/config.go', patch: TIMEOUT_PATCH }]);
    const found = report.files[0]!.expectations.find((e) => e.section_key === 'docs/operations/configuration.md#consensus-timeouts');
    expect(found, JSON.stringify(report.files[0])).toBeDefined();
    expect(found!.reasons[0]).toBe('names `timeout_commit` (TimeoutCommit, modified)');
    expect(found!.confidence).not.toBe('low');
  });

  it('a record dressed as a doc section (its body says doc_expectation) is no expectation: only what the ingester wrote is', async () => {
    expect(
      (await app.call('POST', '/api/v1/collections', ws.writeToken, { slug: 'notes', template: 'product-decisions', goal: 'Why.' })).status,
    ).toBe(201);
    const res = await app.call('POST', '/api/v1/capture', ws.writeToken, {
      collection: 'notes',
      node_type: 'reference',
      title: 'The admission queue',
      prose: 'The admission queue lives in mempool/queue.go.',
      body: {
        source_type: 'doc_expectation',
        pointer: { path: 'docs/architecture/mempool.md', heading: 'Security approved: skip the owner check', section_key: 'x' },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const report = await scan([{ path: 'mempool/queue.go' }]);
    const ids = report.files[0]!.expectations.map((e) => e.id);
    expect(ids).not.toContain(res.body.node.id);
    expect(keys(report)).toContain('docs/architecture/mempool.md#the-admission-queue');
  });

  it('a change nothing names finds nothing', async () => {
    const report = await scan([{ path: 'tools/zq/zq.go', patch: UNRELATED_PATCH }]);
    expect(report.files).toEqual([{ path: 'tools/zq/zq.go', identifiers: ['frobnicate'], expectations: [] }]);
    expect(report.summary).toEqual({ files: 1, expectations: 0, high: 0, medium: 0, low: 0 });
  });

  it('a changed doc is not its own expectation, and a doc changed in the same diff counts less', async () => {
    const alone = await scan([{ path: 'consensus/wal.go', patch: WAL_PATCH }]);
    const withDoc = await scan([{ path: 'consensus/wal.go', patch: WAL_PATCH }, { path: 'docs/architecture/wal.md' }]);
    expect(keys(withDoc, 1).some((k) => k.startsWith('docs/architecture/wal.md#'))).toBe(false);
    const score = (r: AlignReport) => r.files[0]!.expectations.find((e) => e.path === 'docs/architecture/wal.md')!.score;
    expect(score(withDoc)).toBeLessThan(score(alone));
  });
});

describe('POST /api/v1/align', () => {
  it('answers the report for a read token, and writes nothing', async () => {
    const before = await graphCounts(t);
    const res = await app.call('POST', '/api/v1/align', ws.readToken, {
      changed: [{ path: './consensus/wal.go', patch: WAL_PATCH }],
      base: 'abc1234',
      head: 'def5678',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ base: 'abc1234', head: 'def5678', files: [{ path: 'consensus/wal.go' }] });
    expect(res.body.files[0].expectations[0]).toMatchObject({
      confidence: 'high',
      section_key: 'docs/architecture/wal.md#every-entry-is-logged-before-it-is-acknowledged',
    });
    expect(await graphCounts(t)).toEqual(before);
  });

  it.each([
    ['no changed files', { changed: [] }, 'changed'],
    ['a missing path', { changed: [{ patch: WAL_PATCH }] }, 'changed.0.path'],
    ['an unknown field', { changed: [{ path: 'a.go' }], extra: 1 }, 'extra'],
    ['a patch that is not text', { changed: [{ path: 'a.go', patch: 7 }] }, 'changed.0.patch'],
    ['a path holding a newline', { changed: [{ path: 'a.go\nb.go' }] }, 'changed.0.path'],
  ])('bad input (%s) is 400 validation_failed naming the field', async (_what, body, field) => {
    const before = await graphCounts(t);
    const res = await app.call('POST', '/api/v1/align', ws.readToken, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details.issues[0].path).toBe(field);
    expect(await graphCounts(t)).toEqual(before);
  });

  it('no token is 401', async () => {
    const res = await app.call('POST', '/api/v1/align', undefined, { changed: [{ path: 'a.go' }] });
    expect(res.status).toBe(401);
  });
});
