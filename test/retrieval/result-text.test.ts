// A search result's text is the record's Markdown as an agent reads it, cut where the brief cuts
// (src/retrieval/result-text.ts): REST, MCP, the CLI and the console all show it.
import { describe, expect, it } from 'vitest';
import { CANDIDATE_TEXT_CHARS } from '../../src/retrieval/candidates.js';
import { resultText } from '../../src/retrieval/result-text.js';

const sentences = (n: number) =>
  Array.from({ length: n }, (_, i) => `Sentence ${i + 1} says the ledger closes each month before invoices go out.`).join(' ');

describe('a search result’s text', () => {
  it('sends links as their text, leaves comments and link definitions out, and does not repeat the title line', () => {
    const prose = [
      '# Full Node Verification',
      '',
      '<!-- editors: keep in sync with ADR 059 -->',
      'This process is outlined in [ADR-059](https://github.com/example/repo/blob/main/docs/adr-059.md#L10).',
      'See also [the spec][spec].',
      '',
      '[spec]: https://example.com/spec',
    ].join('\n');
    expect(resultText(prose, 'Full Node Verification', 400)).toBe('This process is outlined in ADR-059. See also the spec.');
  });

  it('ends a cut at a sentence, within text_chars, marked', () => {
    const text = resultText(sentences(12), 'Closing', 400);
    expect(text.length).toBeLessThanOrEqual(400);
    expect(text).toMatch(/invoices go out\. …$/);
  });

  it('keeps code a fenced block, closed when cut, and never passes text_chars', () => {
    const code = Array.from({ length: 40 }, (_, i) => `  ledger.close(month${i}) // closes month ${i}`).join('\n');
    const prose = `The monthly close runs:\n\n\`\`\`go\n${code}\n\`\`\`\n\n${sentences(3)}`;
    for (let max = 50; max <= 700; max += 7) {
      const text = resultText(prose, 'Monthly close', max);
      expect(text.length, `text_chars ${max}`).toBeLessThanOrEqual(max);
      // A fence opened is a fence closed.
      expect((text.match(/^```/gm) ?? []).length % 2, `text_chars ${max}: ${text}`).toBe(0);
    }
    const text = resultText(prose, 'Monthly close', 400);
    expect(text).toMatch(/^The monthly close runs:\n```go\n {2}ledger\.close\(month0\)/);
    expect(text).toMatch(/\n```\n… code cut$/);
  });

  it('marks a text that goes on past what was loaded, even when all of it fits', () => {
    const loaded = `${'Ledger rules apply to every invoice. '.repeat(80)}`.slice(0, CANDIDATE_TEXT_CHARS);
    expect(resultText(loaded, 'Rules', 5000)).toMatch(/ …$/);
    expect(resultText(loaded, 'Rules', 5000).length).toBeLessThanOrEqual(5000);
    const whole = 'Ledger rules apply to every invoice.';
    expect(resultText(whole, 'Rules', 5000)).toBe(whole);
  });

  it('is the title when the record has no text of its own', () => {
    expect(resultText('', 'A title only', 400)).toBe('A title only');
    expect(resultText('# A title only\n', 'A title only', 400)).toBe('# A title only');
  });
});
