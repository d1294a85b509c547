// The section rules of docs/ingest.md as the ingester applies them to a tree: what is walked (each
// exclusion its own case), the intro, the 2,400-character cut, the 200-character floor, the
// section_key slug, repeated headings, the two shapes and the record each section becomes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { ingestTree, makeTree, manifestRecords, prose, removeTree, type SectionRecordRow } from '../helpers/docs.js';

let t: TestDb;
let ws: TestWorkspace;
let root: string;
let records: Map<string, SectionRecordRow>;
const long = 'x'.repeat(2000);

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'doc-sections');
  root = await makeTree({
    'CLAUDE.md': `# Agents\n\n${prose('agent')}`,
    'README.md': `# Readme\n\n${prose('readme')}`,
    'notes.md': `## Loose notes\n\n${prose('loose')}`,
    'repos/api/CLAUDE.md': `## Api agents\n\n${prose('api agent')}`,
    'repos/api/README.md': `## Api readme\n\n${prose('api readme')}`,
    'repos/api/docs/deep.md': `## Deep\n\n${prose('deep')}`,
    'docs/architecture/money.md': `# Money\n\n${prose('money intro')}\n\n## Rounding: half-even, always!\n\n${prose('rounding')}\n\n### Currencies\n\n${prose('currency')}`,
    'docs/guide.md': `## Long one\n\n${'word '.repeat(600)}\n\n## Short one\n\n${'s'.repeat(199)}\n\n## Repeated\n\n${prose('first')}\n\n## Repeated\n\n${prose('second')}\n\n## ${'Very long heading '.repeat(6)}\n\n${prose('long heading')}`,
    'docs/guide.txt': `## Not markdown\n\n${prose('text')}`,
    'docs/archive/old.md': `## Archived\n\n${prose('archived')}`,
    'docs/sub/archive/kept.md': `## Nested archive\n\n${prose('nested')}`,
    'docs/node_modules/pkg/readme.md': `## Dependency\n\n${prose('dependency')}`,
    'docs/.git/notes.md': `## Git\n\n${prose('git')}`,
    'docs/dist/built.md': `## Built\n\n${prose('built')}`,
    'docs/.drafts/draft.md': `## Draft\n\n${prose('draft')}`,
    'docs/.hidden.md': `## Hidden\n\n${prose('hidden')}`,
  });
  await ingestTree(t, ws, root);
  records = await manifestRecords(t, ws);
});
afterAll(async () => {
  await t.drop();
  await removeTree(root);
});

const pathsIngested = () => new Set([...records.values()].map((r) => (r.body.pointer as { path: string }).path));

describe('the walk', () => {
  it('ingests the root CLAUDE.md and README.md, repos/*/CLAUDE.md and README.md, and docs/**/*.md', () => {
    expect([...pathsIngested()].sort()).toEqual([
      'CLAUDE.md',
      'README.md',
      'docs/architecture/money.md',
      'docs/guide.md',
      'docs/sub/archive/kept.md',
      'repos/api/CLAUDE.md',
      'repos/api/README.md',
    ]);
  });
  it('skips docs/archive/', () => expect(pathsIngested().has('docs/archive/old.md')).toBe(false));
  it('skips node_modules', () => expect(pathsIngested().has('docs/node_modules/pkg/readme.md')).toBe(false));
  it('skips .git', () => expect(pathsIngested().has('docs/.git/notes.md')).toBe(false));
  it('skips dist', () => expect(pathsIngested().has('docs/dist/built.md')).toBe(false));
  it('skips dotted directories and files', () => {
    expect(pathsIngested().has('docs/.drafts/draft.md')).toBe(false);
    expect(pathsIngested().has('docs/.hidden.md')).toBe(false);
  });
  it('reads only .md files', () => expect(pathsIngested().has('docs/guide.txt')).toBe(false));
  it("reads nothing outside the watched set (a root notes.md, a repo's own docs/)", () => {
    expect(pathsIngested().has('notes.md')).toBe(false);
    expect(pathsIngested().has('repos/api/docs/deep.md')).toBe(false);
  });
});

describe('sections', () => {
  it("makes the text before the first ## an (intro) section, titled by the document's # title", () => {
    const intro = records.get('docs/architecture/money.md#intro')!;
    expect(intro.title).toBe('Money');
    expect(intro.prose.startsWith('# Money')).toBe(true);
    expect(intro.body.pointer).toEqual({
      path: 'docs/architecture/money.md',
      heading: '(intro)',
      section_key: 'docs/architecture/money.md#intro',
    });
  });

  it('splits on ## and ###, a ### carrying its ## in the heading path', () => {
    const sub = records.get('docs/architecture/money.md#currencies')!;
    expect(sub.title).toBe('Money — Currencies');
    expect(sub.body.heading_path).toEqual(['Money', 'Rounding: half-even, always!']);
    expect(records.get('docs/architecture/money.md#rounding-half-even-always')!.prose).toBe(prose('rounding'));
  });

  it('truncates a body to 2,400 characters', () => {
    const body = records.get('docs/guide.md#long-one')!.prose;
    expect(body).toHaveLength(2400);
    expect('word '.repeat(600).trim().startsWith(body)).toBe(true);
  });

  it('never emits a section whose body is under 200 characters', () => {
    expect(records.has('docs/guide.md#short-one')).toBe(false);
    expect([...records.values()].some((r) => r.prose === 's'.repeat(199))).toBe(false);
  });

  it('keys a section relpath#slug: lowercase, non-alphanumeric runs to one hyphen, trimmed, 60 characters', () => {
    const slug = 'very-long-heading-'.repeat(4).slice(0, 60);
    expect(slug).toHaveLength(60);
    expect(records.has(`docs/guide.md#${slug}`)).toBe(true);
    expect(records.has('docs/architecture/money.md#rounding-half-even-always')).toBe(true);
  });

  it('keeps both sections of a heading repeated in one file, the later keyed -2', () => {
    expect(records.get('docs/guide.md#repeated')!.prose).toBe(prose('first'));
    expect(records.get('docs/guide.md#repeated-2')!.prose).toBe(prose('second'));
  });

  it('gives sections under docs/architecture/ shape architecturePrinciple and the rest docSection, all doc_expectation', () => {
    expect(records.get('docs/architecture/money.md#currencies')!.body).toMatchObject({
      shape: 'architecturePrinciple',
      source_type: 'doc_expectation',
      source_kind: 'doc',
    });
    expect(records.get('docs/guide.md#repeated')!.body).toMatchObject({
      shape: 'docSection',
      source_type: 'doc_expectation',
      source_kind: 'doc',
    });
    expect(records.get('repos/api/README.md#api-readme')!.body.shape).toBe('docSection');
  });

  it('writes each section as an active reference record in the docs collection, through an ingest changeset', async () => {
    const rows = await t.sql<{ node_type: string; lifecycle: string; collection: string; template: string; source: string }[]>`
      select distinct n.node_type::text, n.lifecycle::text, c.slug as collection, c.template, cs.source::text
        from doco.doc_manifest m join doco.nodes n on n.id = m.node_id join doco.collections c on c.id = n.collection_id
        join doco.changesets cs on cs.id = n.changeset_id
       where m.workspace_id = ${ws.id}`;
    expect(rows).toEqual([
      { node_type: 'reference', lifecycle: 'active', collection: 'docs', template: 'documentation', source: 'ingest' },
    ]);
  });
});
