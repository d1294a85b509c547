// Splitting a multi-part ask into its concerns (retrieval/clauses.ts).
import { describe, expect, it } from 'vitest';
import { splitClauses } from '../../src/retrieval/clauses.js';

describe('splitClauses', () => {
  it('splits concerns joined by commas and conjunctions', () => {
    expect(
      splitClauses('add a per-tenant ingestion limit, let tenants change it through the overrides API, and document it in the reference'),
    ).toEqual(['add a per-tenant ingestion limit', 'let tenants change it through the overrides API', 'document it in the reference']);
    expect(splitClauses('put the validator behind sentry nodes and move its key into a remote signer')).toEqual([
      'put the validator behind sentry nodes',
      'move its key into a remote signer',
    ]);
  });

  it('keeps a single concern whole', () => {
    expect(splitClauses('make the mempool hand out transactions by priority')).toEqual([]);
    expect(splitClauses('refunds')).toEqual([]);
  });

  it('joins a piece too short to stand to its neighbour', () => {
    // "document it" is one index term: it stays with the clause before it.
    expect(splitClauses('add a limit per tenant and document it')).toEqual([]);
    expect(splitClauses('add a limit per tenant, expose it in the exporter and document it')).toEqual([
      'add a limit per tenant',
      'expose it in the exporter and document it',
    ]);
    expect(splitClauses('first, rotate the signing key; then restart the node')).toEqual([
      'first rotate the signing key',
      'restart the node',
    ]);
  });

  it('keeps an "and" inside a noun phrase, splits one between two asks', () => {
    expect(splitClauses('archive the audit and access logs to the cold bucket every night')).toEqual([]);
    expect(splitClauses('import the signed and unsigned payloads, and reject duplicates at the gateway')).toEqual([
      'import the signed and unsigned payloads',
      'reject duplicates at the gateway',
    ]);
    expect(splitClauses('rotate the signing keys every month and page the operators when rotation fails')).toEqual([
      'rotate the signing keys every month',
      'page the operators when rotation fails',
    ]);
  });

  it('searches at most four clauses, merging neighbours rather than dropping a concern', () => {
    const clauses = splitClauses('rotate keys, flush caches, drain nodes, rebuild indexes, restart workers, page operators');
    expect(clauses).toHaveLength(4);
    // Every concern is still searched: the two shortest neighbours became one.
    expect(clauses.join(' ').split(' ')).toEqual(
      'rotate keys flush caches drain nodes rebuild indexes restart workers page operators'.split(' '),
    );
    expect(
      splitClauses(
        'first set up the staging cluster, then load the fixtures, run the migrations, check the dashboards, and finally archive the reports',
      ).at(-1),
    ).toContain('archive the reports');
  });

  it('keeps every word of an ask of a thousand pieces, in four clauses, the shortest neighbours merged first', () => {
    // Counted once a piece (an 8,000-character ask of 1,400 pieces took 7-10 s when every merge counted its neighbours again).
    const ask = Array.from({ length: 700 }, (_, i) =>
      i % 7 === 0 ? `rotate the key ${i} and page operator ${i}` : `flush cache ${i}`,
    ).join(', ');
    const clauses = splitClauses(ask);
    expect(clauses).toHaveLength(4);
    // Every word but the "and"s it split at.
    const words = (text: string) =>
      text
        .replace(/,/g, '')
        .split(/\s+/)
        .filter((w) => w !== 'and');
    expect(words(clauses.join(' '))).toEqual(words(ask));
    expect(splitClauses('漢字 漢字,'.repeat(800))).toHaveLength(4);
  });
});
