// Images in an item's text are sent as their alt text (src/text/readable/image-links.ts): the agent cannot
// see the picture, and its address is noise; kept inside fenced code, where such markup is code.
import { describe, expect, it } from 'vitest';
import { imagesAsAltText } from '../../../src/text/readable/image-links.js';

describe('imagesAsAltText', () => {
  it('sends a Markdown image, a linked badge and an HTML image as their alt text', () => {
    const text = [
      'The querier reads the bucket index:',
      '',
      '![Querier - Bucket index](/images/blocks-storage/bucket-index-querier-workflow.png)',
      '',
      '[![CI](https://github.com/example/cortex/workflows/ci/badge.svg)](https://github.com/example/cortex/actions) builds it.',
      '<p align="center"><img src="images/logo.png" alt="Cortex Logo"></p>',
      "<img src='../images/architecture.png' ALT='Cortex\n Architecture' />",
    ].join('\n');
    expect(imagesAsAltText(text)).toBe(
      [
        'The querier reads the bucket index:',
        '',
        '[image: Querier - Bucket index]',
        '',
        '[image: CI] builds it.',
        '<p align="center">[image: Cortex Logo]</p>',
        "<img src='../images/architecture.png' ALT='Cortex",
        " Architecture' />",
      ].join('\n'),
    );
  });

  it('leaves out an image with no alt text, and keeps a plain link and its address', () => {
    expect(
      imagesAsAltText(
        'Badges: ![](https://example.com/b.svg) <img src="https://example.com/badge"> and [the docs](https://example.com/docs).',
      ),
    ).toBe('Badges:   and [the docs](https://example.com/docs).');
  });

  it('keeps images inside fenced code, and text with none as it is', () => {
    const text = 'Write it so:\n\n```md\n![Architecture](./arch.png)\n```\n\n![Architecture](./arch.png)';
    expect(imagesAsAltText(text)).toBe('Write it so:\n\n```md\n![Architecture](./arch.png)\n```\n\n[image: Architecture]');
    const plain = 'No pictures here: [a link](https://example.com) and `code`.';
    expect(imagesAsAltText(plain)).toBe(plain);
  });

  it('reads hostile markup in linear time', () => {
    expect(imagesAsAltText(`![${'a'.repeat(200_000)}`).length).toBe(200_002);
    expect(imagesAsAltText('[![x]('.repeat(50_000)).length).toBe(300_000);
    expect(imagesAsAltText(`<img ${'a'.repeat(200_000)}`).length).toBe(200_005);
  });
});
