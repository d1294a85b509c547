// Gaps (brief/gaps.ts): the ask's words nothing the brief carries names.
import { describe, expect, it } from 'vitest';
import { findGaps } from '../../src/brief/gaps.js';
import { termSet } from '../../src/retrieval/because.js';
import { withoutPaths } from '../../src/text/ask-words.js';

const covered = (...texts: string[]) => texts.map(termSet);

describe('findGaps', () => {
  it('names an uncovered word with the word it qualifies', () => {
    expect(findGaps('Add partial refunds to the billing page', covered('Refunds go back to the card. app/routes/billing.tsx'))).toEqual([
      'partial refunds',
    ]);
  });

  it('pairs words only across spaces, never across a stop, a colon or a comma', () => {
    const none = covered('Payouts run nightly.');
    expect(findGaps('ship to production: put caches on memcached', none)).toEqual(['ship', 'production', 'put caches', 'memcached']);
    expect(findGaps('a secret leaked into a label value on a few series; erase just those', none)).toEqual([
      'secret leaked',
      'label value',
      'few series',
      'erase',
    ]);
  });

  it('takes another form of a word as covering it', () => {
    expect(findGaps('add logging to the refund flow', covered('Never write card numbers to the logs of the refund flow.'))).toEqual([]);
    expect(findGaps('add testing for payouts', covered('Payout tests run nightly.'))).toEqual([]);
    // Not a mere shared beginning: "cardinality" does not cover "card".
    expect(findGaps('card limits', covered('cardinality limits'))).toEqual(['card limits']);
  });

  it('covers a hyphenated word when all its parts are there', () => {
    expect(findGaps('make the retry non-blocking', covered('Retries are blocking unless marked non-urgent.'))).toEqual([]);
  });

  it("leaves a question's frame out: only what the ask is about can be a gap", () => {
    expect(findGaps('how are refunds approved?', covered('Payouts run nightly.'))).toEqual(['refunds approved']);
    expect(findGaps('can we refund twice?', covered('Payouts run nightly.'))).toEqual(['refund twice']);
    expect(findGaps('why does the invoice job fail?', covered('The invoice job retries.'))).toEqual(['job fail']);
    expect(findGaps('how many refunds can an owner approve?', covered('Payouts run nightly.'))).toEqual(['refunds', 'owner approve']);
    expect(findGaps('how much do queries against old blocks cost?', covered('Payouts run nightly.'))).toEqual([
      'queries',
      'old blocks',
      'cost',
    ]);
  });

  it('takes no connective for a gap: "but" and "nor" join the ask\'s parts and name nothing in them', () => {
    const none = covered('Payouts run nightly.');
    expect(findGaps('cut the laggard loose, but keep consensus running', covered('Consensus keeps running; cut slow peers.'))).toEqual([
      'laggard loose',
    ]);
    expect(findGaps('a mempool that neither stores nor gossips', covered('The mempool stores transactions.'))).toEqual(['gossips']);
    expect(findGaps('serve it from memory but persists to disk', none)).toEqual(['serve', 'memory', 'persists', 'disk']);
  });

  it('takes no other form of a word that names nothing for a gap: "keeps" as "keep"', () => {
    expect(findGaps('the compactor keeps failing', covered('The compactor retries.'))).toEqual(['failing']);
  });

  it('takes no word for what is done to the code for a gap, only what it is done to', () => {
    const none = covered('Payouts run nightly.');
    expect(findGaps('refactor the refund mailer and keep the change small', none)).toEqual(['refund mailer']);
    expect(findGaps('turn the retry loop into a queue; simplify and tidy it', none)).toEqual(['retry loop', 'queue']);
    expect(findGaps('investigate and debug the flaky invoice export', none)).toEqual(['flaky invoice', 'export']);
  });

  it('takes no way to move a setting, no asking to be told and no contraction for a gap', () => {
    const none = covered('Payouts run nightly.');
    expect(findGaps('lower the deletion delay, or raise the retry interval', none)).toEqual(['deletion delay', 'retry interval']);
    expect(findGaps("explain why I'd get stale blocks, I don't understand", none)).toEqual(['stale blocks']);
  });

  it('takes no reflexive for a gap: it points back at what the ask named', () => {
    const none = covered('Payouts run nightly.');
    expect(findGaps('a mempool the app fills itself, the nodes gossip among themselves', none)).toEqual([
      'mempool',
      'app fills',
      'nodes gossip',
    ]);
  });

  it("takes no fragment of a touched path and no edit tool's name for a gap", () => {
    const ask = (about: string) => withoutPaths(about, ['app/routes/billing.tsx']);
    // Nothing the brief carries names the path or the tool: neither is part of the work.
    expect(findGaps(ask('MultiEdit app/routes/billing.tsx: refund only to owners'), covered('Refunds go to owners.'))).toEqual([]);
    expect(findGaps(ask('Edit app/routes/billing.tsx: partial refund'), covered('Refunds go to owners.'))).toEqual(['partial refund']);
  });

  it("takes no word of the quoted code and no contraction for a gap, only the ask's prose", () => {
    const none = covered('Payouts run nightly.');
    expect(findGaps('func (cfg *Config) RulesBackupEnabled() bool {', none)).toEqual([]);
    expect(findGaps('shardSize := util.DynamicShardSize(limits.StoreGatewayTenantShardSize(userID), ring.InstancesCount())', none)).toEqual(
      [],
    );
    expect(findGaps("// We shouldn't drop what we've seen twice", none)).toEqual(['drop', 'seen twice']);
    // English words that are also keywords stay words in prose.
    expect(findGaps('import the package string table', none)).toEqual(['import', 'package string', 'table']);
    // A possessive is a word; a sentence's full stop is not a member access.
    expect(findGaps("the tenant's quota. Limits hold", none)).toEqual(["tenant's quota", 'limits hold']);
  });
});
