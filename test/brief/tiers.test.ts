// Which architecture principles stand as orders (brief/tiers.ts): those nearly as relevant as
// the best candidate, at most four, and never an ADR's sections that state no principle.
import { describe, expect, it } from 'vitest';
import { MAX_PRINCIPLES, placeInTiers } from '../../src/brief/tiers.js';
import type { CandidateMeta } from '../../src/retrieval/candidates.js';

const principle = (id: string, heading: string, parent?: string): CandidateMeta => ({
  id,
  node_type: 'reference',
  lifecycle: 'active',
  title: `ADR 042: State Sync — ${heading}`,
  body: {
    shape: 'architecturePrinciple',
    source_type: 'doc_expectation',
    pointer: { path: 'docs/architecture/adr-042.md', heading, section_key: `docs/architecture/adr-042.md#${id}` },
    heading_path: ['ADR 042: State Sync', ...(parent ? [parent] : [])],
  },
  pagerank: 0,
  version: 1,
  updated_at: new Date('2025-01-01T00:00:00Z'),
  collection: 'docs',
  template: 'docs',
});

const place = (rows: CandidateMeta[]) =>
  placeInTiers(
    rows.map((r) => r.id),
    new Map(rows.map((r) => [r.id, r])),
    new Map(rows.map((r) => [r.id, 1])),
    new Date('2026-01-01T00:00:00Z'),
  ).map((p) => [p.id, p.tier]);

describe('principles as orders', () => {
  it("leaves an ADR's status, changelog, references, starting point, rejected options, consequences and open questions below", () => {
    const rows = [
      principle('status', 'Status'),
      principle('changelog', 'Changelog'),
      principle('context', 'Context'),
      principle('current', 'Current Design'),
      principle('problem', 'Problem Statement'),
      principle('motivation', 'Motivation'),
      principle('alternatives', 'Alternative Approaches'),
      principle('positive', 'Positive', 'Consequences'),
      principle('open', 'Open Questions'),
      principle('refs', 'References'),
      principle('decision', 'Decision'),
    ];
    expect(place(rows)).toEqual([
      ['status', 'background'],
      ['changelog', 'background'],
      ['context', 'background'],
      ['current', 'background'],
      ['problem', 'background'],
      ['motivation', 'background'],
      ['alternatives', 'background'],
      ['positive', 'background'],
      ['open', 'background'],
      ['refs', 'background'],
      ['decision', 'must_obey'],
    ]);
  });

  it('gives the slots they would have taken to the principles after them, still four at most', () => {
    const rows = [
      principle('status', 'Status'),
      ...['Context', 'Decision', 'Detailed Design', 'Protocol', 'Migration', 'Appendix'].map((h) => principle(h, h)),
    ];
    const orders = place(rows).filter(([, tier]) => tier === 'must_obey');
    expect(orders).toHaveLength(MAX_PRINCIPLES);
    expect(orders.map(([id]) => id)).toEqual(['Decision', 'Detailed Design', 'Protocol', 'Migration']);
  });

  it("never lets an ADR that is not in force, nor a template or a folder's index, stand as an order", () => {
    const withStatus = (id: string, status: string) => {
      const row = principle(id, 'Decision');
      return { ...row, body: { ...row.body, adr_status: status } };
    };
    const template = principle('template', 'Decision');
    template.body = { ...template.body, pointer: { path: 'docs/architecture/adr-template.md', heading: 'Decision', section_key: 'x' } };
    const index = principle('index', 'Implemented');
    index.body = {
      ...index.body,
      pointer: { path: 'docs/architecture/tendermint-core/README.md', heading: 'Implemented', section_key: 'y' },
    };
    const rows = [
      withStatus('rejected', 'Rejected'),
      withStatus('superseded', 'Superseded by ADR 012'),
      withStatus('proposed', 'Proposed.'),
      withStatus('review', 'In Review'),
      template,
      index,
      withStatus('accepted', 'Accepted (tracked in #1)'),
      withStatus('implemented', 'Implemented'),
    ];
    expect(place(rows)).toEqual([
      ['rejected', 'background'],
      ['superseded', 'background'],
      ['proposed', 'background'],
      ['review', 'background'],
      ['template', 'background'],
      ['index', 'background'],
      ['accepted', 'must_obey'],
      ['implemented', 'must_obey'],
    ]);
  });
});
