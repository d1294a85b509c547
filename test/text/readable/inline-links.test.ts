// A link is sent as its text (src/text/readable/inline-links.ts): its address cost an agent tokens and
// said nothing it acts on. Kept as written inside fenced code and code spans, where it is code.
import { describe, expect, it } from 'vitest';
import { linksAsTheirText } from '../../../src/text/readable/inline-links.js';

describe('linksAsTheirText', () => {
  it('shows inline and reference links as their text, whatever their address', () => {
    expect(
      linksAsTheirText(
        'The [IsCaughtUp method](https://github.com/o/r/blob/v1/pool.go#L168) and the [compactor](./compactor.md "Compactor") ' +
          'keep a [max heap](https://en.wikipedia.org/wiki/Heap_(data_structure)); see [the spec](<./a spec.md>).',
      ),
    ).toBe('The IsCaughtUp method and the compactor keep a max heap; see the spec.');
    expect(linksAsTheirText('It ships a [mempool][mempool-link], a [cache][] and [`CheckTx`](https://x.example/t).')).toBe(
      'It ships a mempool, a cache and `CheckTx`.',
    );
    expect(linksAsTheirText('[a [nested] text](mailto:a@example.com)')).toBe('a [nested] text');
  });

  it('leaves code, images and bracketed words alone', () => {
    const code = 'Write `[a](https://x.example)` or:\n\n```md\n[b](https://x.example) [c][d]\n```\n';
    expect(linksAsTheirText(code)).toBe(code);
    expect(linksAsTheirText('``[a][b]`` then [e](https://x.example)')).toBe('``[a][b]`` then e');
    expect(linksAsTheirText('An image ![alt](/a.png), [a] [b], [x]: and f(x) [y] (z)')).toBe(
      'An image ![alt](/a.png), [a] [b], [x]: and f(x) [y] (z)',
    );
    // An unclosed backtick is text: the link after it is still a link.
    expect(linksAsTheirText('a ` b [c](https://x.example)')).toBe('a ` b c');
  });

  // A quadratic read of these (a code-span lookup per link) ran past the test's timeout.
  it('reads hostile text in one pass', () => {
    expect(linksAsTheirText('['.repeat(100_000) + '](http')).toHaveLength(100_006);
    expect(linksAsTheirText('[a]('.repeat(50_000))).toHaveLength(200_000);
    expect(linksAsTheirText('[a](h:' + '('.repeat(50_000))).toHaveLength(50_006);
    expect(linksAsTheirText('[a](https://x) `x` '.repeat(100_000))).toBe('a `x` '.repeat(100_000));
  });
});
