// The local extractive synthesizer: it quotes, cites exactly what it quotes, keeps to 70 words
// and puts binding tiers first.
import { describe, expect, it } from 'vitest';
import { localSynthesizer, MAX_WORDS } from '../../src/providers/local-synthesizer.js';
import type { SynthesisItem } from '../../src/providers/synthesizer.js';

const synth = localSynthesizer();
const item = (id: string, tier: string, text: string, title = ''): SynthesisItem => ({ id, tier, title, text });
const words = (text: string) => (text.match(/\S+/g) ?? []).length;

/** The text with its citations removed, split back into the sentences it quoted. */
function quotedParts(text: string): string[] {
  return text.split(/\s*\[[^\]]+\]\s*/).filter(Boolean);
}

/** Every id in square brackets in the text, in order. */
const bracketed = (text: string) => [...text.matchAll(/\[([^\]]+)\]/g)].map((m) => m[1]!);

const ITEMS: SynthesisItem[] = [
  item('note_01', 'background', 'The billing team meets on Tuesdays. Refunds were slow last quarter.'),
  item('decision_01', 'already_decided', 'We issue partial refunds through Stripe, never by hand. The finance dashboard shows them daily.'),
  item('rule_01', 'must_obey', 'Every refund above 500 EUR needs a second approver.'),
  item('change_01', 'in_motion', 'The deploy pipeline moved to GitHub Actions.'),
];

describe('localSynthesizer', () => {
  it('quotes the sentences that answer the ask and cites exactly their items', async () => {
    const { text, cites } = await synth.synthesize('partial refunds approval', ITEMS);
    // Cited ids are exactly the bracketed ones, each once, and each a given item.
    expect(bracketed(text)).toEqual(cites);
    expect(new Set(cites).size).toBe(cites.length);
    for (const id of cites) expect(ITEMS.map((i) => i.id)).toContain(id);
    expect(cites).toContain('rule_01');
    expect(cites).toContain('decision_01');
    // Nothing about deploys or meetings was asked.
    expect(cites).not.toContain('change_01');
    expect(text).not.toContain('Tuesdays');
    // Every quoted part is the cited item's own words.
    const parts = quotedParts(text);
    expect(parts).toHaveLength(cites.length);
    parts.forEach((part, i) => {
      const source = ITEMS.find((it) => it.id === cites[i])!;
      for (const sentence of part.split(/(?<=\.)\s+/)) expect(source.text).toContain(sentence);
    });
  });

  it('puts must_obey before already_decided before in_motion before background', async () => {
    const items = [
      item('bg_01', 'background', 'Cache keys include the tenant id.'),
      item('motion_01', 'in_motion', 'Cache keys now include the region too.'),
      item('dec_01', 'already_decided', 'Cache keys are hashed with SHA-256.'),
      item('rule_01', 'must_obey', 'Cache keys never contain personal data.'),
    ];
    const { cites, text } = await synth.synthesize('cache keys', items);
    expect(cites).toEqual(['rule_01', 'dec_01', 'motion_01', 'bg_01']);
    expect(text.indexOf('[rule_01]')).toBeLessThan(text.indexOf('[dec_01]'));
  });

  it('favours the binding tier when a background item says the same thing', async () => {
    const filler = 'The staging database password rotates every thirty days and lives in the vault.';
    const items = [item('bg_01', 'background', filler), item('rule_01', 'must_obey', filler)];
    const { cites } = await synth.synthesize('database password rotation', items);
    // The same sentence is quoted once, from the rule.
    expect(cites).toEqual(['rule_01']);
  });

  it('writes at most 70 words, citations included', async () => {
    const long = (n: number) =>
      Array.from(
        { length: 6 },
        (_, s) => `Refund rule ${n}.${s} says the ledger records every refund with its reason and its approver.`,
      ).join(' ');
    const items = Array.from({ length: 8 }, (_, n) => item(`rule_0${n}`, 'must_obey', long(n)));
    const { text, cites } = await synth.synthesize('refund ledger approver', items);
    expect(words(text)).toBeLessThanOrEqual(MAX_WORDS);
    expect(cites.length).toBeGreaterThan(0);
    expect(bracketed(text)).toEqual(cites);
  });

  it('quotes the head of a single sentence longer than the budget, marked as cut', async () => {
    const sentence = `Refunds ${'are processed carefully and '.repeat(30)}logged.`;
    const { text, cites } = await synth.synthesize('refunds', [item('doc_01', 'background', sentence)]);
    expect(cites).toEqual(['doc_01']);
    expect(words(text)).toBe(MAX_WORDS);
    expect(text).toMatch(/^Refunds are processed/);
    expect(text).toMatch(/… \[doc_01\]$/);
  });

  it('falls back to lead sentences, binding tiers first, when nothing matches the ask lexically', async () => {
    const items = [
      item('bg_01', 'background', 'Payments settle overnight. Reports follow.'),
      item('rule_01', 'must_obey', 'Use idempotency keys on every charge. Log them.'),
    ];
    const { text, cites } = await synth.synthesize('zebra', items);
    expect(cites).toEqual(['rule_01', 'bg_01']);
    expect(text).toBe('Use idempotency keys on every charge. [rule_01] Payments settle overnight. [bg_01]');
  });

  it('uses the title when an item has no text, and strips list marks', async () => {
    const { text } = await synth.synthesize('rotate keys', [
      item('rule_01', 'must_obey', '', 'Rotate signing keys yearly'),
      item('rule_02', 'must_obey', '- Rotate API keys when someone leaves'),
    ]);
    expect(text).toBe('Rotate signing keys yearly. [rule_01] Rotate API keys when someone leaves. [rule_02]');
  });

  it('gives an empty synthesis for no items', async () => {
    expect(await synth.synthesize('refunds', [])).toEqual({ text: '', cites: [] });
  });

  it('is deterministic', async () => {
    const first = await synth.synthesize('partial refunds approval', ITEMS);
    expect(await synth.synthesize('partial refunds approval', ITEMS)).toEqual(first);
  });

  it('throws an AbortError when the signal has already fired', async () => {
    await expect(synth.synthesize('refunds', ITEMS, AbortSignal.abort())).rejects.toMatchObject({ name: 'AbortError' });
  });
});
