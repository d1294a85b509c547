// The passage of a long item sent in full: the run of sentences holding the most of the ask's
// terms, within the length, marked where it was cut.
import { describe, expect, it } from 'vitest';
import { bestPassage, piecesThatMayHold, units } from '../../src/brief/passage.js';
import { tokenize } from '../../src/text/tokenize.js';
import { termSet } from '../../src/retrieval/because.js';

/** `n` filler sentences that name none of the asks below. */
const filler = (n: number, tag = 'f') =>
  Array.from({ length: n }, (_, i) => `The ${tag}${i} paragraph describes background material at some length here.`).join(' ');

describe('bestPassage', () => {
  const ask = termSet('evict a cheaper transaction when the mempool is full');

  it('leaves a text that fits, or that holds none of the ask, to the caller', () => {
    expect(bestPassage('The mempool evicts.', ask, 800)).toBeUndefined();
    expect(bestPassage(filler(40), ask, 800)).toBeUndefined();
    expect(bestPassage(filler(40), new Set(), 800)).toBeUndefined();
  });

  it('keeps the opening when it matches as well as anything later (ties go first)', () => {
    const text = `When the mempool is full it must evict a transaction. ${filler(30)} The mempool is full and evicts a transaction.`;
    expect(bestPassage(text, ask, 800)).toBeUndefined();
  });

  it('sends the later passage that covers the ask, cut at sentences and marked', () => {
    const key = 'When the mempool is full, the node evicts the cheapest transaction to admit a better one.';
    const text = `${filler(30)} ${key} ${filler(30, 'g')}`;
    const passage = bestPassage(text, ask, 800)!.text;
    expect(passage.length).toBeLessThanOrEqual(800);
    expect(passage).toContain(key);
    // It starts at the sentence naming the ask (not as early as still holds it) and runs on.
    expect(passage.startsWith(`…${key} The g0 paragraph`)).toBe(true);
    expect(passage.endsWith('…')).toBe(true);
    expect(text).toContain(passage.slice(1, -1));
  });

  it('prefers a passage naming more of the ask over one repeating a single word', () => {
    const repeats = 'Mempool mempool mempool mempool mempool mempool mempool.';
    const covering = 'A full mempool evicts the cheaper transaction first.';
    const text = `${filler(20)} ${repeats} ${filler(20, 'g')} ${covering} ${filler(20, 'h')}`;
    const passage = bestPassage(text, ask, 300)!.text;
    expect(passage).toContain(covering);
    expect(passage).not.toContain(repeats);
  });

  it('ends without a mark when the passage runs to the end of the text', () => {
    const text = `${filler(30)} The mempool is full, so evict the cheaper transaction.`;
    const passage = bestPassage(text, ask, 400)!.text;
    expect(passage.startsWith('…')).toBe(true);
    expect(passage.endsWith('transaction.')).toBe(true);
  });

  it('stops at a word when it reaches the end of a text read only in part', () => {
    // The record's first 2,000 characters were loaded: its text goes on past "lo".
    const text = `${filler(30)} When the mempool is full it evicts the cheaper transaction, and bursts are lo`;
    const passage = bestPassage(text, ask, 400, false)!.text;
    expect(passage.endsWith('and bursts are…')).toBe(true);
    // Read whole, the same text ends where it ends.
    expect(bestPassage(text, ask, 400, true)!.text.endsWith('bursts are lo')).toBe(true);
  });

  it('cuts a run-on text with no sentence ends at spaces and stays within the length', () => {
    const words = Array.from({ length: 600 }, (_, i) => (i === 450 ? 'mempool evict transaction full' : `w${i}`)).join(' ');
    const passage = bestPassage(words, ask, 500)!.text;
    expect(passage.length).toBeLessThanOrEqual(500);
    expect(passage).toContain('mempool evict transaction full');
  });

  it("opens at the start of a sentence it would have cut, when the ask's words still fit", () => {
    // Longer than a piece: cut at a space, its first part holding none of the ask's words.
    const long = `A field may be renamed only with a new release, ${'shipped beside the old one '.repeat(8)}for the deprecation window of twelve months for customer-facing events.`;
    const text = `${filler(20)} ${long} Customers pin the event version of each endpoint. ${filler(20, 'g')}`;
    const passage = bestPassage(text, termSet('customers pin the endpoint during the deprecation window'), 400)!.text;
    expect(passage.startsWith('…A field may be renamed')).toBe(true);
    expect(passage).toContain('Customers pin the event version of each endpoint.');
  });

  it('reads on past a list’s number: a passage does not end at "1."', () => {
    const key = 'When the mempool is full it evicts a transaction in this order: 1. The cheapest first, whatever its age.';
    const text = `${filler(20)} ${key} ${filler(20, 'g')}`;
    const passage = bestPassage(text, termSet('mempool full evicts transaction'), key.indexOf('1.') + 10)!.text;
    expect(passage).toMatch(/^…When the mempool is full/);
    expect(passage).not.toMatch(/1\. ?…$/);
    expect(passage).toMatch(/1\. The/);
  });

  it('reads on past an abbreviation: a passage does not open after "e.g."', () => {
    const text = `${filler(20)} Snapshots are kept for a while, e.g. every 10000 heights of the chain. ${filler(20, 'g')}`;
    const passage = bestPassage(text, termSet('heights of the chain'), 300)!.text;
    expect(passage.startsWith('…Snapshots are kept for a while, e.g. every 10000 heights')).toBe(true);
  });

  it("holds the anchor (where the item names what it is there for) over the ask's words", () => {
    const opening = 'When the mempool is full it must evict a cheaper transaction.';
    const named = 'Raise max_subscription_clients for busy nodes.';
    const text = `${opening} ${filler(20)} ${named} ${filler(20, 'g')}`;
    // Without the anchor the opening wins: it holds the ask's words.
    expect(bestPassage(text, ask, 400)).toBeUndefined();
    const passage = bestPassage(text, ask, 400, true, text.indexOf(named))!.text;
    expect(passage.length).toBeLessThanOrEqual(400);
    expect(passage.startsWith(`…${named}`)).toBe(true);
    // With no ask term at all, the anchor alone places it; an anchor past what is read is no anchor.
    expect(bestPassage(text, new Set(), 400, true, text.indexOf(named))!.text).toContain(named);
    expect(bestPassage(`${filler(80)} ${named}`, ask, 400, true, 5000)).toBeUndefined();
  });
});

describe('piecesThatMayHold', () => {
  // Words whose terms are not plainly in their letters: plurals the stemmer cuts ("policies" →
  // "policy", "ties" → "ty"), camelCase parts, capitals, digits, and letters past ASCII that
  // folding changes ("naïve" → "naive").
  const words = [
    'policies',
    'Policy',
    'POLICIES',
    'refundPolicy',
    'RefundPolicies',
    'ties',
    'ty',
    'caches',
    'processes',
    'boxes',
    'naïve',
    'café',
    'Straße',
    'v1.2',
    'x86',
    'gRPC',
    'mempool',
    'evictions',
    'the',
    'of',
    'a',
    'state_sync',
    'e.g.',
    'abci++',
    'WAL',
    'wals',
    'keys',
    'key',
    'replays',
    'flies',
    'fly',
    'statuses',
    'bus',
    'is',
    'TxIndexer',
    'indexers',
  ];
  // A seeded generator: the same texts on every run.
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pick = <T>(xs: T[]) => xs[Math.floor(next() * xs.length)]!;

  it('marks every piece whose terms hold an ask term (the tokenizer is the judge)', () => {
    for (let round = 0; round < 300; round++) {
      // Sentences, and now and then a run of 300 characters without a space, which units() cuts mid-word.
      const parts = Array.from({ length: 40 }, () =>
        next() < 0.05 ? Array.from({ length: 30 }, () => pick(words)).join('') : `${pick(words)}${next() < 0.2 ? '.' : ''}`,
      );
      const text = parts.join(' ');
      const ask = new Set(tokenize(Array.from({ length: 1 + Math.floor(next() * 4) }, () => pick(words)).join(' ')));
      const pieces = units(text);
      const may = piecesThatMayHold(text, pieces, ask);
      pieces.forEach((p, i) => {
        const holds = tokenize(text.slice(p.from, p.to)).some((t) => ask.has(t));
        if (holds) expect(may[i], `${JSON.stringify(text.slice(p.from, p.to))} for ${[...ask].join(',')}`).toBe(true);
      });
    }
  });

  it('leaves out the pieces that hold none of the ask', () => {
    const text = `${filler(10)} The mempool evicts the cheapest transaction. ${filler(10, 'g')}`;
    const pieces = units(text);
    const may = piecesThatMayHold(text, pieces, termSet('mempool eviction'));
    expect(may.filter(Boolean)).toHaveLength(1);
    expect(text.slice(pieces[may.indexOf(true)]!.from, pieces[may.indexOf(true)]!.to)).toContain('mempool');
  });
});
