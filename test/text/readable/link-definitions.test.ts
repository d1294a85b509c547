// Link reference definitions are left out of an item's text (src/text/readable/link-definitions.ts):
// where a link's target is written, not text; kept inside fenced code, where such a line is code.
import { describe, expect, it } from 'vitest';
import { withoutLinkDefinitions } from '../../../src/text/readable/link-definitions.js';

describe('withoutLinkDefinitions', () => {
  it('leaves out the definitions at the end of a section, titles and all', () => {
    const text = [
      'The chain starts from the [init-chain response][init] ([ADR 74][adr-74]).',
      '',
      '[init]: https://github.com/example/chain/blob/main/abci/types.go#L1616',
      '  [adr-74]: <https://github.com/example/chain/pull/7503> "ADR 74"',
      "[spec]: https://example.com/spec 'The spec'",
      '[notes]: ./notes.md (Notes)',
    ].join('\n');
    expect(withoutLinkDefinitions(text)).toBe('The chain starts from the [init-chain response][init] ([ADR 74][adr-74]).');
  });

  it('keeps such a line inside fenced code, and prose that only looks like one', () => {
    const text =
      'Write it so:\n\n```md\n[abci]: https://example.com/abci\n```\n\n[abci]: https://example.com/abci\nA note: [x]: is not at a line start.';
    expect(withoutLinkDefinitions(text)).toBe(
      'Write it so:\n\n```md\n[abci]: https://example.com/abci\n```\n\nA note: [x]: is not at a line start.',
    );
    expect(withoutLinkDefinitions('Four spaces make code:\n\n    [a]: https://example.com')).toBe(
      'Four spaces make code:\n\n    [a]: https://example.com',
    );
  });

  it('gives an empty text for a section of definitions alone, and reads a hostile line in linear time', () => {
    expect(withoutLinkDefinitions('[a]: https://a.example\n[b]: https://b.example\n')).toBe('');
    expect(withoutLinkDefinitions(`[${'a'.repeat(300_000)}]:`)).toBe(`[${'a'.repeat(300_000)}]:`);
    expect(withoutLinkDefinitions('[a]: '.repeat(100_000)).length).toBeLessThan(500_000);
  });
});
