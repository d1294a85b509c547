// The Markdown line lexer: CommonMark's fence rules (characters, lengths, indent, info strings,
// unclosed fences), headings inside and outside fences, front matter, empty input and CR/CRLF.
import { describe, expect, it } from 'vitest';
import { isCode, lexMarkdownLines, type LineKind } from '../../src/text/markdown-lines.js';

const kindsOf = (...lines: string[]) => lexMarkdownLines(lines.join('\n')).kinds;
const headingsOf = (...lines: string[]) => lexMarkdownLines(lines.join('\n')).headings.map((h) => [h.line, h.level, h.text]);

describe('fences', () => {
  it('opens on ``` or ~~~ and closes on the same run', () => {
    expect(kindsOf('a', '```sh', '## x', '```', 'b')).toEqual(['text', 'fence-open', 'code', 'fence-close', 'text']);
    expect(kindsOf('~~~', 'x', '~~~')).toEqual(['fence-open', 'code', 'fence-close']);
  });

  it('needs three or more characters', () => {
    expect(kindsOf('``', '~~', 'x')).toEqual(['text', 'text', 'text']);
  });

  it('keeps a ```` fence open through a ``` inside it, and closes it with a run at least as long', () => {
    expect(kindsOf('````md', '```js', 'x', '```', '````')).toEqual(['fence-open', 'code', 'code', 'code', 'fence-close']);
    expect(kindsOf('````', 'x', '``````')).toEqual(['fence-open', 'code', 'fence-close']);
  });

  it('keeps a ``` fence open through a ~~~, and a ~~~ fence through a ```', () => {
    expect(kindsOf('```', '~~~', '## x', '~~~', '```')).toEqual(['fence-open', 'code', 'code', 'code', 'fence-close']);
    expect(kindsOf('~~~', '```', '## x', '```', '~~~')).toEqual(['fence-open', 'code', 'code', 'code', 'fence-close']);
  });

  it('does not close on a run followed by text, but does on one followed by spaces or tabs', () => {
    expect(kindsOf('```', '```js', '``` not yet', '``` \t')).toEqual(['fence-open', 'code', 'code', 'fence-close']);
  });

  it('runs an unclosed fence to the end of the text, and says what closes it', () => {
    const lexed = lexMarkdownLines('intro\n~~~~json\n{}\n```\n## not a heading');
    expect(lexed.kinds).toEqual(['text', 'fence-open', 'code', 'code', 'code']);
    expect(lexed.headings).toEqual([]);
    expect(lexed.unclosedFence).toBe('~~~~');
    expect(lexMarkdownLines('```\nx\n```').unclosedFence).toBeUndefined();
  });

  it('takes up to three spaces of indent for an opener or a closer, not four', () => {
    expect(kindsOf('   ```', 'x', '   ```')).toEqual(['fence-open', 'code', 'fence-close']);
    expect(kindsOf('    ```', '## y')).toEqual(['text', 'heading']);
    expect(kindsOf('```', '    ```', 'x')).toEqual(['fence-open', 'code', 'code']);
    expect(kindsOf('\t```', 'x')).toEqual(['text', 'text']);
  });

  it('does not open a backtick fence whose info string holds a backtick; a tilde fence may', () => {
    expect(kindsOf('```a` b', '## y')).toEqual(['text', 'heading']);
    expect(kindsOf('~~~ a`b', '## y', '~~~')).toEqual(['fence-open', 'code', 'fence-close']);
  });

  it('counts fences and their contents as code', () => {
    const code: LineKind[] = ['fence-open', 'code', 'fence-close'];
    const prose: LineKind[] = ['text', 'heading', 'front-matter'];
    expect(code.every(isCode)).toBe(true);
    expect(prose.some(isCode)).toBe(false);
  });
});

describe('headings', () => {
  it('reads ATX headings outside fences: level, text, closing #s dropped', () => {
    expect(
      headingsOf('# Title', 'text', '## Setup ##', '```', '## not one', '```', '###   Spaced\t', '   #### Deep', '###### Six'),
    ).toEqual([
      [0, 1, 'Title'],
      [2, 2, 'Setup'],
      [6, 3, 'Spaced'],
      [7, 4, 'Deep'],
      [8, 6, 'Six'],
    ]);
  });

  it('keeps #s that do not close (no space before them), and reads no heading without text', () => {
    expect(headingsOf('## C#', '## a ## b', '## ##')).toEqual([
      [0, 2, 'C#'],
      [1, 2, 'a ## b'],
      [2, 2, '##'],
    ]);
    expect(kindsOf('##', '## ', '#hashtag', '####### seven', '    ## indented')).toEqual(['text', 'text', 'text', 'text', 'text']);
  });
});

describe('front matter', () => {
  const doc = ['---', 'title: Guide', '# a YAML comment', '```', '---', '## Setup', '```'];

  it('is lexed like any text unless asked for', () => {
    expect(lexMarkdownLines(doc.join('\n')).kinds).toEqual(['text', 'text', 'heading', 'fence-open', 'code', 'code', 'fence-close']);
  });

  it('asked for, is the leading --- … --- block, and fences start after it', () => {
    const lexed = lexMarkdownLines(doc.join('\n'), { frontMatter: true });
    expect(lexed.kinds).toEqual(['front-matter', 'front-matter', 'front-matter', 'front-matter', 'front-matter', 'heading', 'fence-open']);
    expect(lexed.headings.map((h) => h.text)).toEqual(['Setup']);
    expect(lexed.unclosedFence).toBe('```');
  });

  it('is none when the block never closes or does not lead', () => {
    expect(lexMarkdownLines('---\ntitle: x\n## A', { frontMatter: true }).kinds).toEqual(['text', 'text', 'heading']);
    expect(lexMarkdownLines('\n---\nx\n---', { frontMatter: true }).kinds).not.toContain('front-matter');
  });
});

describe('input', () => {
  it('lexes empty text as one empty line', () => {
    expect(lexMarkdownLines('')).toEqual({ lines: [''], kinds: ['text'], headings: [], unclosedFence: undefined });
  });

  it('cuts lines at \\r\\n and \\r as at \\n', () => {
    const lf = lexMarkdownLines('# T\n```\n## x\n```\n## Y\n');
    expect(lexMarkdownLines('# T\r\n```\r\n## x\r\n```\r\n## Y\r\n')).toEqual(lf);
    expect(lexMarkdownLines('# T\r```\r## x\r```\r## Y\r')).toEqual(lf);
  });
});
