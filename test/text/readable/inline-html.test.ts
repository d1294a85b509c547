// Inline HTML that Markdown docs write where Markdown has no syntax (src/text/readable/inline-html.ts): a
// line break is a space, a subscript `_h` or `_{h+1}`, a superscript `^2`; kept as written in code.
import { describe, expect, it } from 'vitest';
import { inlineHtmlAsText } from '../../../src/text/readable/inline-html.js';

describe('inlineHtmlAsText', () => {
  it('writes sub- and superscripts as plain-text mathematics does', () => {
    expect(inlineHtmlAsText('Validators in *valset<sub>h+1</sub>* sign; *n<sub>h</sub>* is their count.')).toBe(
      'Validators in *valset_{h+1}* sign; *n_h* is their count.',
    );
    expect(inlineHtmlAsText('A budget of 2<SUP>10</SUP> and 2<sup>n-1</sup> entries.')).toBe('A budget of 2^10 and 2^{n-1} entries.');
  });

  it('reads a break as a space, and as nothing at a line end', () => {
    expect(inlineHtmlAsText('| hash | abc <br>Tendermint Core: 66c |')).toBe('| hash | abc Tendermint Core: 66c |');
    expect(inlineHtmlAsText('Check percentage config<br/>(e.g. 80% token)')).toBe('Check percentage config (e.g. 80% token)');
    expect(inlineHtmlAsText('First line<br />\nSecond line')).toBe('First line\nSecond line');
  });

  it('leaves code, unclosed and unknown markup as written', () => {
    const code = 'Use `a<sub>b</sub>` or:\n\n```html\nx<br>y<sup>2</sup>\n```\n';
    expect(inlineHtmlAsText(code)).toBe(code);
    expect(inlineHtmlAsText('x<sub>never closed and <b>bold</b> <int>')).toBe('x<sub>never closed and <b>bold</b> <int>');
    expect(inlineHtmlAsText('<sub>'.repeat(50_000))).toHaveLength(250_000);
  });
});
