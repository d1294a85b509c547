// The brief's cap on connector sources (src/brief/connector-cap.ts): at most ten background items
// per source, in fused order; what changed since `since` (in motion) and non-connector records
// are never capped.
import { describe, expect, it } from 'vitest';
import { capConnectorSources, CONNECTOR_PER_SOURCE } from '../../src/brief/connector-cap.js';
import type { CandidateRow } from '../../src/retrieval/candidates.js';

const since = new Date('2026-11-24T00:00:00Z');
const old = new Date('2026-11-01T00:00:00Z');
const fresh = new Date('2026-11-30T00:00:00Z');

function row(id: string, kind: string | undefined, updated: Date): CandidateRow {
  return {
    id,
    node_type: 'reference',
    lifecycle: 'active',
    title: id,
    prose: '',
    body: kind ? { source_kind: kind } : {},
    pagerank: 0,
    version: 1,
    updated_at: updated,
    collection: 'c',
    template: 'documentation',
  };
}

describe('capConnectorSources', () => {
  it('keeps the first ten unchanged items of each source, every changed one, and every record', () => {
    const rows = new Map<string, CandidateRow>();
    const ids: string[] = [];
    const add = (r: CandidateRow) => (rows.set(r.id, r), ids.push(r.id));
    for (let i = 0; i < 15; i++) add(row(`slack-old-${i}`, 'slack', old));
    for (let i = 0; i < 4; i++) add(row(`slack-new-${i}`, 'slack', fresh));
    for (let i = 0; i < 12; i++) add(row(`gh-old-${i}`, 'github', old));
    for (let i = 0; i < 12; i++) add(row(`doc-${i}`, 'doc', old));
    for (let i = 0; i < 3; i++) add(row(`rec-${i}`, undefined, old));
    const kept = capConnectorSources(ids, rows, since);
    expect(kept.filter((id) => id.startsWith('slack-old-'))).toEqual(
      Array.from({ length: CONNECTOR_PER_SOURCE }, (_, i) => `slack-old-${i}`),
    );
    expect(kept.filter((id) => id.startsWith('slack-new-'))).toHaveLength(4);
    expect(kept.filter((id) => id.startsWith('gh-old-'))).toHaveLength(CONNECTOR_PER_SOURCE);
    expect(kept.filter((id) => id.startsWith('doc-'))).toHaveLength(12);
    expect(kept.filter((id) => id.startsWith('rec-'))).toHaveLength(3);
    // Order is kept.
    expect(kept).toEqual(ids.filter((id) => kept.includes(id)));
  });
});
