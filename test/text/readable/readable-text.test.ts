// A record's text as an agent reads it (src/text/readable/readable-text.ts), remembered by the key that
// names the text; and the lines naming an anchor, for a record whose readable text is empty.
import { describe, expect, it } from 'vitest';
import { namingLines, readableText, readableTextNaming } from '../../../src/text/readable/readable-text.js';

describe('readableText', () => {
  it('leaves out comments, definitions and link targets, keeps alt text, and answers a key as it first did', () => {
    const prose = '<!-- generated -->\nSee the [spec][s]. ![Flow](/flow.png)\n\n[s]: https://example.com/spec';
    expect(readableText(prose)).toBe('See the spec. [image: Flow]');
    expect(readableText(prose, 'rec_a@1:80@1')).toBe('See the spec. [image: Flow]');
    expect(readableText(prose, 'rec_a@1:80@1')).toBe('See the spec. [image: Flow]');
    const plain = 'Nothing to leave out here.';
    expect(readableText(plain, 'rec_b@1:26@1')).toBe(plain);
    expect(readableText(plain, 'rec_b@1:26@1')).toBe(plain);
  });
});

describe('readableTextNaming', () => {
  it('keeps the address of the link that alone names the anchor, and only that one', () => {
    const prose =
      'Peers are caught up when [the pool says so](https://github.com/o/r/blob/v1/blocksync/pool.go#L168); see [the spec](https://example.com/spec).';
    expect(readableTextNaming(prose, 'rec_c@1:1@1', /blocksync\/pool\.go/)).toBe(
      'Peers are caught up when [the pool says so](https://github.com/o/r/blob/v1/blocksync/pool.go#L168); see the spec.',
    );
    expect(readableTextNaming(prose, 'rec_c@1:1@1', undefined)).toBe('Peers are caught up when the pool says so; see the spec.');
    // Named in the text itself: no address is needed to show it.
    const named = 'The blocksync/pool.go loop, [described here](https://example.com/pool.go).';
    expect(readableTextNaming(named, 'rec_d@1:1@1', /blocksync\/pool\.go/)).toBe('The blocksync/pool.go loop, described here.');
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
