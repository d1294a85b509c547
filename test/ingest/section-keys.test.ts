// section_keys within one file: a repeated heading keeps both sections (-2, -3…), and keys do
// not move when a neighbour crosses the floor or an intro appears.
import { describe, expect, it } from 'vitest';
import { sectionKeys, splitMarkdown } from '../../src/ingest/docs/sections.js';

const body = 'The ledger keeps every posting balanced, and a posting is never edited once written. '.repeat(3);

describe('sectionKeys', () => {
  it('suffixes the second and third of a repeated heading -2 and -3, in file order', () => {
    expect(sectionKeys('docs/a.md', ['(intro)', 'Setup', 'Setup', 'SETUP!']).keys).toEqual([
      'docs/a.md#intro',
      'docs/a.md#setup',
      'docs/a.md#setup-2',
      'docs/a.md#setup-3',
    ]);
  });

  it('skips a suffix a literal heading already took', () => {
    expect(sectionKeys('docs/a.md', ['Setup 2', 'Setup', 'Setup']).keys).toEqual([
      'docs/a.md#setup-2',
      'docs/a.md#setup',
      'docs/a.md#setup-3',
    ]);
  });

  it('adds the suffix after the 60-character slug', () => {
    const heading = 'word '.repeat(20);
    const [first, second] = sectionKeys('docs/a.md', [heading, heading]).keys;
    expect(first!.split('#')[1]).toHaveLength(60);
    expect(second).toBe(`${first}-2`);
  });

  it('keeps (intro) on #intro, so a "## Intro" heading is keyed intro-2', () => {
    const { sections } = splitMarkdown('docs/a.md', `${body}\n\n## Intro\n\n${body}`);
    expect(sections.map((s) => [s.heading, s.section_key])).toEqual([
      ['(intro)', 'docs/a.md#intro'],
      ['Intro', 'docs/a.md#intro-2'],
    ]);
  });

  it("lets a section under the floor hold its key, so the next one's key does not move when it grows", () => {
    const short = splitMarkdown('docs/a.md', `## Setup\n\nshort\n\n## Setup\n\n${body}`);
    const grown = splitMarkdown('docs/a.md', `## Setup\n\n${body}\n\n## Setup\n\n${body} More.`);
    expect(short.sections.map((s) => s.section_key)).toEqual(['docs/a.md#setup-2']);
    expect(grown.sections.map((s) => s.section_key)).toEqual(['docs/a.md#setup', 'docs/a.md#setup-2']);
    expect(grown.repeated).toEqual(['docs/a.md#setup']);
  });
});
