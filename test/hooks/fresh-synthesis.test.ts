// The hook's synthesis once the session holds some of the items it names (src/hooks/respond.ts):
// whole sentences go, never a piece of one.
import { describe, expect, it } from 'vitest';
import { freshSynthesis } from '../../src/hooks/respond.js';

const synthesis = (text: string, cites: string[]) => ({ text, cites });

describe('freshSynthesis', () => {
  // The local synthesis's shape: each sentence lists its items, each followed by the ask's words it holds.
  const local = synthesis(
    'Already decided: Refunds, partial ones included [decision_A] (partial, refunds). Background: Idempotency keys [reference_B] (refund, idempotency, key); Refund mailer [reference_C] (refund).',
    ['decision_A', 'reference_B', 'reference_C'],
  );

  it('drops a sentence whose items the session holds, with the words listed behind them', () => {
    const out = freshSynthesis(local, new Set(['reference_B', 'reference_C']));
    expect(out.text).toBe('Background: Idempotency keys [reference_B] (refund, idempotency, key); Refund mailer [reference_C] (refund).');
    expect(out.cites).toEqual(['reference_B', 'reference_C']);
  });

  it('keeps a sentence while any item it names is fresh, and drops the one before it whole', () => {
    const out = freshSynthesis(local, new Set(['reference_C']));
    expect(out.text.startsWith('Background: ')).toBe(true);
    expect(out.text).not.toContain('(partial, refunds)');
  });

  it('keeps the first sentence whole when only its item is fresh', () => {
    expect(freshSynthesis(local, new Set(['decision_A'])).text).toBe(
      'Already decided: Refunds, partial ones included [decision_A] (partial, refunds).',
    );
  });

  it("reads a model's sentences, citations at their ends, the same way", () => {
    const model = synthesis(
      'Refunds over $500 need approval [rule_A]. Partial refunds go back to the card [decision_B][reference_C]. Nothing covers chargebacks.',
      ['rule_A', 'decision_B', 'reference_C'],
    );
    expect(freshSynthesis(model, new Set(['reference_C'])).text).toBe(
      'Partial refunds go back to the card [decision_B][reference_C]. Nothing covers chargebacks.',
    );
  });

  it('says nothing when nothing is fresh', () => {
    expect(freshSynthesis(local, new Set())).toEqual({ text: '', cites: [] });
  });
});
