// The duplicate guard's similarity: shingles as numbers (shingleKeys) measure exactly what the
// string shingles do, which the threshold was chosen on (bench/duplicates.ts).
import { describe, expect, it } from 'vitest';
import { jaccard, shingleKeys, shingles } from '../../src/text/near-duplicate.js';

const TEXTS = [
  'Refunds go back to the card that paid, never as store credit.',
  'Refunds go back to the card that paid — never as store credit!',
  'Refunds go to the card that paid, and never as store credit.',
  'Card card card card card.',
  'Card',
  'card card',
  'Invoices are numbered per calendar year without gaps.',
  'Ünïcode wörds, digits 42 and paths like app/routes/billing-3.tsx count as words too.',
  '',
];

describe('near-duplicate similarity', () => {
  it('numbered shingles give the Jaccard of the string shingles, for every pair', () => {
    const dictionary = new Map<string, number>();
    const keys = TEXTS.map((t) => shingleKeys(t, dictionary));
    for (const [i, a] of TEXTS.entries()) {
      for (const [j, b] of TEXTS.entries()) {
        expect([i, j, jaccard(keys[i]!, keys[j]!)]).toEqual([i, j, jaccard(shingles(a), shingles(b))]);
      }
      expect(keys[i]!.size).toBe(shingles(a).size);
    }
  });
});
