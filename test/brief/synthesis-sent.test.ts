// A model's synthesis, written before the budget, held to the items the brief sent
// (src/brief/synthesis-sent.ts): a citation of a held-back item leaves its brackets, and a
// sentence with nothing sent left to rest on leaves the text.
import { describe, expect, it } from 'vitest';
import { keepToSent } from '../../src/brief/synthesis-sent.js';

const A = 'decision_01J0000000000000000000000A';
const B = 'rule_01J0000000000000000000000000B';
const C = 'reference_01J00000000000000000000C';

describe('keepToSent', () => {
  it('returns a synthesis that cites only sent items as it is', () => {
    const s = { text: `Refunds go to the card [${A}]. Never log card numbers [${B}].`, cites: [A, B] };
    expect(keepToSent(s, new Set([A, B]))).toBe(s);
  });

  it('drops a sentence that rests only on held-back items and keeps the rest word for word', () => {
    const s = {
      text: `Refunds go to the card [${A}]. Partial refunds need approval [${C}]. Never log card numbers [${B}].`,
      cites: [A, C, B],
    };
    expect(keepToSent(s, new Set([A, B]))).toEqual({
      text: `Refunds go to the card [${A}]. Never log card numbers [${B}].`,
      cites: [A, B],
    });
  });

  it('prunes a held-back id from a citation that also names a sent one', () => {
    const s = { text: `Refunds go to the card that paid [${A}, ${C}]; owners see the button [${C}; ${B}].`, cites: [A, C, B] };
    expect(keepToSent(s, new Set([A, B]))).toEqual({
      text: `Refunds go to the card that paid [${A}]; owners see the button [${B}].`,
      cites: [A, B],
    });
  });

  it('takes a citation after the stop as the sentence before it', () => {
    const s = { text: `Refunds go to the card. [${C}] Owners see the button. [${A}]`, cites: [C, A] };
    expect(keepToSent(s, new Set([A]))).toEqual({ text: `Owners see the button. [${A}]`, cites: [A] });
  });

  it('keeps a sentence that cites nothing, and drops one naming a held-back item in its prose', () => {
    const s = { text: `The items do not say how refunds are taxed. As ${C} says, refunds are final [${A}].`, cites: [C, A] };
    expect(keepToSent(s, new Set([A]))).toEqual({ text: 'The items do not say how refunds are taxed.', cites: [] });
  });

  it('does not split a sentence at an abbreviation before a lowercase word', () => {
    const s = { text: `Use the card, e.g. the one that paid [${C}]. Owners approve [${A}].`, cites: [C, A] };
    expect(keepToSent(s, new Set([A]))).toEqual({ text: `Owners approve [${A}].`, cites: [A] });
  });

  it('leaves nothing when every claim rests on held-back items', () => {
    const s = { text: `Partial refunds need approval [${C}].`, cites: [C] };
    expect(keepToSent(s, new Set([A]))).toEqual({ text: '', cites: [] });
  });
});
