// The local lexical cross-scorer: coverage, phrase, IDF, lead and the edge cases of the port.
import { describe, expect, it } from 'vitest';
import {
  blendLexical,
  lexicalFeaturesEach,
  localReranker,
  scoreLexically,
  scoreLexicallyEach,
} from '../../src/providers/local-reranker.js';
import { tokenize } from '../../src/text/tokenize.js';

const reranker = localReranker();
const c = (id: string, text: string) => ({ id, text });

describe('localReranker', () => {
  it('ranks a candidate holding every query term above one holding a single term', async () => {
    const scores = await reranker.score('partial refund webhook', [
      c('one', 'Refund requests are queued and retried nightly by the billing job.'),
      c('all', 'A partial refund fires the billing webhook once per captured charge.'),
    ]);
    expect(scores).toHaveLength(2);
    expect(scores[1]).toBeGreaterThan(scores[0]!);
  });

  it('ranks an exact phrase above the same words scattered', async () => {
    // Same words, same length, same first line: only their order differs.
    const scores = await reranker.score('partial refund', [
      c('scattered', 'refund totals are partial until settlement closes the ledger'),
      c('phrase', 'partial refund totals are until settlement closes the ledger'),
    ]);
    expect(scores[1]).toBeGreaterThan(scores[0]!);
  });

  it('keeps the input order: scores line up with the candidates given', async () => {
    const candidates = [
      c('a', 'Nothing about the ask here.'),
      c('b', 'Session tokens expire after one hour.'),
      c('c', 'Unrelated text on deploy scripts.'),
    ];
    const scores = await reranker.score('session token expiry', candidates);
    expect(scores).toHaveLength(3);
    expect(scores[0]).toBe(0);
    expect(scores[2]).toBe(0);
    expect(scores[1]).toBeGreaterThan(0);
  });

  it('weighs a rare term above a term every candidate shares', async () => {
    // "cache" is in every candidate, so only the one that also says "eviction" stands out.
    const scores = await reranker.score('cache eviction', [
      c('common', 'The cache sits in front of the catalogue service.'),
      c('rare', 'Eviction is least recently used; the cache holds an hour.'),
      c('common2', 'Warm the cache on deploy.'),
    ]);
    expect(scores[1]).toBeGreaterThan(scores[0]!);
    expect(scores[1]).toBeGreaterThan(scores[2]!);
  });

  it('boosts query terms in the first line (the title)', async () => {
    const scores = await reranker.score('rate limit', [
      c('late', 'Gateway notes\nClients back off exponentially when the rate limit answers.'),
      c('early', 'Rate limit answers\nClients back off exponentially when the gateway notes.'),
    ]);
    expect(scores[1]).toBeGreaterThan(scores[0]!);
  });

  it('matches plurals and camelCase through the shared tokeniser', async () => {
    const scores = await reranker.score('refunds in stateSync', [
      c('hit', 'The state sync worker issues a refund.'),
      c('miss', 'The worker issues an invoice.'),
    ]);
    expect(scores[0]).toBeGreaterThan(scores[1]!);
  });

  it('stays within [0, 1] and gives the same scores every time', async () => {
    const candidates = [c('x', 'refund refund refund refund refund policy policy'), c('y', 'policy'), c('z', '')];
    const first = await reranker.score('refund policy', candidates);
    const second = await reranker.score('refund policy', candidates);
    expect(second).toEqual(first);
    for (const s of first) {
      expect(s).toBeGreaterThanOrEqual(0);
      expect(s).toBeLessThanOrEqual(1);
    }
    expect(first[2]).toBe(0);
  });

  it('scores every candidate 0 for an empty ask or one made only of stop words', async () => {
    const candidates = [c('a', 'Refunds are partial.'), c('b', 'Tokens expire.')];
    expect(await reranker.score('', candidates)).toEqual([0, 0]);
    expect(await reranker.score('what is the', candidates)).toEqual([0, 0]);
  });

  it('returns no scores for no candidates', async () => {
    expect(await reranker.score('refund policy', [])).toEqual([]);
  });

  it('throws an AbortError when the signal has already fired', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(reranker.score('refund', [c('a', 'refund')], controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('scores each adjacent pair of the ask it finds, the rest of the candidate alike', async () => {
    // The same terms and first line in each: only how many of the ask's pairs stand adjacent differs.
    const orders = ['webhook partial alpha retry refund', 'partial refund alpha retry webhook', 'partial refund alpha webhook retry'];
    const [none, one, two] = await reranker.score(
      'partial refund webhook retry',
      orders.map((o, i) => c(String(i), `Notes\n${o}`)),
    );
    expect(one).toBeGreaterThan(none!);
    expect(two).toBeGreaterThan(one!);
    expect(two! - one!).toBeCloseTo(one! - none!, 9);
  });

  it('scores the same from the terms a caller hands over as from the text', async () => {
    const texts = ['A partial refund fires the billing webhook.', 'Refunds are queued.\nThe webhook retries.', 'Nothing here.'];
    const asks = ['partial refund webhook', 'webhook retries'];
    const fromText = await reranker.scoreEach!(
      asks,
      texts.map((t, i) => c(String(i), t)),
    );
    const fromTerms = await reranker.scoreEach!(
      asks,
      texts.map((t, i) => ({ ...c(String(i), t), terms: tokenize(t) })),
    );
    expect(fromTerms).toEqual(fromText);
    // The terms are what is scored: hand over other terms and the scores follow them.
    const swapped = await reranker.score(asks[0]!, [{ ...c('0', texts[0]!), terms: tokenize(texts[2]!) }, c('1', texts[1]!)]);
    expect(swapped[0]).toBeLessThan(fromText[0]![0]!);
  });
});

describe('lexicalFeaturesEach', () => {
  it('gives the signals the scores blend: each in [0, 1], coverage the share of the ask found', () => {
    const asks = ['partial refund webhook', 'the and of'];
    const candidates = [
      c('none', 'Nothing about the ask here.'),
      c('phrase', 'partial refund webhook\nA partial refund webhook fires once per captured charge.'),
      c('one', 'Refund requests are queued and retried nightly by the billing job.'),
    ];
    const features = lexicalFeaturesEach(asks, candidates);
    const scores = scoreLexicallyEach(asks, candidates);
    expect(features.map((q) => q.map(blendLexical))).toEqual(scores);
    const [none, phrase, one] = features[0]!;
    expect(none).toEqual({ coverage: 0, saturated: 0, adjacency: 0, lead: 0 });
    expect(phrase).toMatchObject({ coverage: 1, adjacency: 1, lead: 1 });
    expect(one!.coverage).toBeCloseTo(1 / 3);
    const values = features[0]!.flatMap((f) => Object.values(f));
    expect(values.every((v) => v >= 0 && v <= 1)).toBe(true);
    // An ask of stop words only has no signal at all.
    expect(features[1]!.every((f) => blendLexical(f) === 0)).toBe(true);
  });

  it('scores each ask as it would alone, though the candidates are read once for all of them', () => {
    const asks = ['partial refund webhook', 'nightly billing job', 'refund refund charge'];
    const candidates = [
      c('a', 'partial refund webhook\nA partial refund webhook fires once per captured charge.'),
      c('b', 'Refund requests are queued and retried nightly by the billing job.'),
      c('c', 'The charge is captured once; a refund of it is partial until settlement.'),
    ];
    expect(scoreLexicallyEach(asks, candidates)).toEqual(asks.map((a) => scoreLexically(a, candidates)));
  });

  it('reads the lead from the first line holding more than whitespace', () => {
    const texts = ['\n  \n\t\nRate limit answers\nClients back off.', 'Rate limit answers\nClients back off.', ' \n\n  '];
    const leads = lexicalFeaturesEach(
      ['rate limit'],
      texts.map((t, i) => c(String(i), t)),
    )[0]!.map((f) => f.lead);
    expect(leads).toEqual([1, 1, 0]);
  });
});
