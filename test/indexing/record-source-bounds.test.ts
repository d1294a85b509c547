// What of a record's body heads its chunks is bounded, whoever wrote the body: a capture's 240 KB
// `heading_path` headed each of its 87 chunks (20 MB of chunk text from one record), and 120 such
// captures from an agent's token ran the drain out of memory at every start (a hostile review).
import { describe, expect, it } from 'vitest';
import { chunkSource } from '../../src/indexing/chunker.js';
import { recordChunkSource, type IndexableNode } from '../../src/indexing/record-source.js';

const node = (body: Record<string, unknown>): IndexableNode => ({
  id: 'reference_x',
  workspace_id: 'ws',
  collection_id: 'col',
  node_type: 'reference',
  title: 'Refunds',
  prose: 'Refunds go back to the card the customer paid with. '.repeat(2000),
  body,
});

describe('recordChunkSource', () => {
  it('takes six headings of 300 characters at most, and 500 characters of the pointer path', () => {
    const huge = 'h'.repeat(40_000);
    const source = recordChunkSource(node({ heading_path: Array(20).fill(huge), pointer: { path: `docs/${'p'.repeat(100_000)}.md` } }));
    expect(source.headingPath).toHaveLength(6);
    expect(source.headingPath.every((h) => h.length === 300)).toBe(true);
    expect(source.context!.length).toBeLessThanOrEqual(500);
    const chunks = chunkSource(source, 'test-embedder');
    const prose = node({}).prose.length;
    // Every chunk's text and its embedding input: the prose once, plus a bounded header on each.
    const total = chunks.reduce((n, c) => n + c.text.length + c.embedInput.length, 0);
    expect(total).toBeLessThan(prose * 2 + chunks.length * 2_500);
  });

  it("keeps a doc section's headings as they are", () => {
    expect(recordChunkSource(node({ heading_path: ['Money', 'Rounding'] })).headingPath).toEqual(['Money', 'Rounding']);
  });
});
