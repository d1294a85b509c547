// Splitting a multi-part ask into its concerns (search/clauses.ts).
import { describe, expect, it } from 'vitest';
import { splitClauses } from '../../src/search/clauses.js';

describe('splitClauses', () => {
  it('splits concerns joined by commas and conjunctions', () => {
    expect(splitClauses('add a per-tenant ingestion limit, let tenants change it through the overrides API, and document it in the reference')).toEqual([
      'add a per-tenant ingestion limit', 'let tenants change it through the overrides API', 'document it in the reference',
    ]);
    expect(splitClauses('put the validator behind sentry nodes and move its key into a remote signer')).toEqual([
      'put the validator behind sentry nodes', 'move its key into a remote signer',
    ]);
  });

  it('keeps a single concern whole', () => {
    expect(splitClauses('make the mempool hand out transactions by priority')).toEqual([]);
    expect(splitClauses('refunds')).toEqual([]);
  });

  it('joins a piece too short to stand to its neighbour', () => {
    // "document it" is one index term: it stays with the clause before it.
    expect(splitClauses('add a limit per tenant and document it')).toEqual([]);
    expect(splitClauses('add a limit per tenant, expose it in the exporter and document it')).toEqual(['add a limit per tenant', 'expose it in the exporter document it']);
    expect(splitClauses('first, rotate the signing key; then restart the node')).toEqual(['first rotate the signing key', 'restart the node']);
  });

  it('searches at most four clauses', () => {
    expect(splitClauses('rotate keys, flush caches, drain nodes, rebuild indexes, restart workers, page operators')).toHaveLength(4);
  });
});
