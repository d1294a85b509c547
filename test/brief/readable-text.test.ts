// A record's text as an agent reads it (src/brief/readable-text.ts), remembered by the key that
// names the text; and the lines naming an anchor, for a record whose readable text is empty.
import { describe, expect, it } from 'vitest';
import { namingLines, readableText } from '../../src/brief/readable-text.js';

describe('readableText', () => {
  it('leaves out comments and definitions, keeps alt text, and answers a key as it first did', () => {
    const prose = '<!-- generated -->\nSee the [spec][s]. ![Flow](/flow.png)\n\n[s]: https://example.com/spec';
    expect(readableText(prose)).toBe('See the [spec][s]. [image: Flow]');
    expect(readableText(prose, 'rec_a@1:80@1')).toBe('See the [spec][s]. [image: Flow]');
    expect(readableText(prose, 'rec_a@1:80@1')).toBe('See the [spec][s]. [image: Flow]');
    const plain = 'Nothing to leave out here.';
    expect(readableText(plain, 'rec_b@1:26@1')).toBe(plain);
    expect(readableText(plain, 'rec_b@1:26@1')).toBe(plain);
  });
});

describe('namingLines', () => {
  it('keeps the lines naming the anchor, and nothing without one', () => {
    const refs = '[a]: https://github.com/o/r/blob/main/types/params.go#L49\n[b]: https://example.com/other';
    expect(namingLines(refs, /types\/params\.go/)).toBe('[a]: https://github.com/o/r/blob/main/types/params.go#L49');
    expect(namingLines(refs, undefined)).toBe('');
    expect(namingLines('  ', /x/)).toBe('');
  });
});
