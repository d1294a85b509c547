// The identifiers a change's lines hold: a dotted config key also stands for its suffixes that
// hold an underscore, up to 100 characters. Every suffix of every length made one edit event's
// token of 32,000 parts build a billion characters and hold the server 78 s (a hostile review).
import { describe, expect, it } from 'vitest';
import { lineIdentifiers } from '../../src/text/identifiers.js';

const names = (line: string) => lineIdentifiers({ added: [line], removed: [], contexts: [] }, 100).map((i) => i.name);

describe('lineIdentifiers', () => {
  it("takes a dotted config key's suffixes that hold an underscore, and its parts", () => {
    const found = names('timeout = cfg.tx_index.indexer');
    expect(found).toEqual(expect.arrayContaining(['cfg.tx_index.indexer', 'tx_index.indexer', 'tx_index']));
    expect(found).not.toContain('indexer.x');
  });

  it('takes no suffix longer than 100 characters, however many parts a token has', () => {
    const token = `${Array(20_000).fill('a').join('.')}.b_c`;
    const found = names(`x = ${token}`);
    expect(found.length).toBeGreaterThan(0);
    expect(Math.max(...found.map((n) => n.length))).toBeLessThanOrEqual(100);
    expect(found).toContain('a.b_c');
  });
});
