// The eval's Markdown loader follows the doc ingester's section rules (docs/ingest.md): split on ## and
// ###, "(intro)" before the first, 2,400-character truncation, the 200-character floor, the
// section_key slug, shape by path, and the walk's skips. No database.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listDocFiles, readCorpus, sectionRecord, slug, splitMarkdown } from '../../src/ingest/docs/sections.js';

const para = (word: string, n: number) => Array.from({ length: n }, () => word).join(' ');
const long = para('ledger', 40); // 279 characters: over the floor

describe('slug', () => {
  it('lowercases, turns runs of non-alphanumerics into one hyphen and trims them', () => {
    expect(slug('  The Execution Walk!  ')).toBe('the-execution-walk');
    expect(slug('ADR 0003: Invoice numbers — gapless?')).toBe('adr-0003-invoice-numbers-gapless');
    expect(slug('1.3.5 PrepareProposal and ProcessProposal')).toBe('1-3-5-prepareproposal-and-processproposal');
  });
  it('trims, then cuts at 60 characters', () => {
    const s = slug(`-- ${'word '.repeat(30)}`);
    expect(s).toHaveLength(60);
    expect(s.startsWith('word-word')).toBe(true);
  });
});

describe('splitMarkdown', () => {
  it('reads a title line of 200,000 spaces in one pass (a lazy title pattern backtracked over each)', () => {
    const intro = `# Refunds${' '.repeat(200_000)}x\n\n## Partial refunds\n\n${'Partial refunds go back to the card that paid. '.repeat(12)}`;
    const { sections } = splitMarkdown('docs/refunds.md', intro);
    expect(sections.map((s) => s.heading)).toEqual(['Partial refunds']);
  });
  it('splits on ## and ###, keeps # and #### in the body, and names the text before the first heading (intro)', () => {
    const text = `# Title\n\n${long}\n\n## First\n\n${long}\n\n#### Detail\n\n${long}\n\n### Second part\n\n${long}\n`;
    const { sections } = splitMarkdown('docs/guide.md', text);
    expect(sections.map((s) => s.section_key)).toEqual(['docs/guide.md#intro', 'docs/guide.md#first', 'docs/guide.md#second-part']);
    expect(sections[0]!.heading).toBe('(intro)');
    expect(sections[0]!.body.startsWith('# Title')).toBe(true);
    expect(sections[1]!.body).toContain('#### Detail');
    expect(sections[1]!.body.startsWith(long)).toBe(true);
  });

  it('never emits a section whose body is under 200 characters, and counts it', () => {
    const text = `## Short\n\n${'x'.repeat(199)}\n\n## Just enough\n\n${'y'.repeat(200)}\n`;
    const report = splitMarkdown('docs/a.md', text);
    expect(report.sections.map((s) => s.heading)).toEqual(['Just enough']);
    expect(report.belowFloor).toBe(1);
  });

  it('does not count a missing intro as a section under the floor', () => {
    expect(splitMarkdown('docs/a.md', `## Only\n\n${long}`).belowFloor).toBe(0);
    expect(splitMarkdown('docs/a.md', `short intro\n\n## Only\n\n${long}`).belowFloor).toBe(1);
  });

  it('truncates bodies to 2,400 characters', () => {
    const report = splitMarkdown('docs/a.md', `## Long\n\n${'z'.repeat(3000)}`);
    expect(report.sections[0]!.body).toHaveLength(2400);
    expect(report.truncated).toBe(1);
  });

  it('ignores headings inside fenced code blocks', () => {
    const text = `## Setup\n\n${long}\n\n\`\`\`sh\n## not a heading\nmake dev\n\`\`\`\n\n~~~\n### nor this\n~~~\n`;
    const { sections } = splitMarkdown('docs/a.md', text);
    expect(sections).toHaveLength(1);
    expect(sections[0]!.body).toContain('## not a heading');
  });

  it('leaves a leading front-matter block out of the intro, and out of the floor it is measured against', () => {
    const front = '---\ntitle: "Binary index-header"\nlinkTitle: "Index header"\nweight: 5\nslug: binary-index-header\n---\n';
    const { sections } = splitMarkdown('docs/blocks/index-header.md', `${front}\n${long}\n\n## Format\n\n${long}`);
    expect(sections.map((s) => s.heading)).toEqual(['(intro)', 'Format']);
    expect(sections[0]!.body).toBe(long);
    // With the metadata it would pass the floor; without it, 120 characters of text do not.
    const short = splitMarkdown('docs/a.md', `${front}${'w'.repeat(120)}\n\n## Only\n\n${long}`);
    expect(short.sections.map((s) => s.heading)).toEqual(['Only']);
    expect(short.belowFloor).toBe(1);
    // Only a block that opens the file and closes is front matter: a later --- is a rule in the text.
    const ruled = splitMarkdown('docs/a.md', `${long}\n\n---\ntitle: not metadata\n---\n`);
    expect(ruled.sections[0]!.body).toContain('title: not metadata');
    expect(splitMarkdown('docs/a.md', `---\ntitle: never closed\n\n${long}`).sections[0]!.body).toContain('title: never closed');
  });

  it("keeps the document's title from its # heading or path, not from its front matter", () => {
    const front = '---\ntitle: "From front matter"\n---\n\n';
    expect(splitMarkdown('docs/guide.md', `${front}${long}`).sections[0]!.docTitle).toBe('docs/guide.md');
    expect(splitMarkdown('docs/guide.md', `${front}# From the heading\n\n${long}`).sections[0]!.docTitle).toBe('From the heading');
  });

  it('gives sections under docs/architecture/ the architecturePrinciple shape, others docSection', () => {
    expect(splitMarkdown('docs/architecture/money.md', `## Rounding\n\n${long}`).sections[0]!.shape).toBe('architecturePrinciple');
    expect(splitMarkdown('docs/runbooks/money.md', `## Rounding\n\n${long}`).sections[0]!.shape).toBe('docSection');
    expect(splitMarkdown('README.md', `## Rounding\n\n${long}`).sections[0]!.shape).toBe('docSection');
  });
});

describe('sectionRecord', () => {
  it("is a reference titled by the document's title and its heading (the title alone for the intro), with the doc pointer and heading path", () => {
    const [intro, named] = splitMarkdown('docs/architecture/money.md', `# Money\n\n${long}\n\n## Rounding rules\n\n${long}`).sections;
    expect(sectionRecord(intro!).title).toBe('Money');
    expect(sectionRecord(named!)).toEqual({
      node_type: 'reference',
      title: 'Money — Rounding rules',
      prose: long,
      body: {
        shape: 'architecturePrinciple',
        source_kind: 'doc',
        source_type: 'doc_expectation',
        pointer: {
          path: 'docs/architecture/money.md',
          heading: 'Rounding rules',
          section_key: 'docs/architecture/money.md#rounding-rules',
        },
        heading_path: ['Money'],
      },
    });
  });

  it('falls back to the path for a document without a # title, and puts a ### under its ## in the heading path', () => {
    const [, sub] = splitMarkdown('docs/money.md', `## Rounding\n\n${long}\n\n### Half even\n\n${long}`).sections;
    expect(sectionRecord(sub!).title).toBe('docs/money.md — Half even');
    expect(sectionRecord(sub!).body.heading_path).toEqual(['docs/money.md', 'Rounding']);
    expect(sectionRecord(sub!, 'docs_pack').body.source_kind).toBe('docs_pack');
  });

  it('keeps a heading, a title and the heading path to 300 characters each, however long the Markdown wrote them', () => {
    const huge = 'Refunds '.repeat(60_000).trim();
    const [, sub] = splitMarkdown(
      'docs/money.md',
      `# ${huge}

${long}

## ${huge}

${long}

### ${huge}

${long}`,
    ).sections.slice(1);
    const record = sectionRecord(sub!);
    expect(record.title.length).toBe(300);
    expect(record.body.pointer.heading.length).toBe(300);
    expect(record.body.heading_path.map((h) => h.length)).toEqual([300, 300]);
    expect(JSON.stringify(record.body).length).toBeLessThan(2_000);
  });
});

describe('the walk', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'doco-eval-walk-'));
    const files: Record<string, string> = {
      'README.md': `## Layout\n\n${long}`,
      'CLAUDE.md': `## Rules\n\n${long}`,
      'notes.md': `## Not watched\n\n${long}`,
      'docs/a.md': `## A\n\n${long}\n\n## A\n\n${para('second', 40)}`,
      'docs/sub/b.md': `## B\n\n${long}`,
      'docs/sub/b.txt': `## Not markdown\n\n${long}`,
      'docs/archive/old.md': `## Old\n\n${long}`,
      'docs/.drafts/c.md': `## Draft\n\n${long}`,
      'docs/node_modules/x/readme.md': `## Dep\n\n${long}`,
      'repos/api/README.md': `## Api\n\n${long}`,
      'repos/api/docs/deep.md': `## Deep\n\n${long}`,
    };
    for (const [rel, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
      await writeFile(path.join(root, rel), text);
    }
  });
  afterAll(async () => rm(root, { recursive: true, force: true }));

  it('reads the root CLAUDE.md and README.md, repos/*/README.md and docs/**/*.md, skipping archive, dotted entries and node_modules', async () => {
    expect(await listDocFiles(root)).toEqual(['CLAUDE.md', 'README.md', 'repos/api/README.md', 'docs/a.md', 'docs/sub/b.md']);
  });

  it('keeps both sections of a repeated heading, the later one keyed -2, and reports the repeat', async () => {
    const corpus = await readCorpus(root);
    expect(corpus.duplicateKeys).toEqual(['docs/a.md#a']);
    const a = corpus.sections.filter((s) => s.path === 'docs/a.md');
    expect(a.map((s) => s.section_key)).toEqual(['docs/a.md#a', 'docs/a.md#a-2']);
    expect(a[0]!.body.startsWith('ledger')).toBe(true);
    expect(a[1]!.body.startsWith('second')).toBe(true);
  });
});
