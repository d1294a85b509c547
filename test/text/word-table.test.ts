// The table of words' terms the tokenizer looks words up in (src/text/word-table.ts): what it
// remembers never changes a text's terms — for a word seen before, after the table was emptied
// for being full, or for words that all land in one slot, past the probes a lookup makes.
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { tokenize } from '../../src/text/tokenize.js';
import { hashStep, WORD_HASH_SEED } from '../../src/text/word-table.js';

const hashOf = (word: string) => [...word].reduce((h, ch) => hashStep(h, ch.charCodeAt(0)), WORD_HASH_SEED);

describe('the word table', () => {
  it('gives a word the same terms the first time and every time after', () => {
    const text = 'The billingPage refunds Refunds fooBarBaz state_sync HTTP2 and the BILLING page';
    const first = tokenize(text);
    expect(first).toEqual([
      'billingpage',
      'billing',
      'page',
      'refund',
      'refund',
      'foobarbaz',
      'foo',
      'bar',
      'baz',
      'state',
      'sync',
      'http2',
      'billing',
      'page',
    ]);
    expect(tokenize(text)).toEqual(first);
    expect(tokenize(`${text} ${text}`)).toEqual([...first, ...first]);
  });

  it('gives the same terms after it was emptied for being full', () => {
    const sample = 'Every refund needs a second approver before the ledgerCloses';
    const before = tokenize(sample);
    // More distinct words than the table holds (three quarters of 131,072).
    const many = Array.from({ length: 120_000 }, (_, i) => `zq${i.toString(36)}x`).join(' ');
    expect(tokenize(many)).toHaveLength(120_000);
    expect(tokenize(sample)).toEqual(before);
    expect(tokenize(many).slice(0, 3)).toEqual(['zq0x', 'zq1x', 'zq2x']);
  });

  it('tokenizes words that all land in one slot, more of them than a lookup probes', () => {
    // Words whose hash falls in slot 0 of the 2^17: a writer could choose such words.
    const same: string[] = [];
    for (let i = 0; same.length < 48; i++) {
      const word = `k${i}`; // a digit: its own term, unstemmed
      if ((hashOf(word) & ((1 << 17) - 1)) === 0) same.push(word);
    }
    const text = Array.from({ length: 50 }, () => same.join(' ')).join('\n');
    const terms = tokenize(text);
    expect(terms).toHaveLength(50 * same.length);
    expect(terms.slice(0, same.length)).toEqual(same);
    expect(terms.slice(-same.length)).toEqual(same);
  });

  it('keeps no text alive that first brought it a long word', () => {
    // V8 makes a slice of 13 or more characters a view of the text it was cut from: the table kept
    // 2,000 texts of 20,000 characters (38 MB) alive for one new identifier each.
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 2000; i++) tokenize(`${'filler words here '.repeat(1100)} distinctiveidentifier${i}x ${'more filler '.repeat(10)}`);
    gc();
    gc();
    expect((process.memoryUsage().heapUsed - before) / 1024 / 1024).toBeLessThan(10);
  });
});
