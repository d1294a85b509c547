// A candidate's terms, remembered across briefs (src/brief/text-terms.ts): always tokenize's
// terms for the text as it is now, remembered up to a bound of texts and of distinct words.
import { describe, expect, it } from 'vitest';
import { TextTerms, termSetOfText, termsOfText, versionKey } from '../../src/brief/text-terms.js';
import { tokenize } from '../../src/text/tokenize.js';

const sorted = (terms: Iterable<string>) => [...terms].sort();

describe('termsOfText', () => {
  it('gives the terms tokenize gives, and the same ones again for the same text', () => {
    const text = 'Refund ledger\nThe ledger reconciles every partial refund before the nightly close.';
    const first = termsOfText(text);
    expect(first).toEqual(tokenize(text));
    expect(termsOfText(`${text}`)).toEqual(first);
    const set = termSetOfText(text);
    expect(sorted(set)).toEqual(sorted(new Set(tokenize(text))));
    for (const term of tokenize(text)) expect(set.has(term)).toBe(true);
    expect(set.has('payout')).toBe(false);
    expect(set.has('')).toBe(false);
  });

  it('reads a changed text anew', () => {
    const before = termsOfText('Refunds settle nightly.');
    const after = termsOfText('Refunds settle hourly.');
    expect(after).toEqual(tokenize('Refunds settle hourly.'));
    expect(after).not.toEqual(before);
    expect(termSetOfText('Refunds settle hourly.').has(tokenize('nightly')[0]!)).toBe(false);
  });

  it("remembers a record version's text by its key, and a new version or another cut of the text anew", () => {
    const memory = new TextTerms(8, 1000);
    const v1 = 'Payout batching\nPayouts are batched hourly and settled by the ledger.';
    const first = memory.terms(v1, versionKey('decision_01', 1, v1));
    expect(first).toEqual(tokenize(v1));
    expect(memory.remembers(versionKey('decision_01', 1, v1))).toBe(true);
    // The same version's text, built again: found by its key, not tokenized again.
    expect(memory.terms(`${v1}`, versionKey('decision_01', 1, v1))).toEqual(first);
    expect(memory.size.texts).toBe(1);
    const v2 = 'Payout batching\nPayouts are streamed one by one and settled by the ledger.';
    expect(memory.terms(v2, versionKey('decision_01', 2, v2))).toEqual(tokenize(v2));
    const cut = v1.slice(0, 30);
    expect(memory.terms(cut, versionKey('decision_01', 1, cut))).toEqual(tokenize(cut));
    expect(memory.size.texts).toBe(3);
    expect(versionKey('decision_01', 1, v1)).not.toContain('\n');
  });
});

describe('TextTerms bounds', () => {
  it('forgets the least recently used text past its bound, keeping one just used', () => {
    const memory = new TextTerms(4, 1000);
    memory.terms('oldest text about invoices');
    memory.terms('kept text about payouts');
    memory.terms('filler text one');
    memory.terms('kept text about payouts');
    memory.terms('filler text two');
    memory.terms('filler text three');
    expect(memory.remembers('kept text about payouts')).toBe(true);
    expect(memory.remembers('oldest text about invoices')).toBe(false);
    expect(memory.size.texts).toBe(4);
    expect(memory.terms('oldest text about invoices')).toEqual(tokenize('oldest text about invoices'));
  });

  it('reads a text of more terms than one call of String.fromCharCode takes', () => {
    const memory = new TextTerms(8, 65_536);
    const text = Array.from({ length: 20_000 }, (_, i) => `word${i % 9000}`).join(' ');
    expect(memory.terms(text)).toEqual(tokenize(text));
    expect(memory.terms(text)).toEqual(tokenize(text));
    expect(memory.termSet(text).has('word8999')).toBe(true);
  });

  it('answers for a text of more terms than the vocabulary holds, without remembering it', () => {
    const memory = new TextTerms(8, 4);
    const text = 'alpha bravo charlie delta echo foxtrot';
    expect(memory.terms(text)).toEqual(tokenize(text));
    expect(memory.termSet(text).has(tokenize('foxtrot')[0]!)).toBe(true);
    expect(memory.remembers(text)).toBe(false);
    expect(memory.size.words).toBe(0);
  });

  it('keeps each distinct word once across texts', () => {
    const memory = new TextTerms(8, 1000);
    memory.terms('ledger refund ledger');
    memory.terms('refund ledger payout');
    expect(memory.size.words).toBe(new Set(tokenize('ledger refund payout')).size);
  });

  it('starts again when the vocabulary is full, and a set handed out before still answers for its text', () => {
    const memory = new TextTerms(100, 6);
    const before = memory.termSet('alpha bravo charlie delta');
    expect(memory.size.words).toBe(4);
    // Three new words do not fit beside the four: the vocabulary and the texts start again.
    const next = 'echo foxtrot golf';
    expect(memory.terms(next)).toEqual(tokenize(next));
    expect(memory.size).toEqual({ texts: 1, words: 3 });
    expect(memory.remembers('alpha bravo charlie delta')).toBe(false);
    expect(before.has(tokenize('bravo')[0]!)).toBe(true);
    expect(before.has(tokenize('echo')[0]!)).toBe(false);
    expect(sorted(before)).toEqual(sorted(new Set(tokenize('alpha bravo charlie delta'))));
    expect(memory.terms('alpha bravo charlie delta')).toEqual(tokenize('alpha bravo charlie delta'));
  });
});
