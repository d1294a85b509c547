// A candidate's terms, remembered across briefs (src/brief/text-terms.ts): always tokenize's
// terms for the text as it is now, remembered up to a bound.
import { describe, expect, it } from 'vitest';
import { TEXT_TERMS_MAX, termSetOfText, termsOfText, versionKey } from '../../src/brief/text-terms.js';
import { tokenize } from '../../src/text/tokenize.js';

describe('termsOfText', () => {
  it('gives the terms tokenize gives, and the same ones again for the same text', () => {
    const text = 'Refund ledger\nThe ledger reconciles every partial refund before the nightly close.';
    const first = termsOfText(text);
    expect(first).toEqual(tokenize(text));
    expect(termsOfText(`${text}`)).toBe(first);
    expect([...termSetOfText(text)].sort()).toEqual([...new Set(tokenize(text))].sort());
  });

  it('reads a changed text anew', () => {
    const before = termsOfText('Refunds settle nightly.');
    const after = termsOfText('Refunds settle hourly.');
    expect(after).toEqual(tokenize('Refunds settle hourly.'));
    expect(after).not.toEqual(before);
  });

  it('forgets the least recently used text past its bound, keeping one just used', () => {
    const oldest = termsOfText('oldest text about invoices');
    const kept = termsOfText('kept text about payouts');
    for (let i = 0; i < TEXT_TERMS_MAX - 1; i++) {
      termsOfText(`filler text ${i}`);
      if (i === TEXT_TERMS_MAX / 2) termsOfText('kept text about payouts');
    }
    expect(termsOfText('kept text about payouts')).toBe(kept);
    const again = termsOfText('oldest text about invoices');
    expect(again).not.toBe(oldest);
    expect(again).toEqual(oldest);
  });

  it("remembers a record version's text by its key, and a new version or another cut of the text anew", () => {
    const v1 = 'Payout batching\nPayouts are batched hourly and settled by the ledger.';
    const first = termsOfText(v1, versionKey('decision_01', 1, v1));
    expect(first).toEqual(tokenize(v1));
    // The same version's text, built again: found by its key.
    expect(termsOfText(`${v1}`, versionKey('decision_01', 1, v1))).toBe(first);
    const v2 = 'Payout batching\nPayouts are streamed one by one and settled by the ledger.';
    expect(termsOfText(v2, versionKey('decision_01', 2, v2))).toEqual(tokenize(v2));
    const cut = v1.slice(0, 30);
    expect(termsOfText(cut, versionKey('decision_01', 1, cut))).toEqual(tokenize(cut));
    expect(versionKey('decision_01', 1, v1)).not.toContain('\n');
  });
});
