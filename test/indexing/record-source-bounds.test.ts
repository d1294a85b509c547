// What of a record's body heads its chunks is bounded, whoever wrote the body: a capture's 240 KB
// `heading_path` headed each of its 87 chunks (20 MB of chunk text from one record), and 120 such
// captures from an agent's token ran the drain out of memory at every start (a hostile review).
import { describe, expect, it } from 'vitest';
import { chunkSource } from '../../src/indexing/chunker.js';
import { recordChunkSource, type IndexableNode } from '../../src/indexing/record-source.js';
import { pointsOf } from '../../src/indexing/stored-chunk.js';
import { localEmbedder } from '../../src/providers/local-embedder.js';

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

  it("renders a list nested 28 deep as one level of items, and cuts a body's text at 300,000 characters", () => {
    // 28 lists deep, ~131k leaves: 256 KiB as JSON, which a mark per level made 8.1 M characters and 5,956 chunks.
    let deep: unknown = Array.from({ length: 131_000 }, () => 1);
    for (let i = 0; i < 27; i++) deep = [deep];
    const json = JSON.stringify({ notes: deep }).length;
    expect(json).toBeGreaterThan(250_000);
    const body = recordChunkSource({ ...node({ notes: deep }), prose: '' }).body;
    expect(body.startsWith('Notes: - 1\n- 1\n')).toBe(true);
    expect(body.length).toBeLessThanOrEqual(json * 2);
    // Items that are long text: the cut.
    const long = recordChunkSource({ ...node({ notes: Array.from({ length: 200 }, () => 'n'.repeat(1_290)) }), prose: '' }).body;
    expect(long.length).toBeLessThanOrEqual(300_000);
    // A decision's alternatives read as before: one item a line.
    expect(recordChunkSource({ ...node({ alternatives: ['Store credit', 'Bank transfer'] }), prose: 'P.' }).body).toBe(
      'P.\n\nAlternatives: - Store credit\n- Bank transfer',
    );
  });

  it('gives a point rebuilt from doco.chunks the same path words as the drain gave it', async () => {
    const path = `docs/${'segment/'.repeat(30_000)}refunds.md`;
    const source = recordChunkSource(node({ pointer: { path } }));
    const [chunk] = chunkSource(source, 'test-embedder');
    const embedder = localEmbedder();
    const pointWith = async (pointerPath: string) =>
      (
        await pointsOf(embedder, [
          {
            id: '00000000-0000-0000-0000-000000000001',
            workspace_id: 'ws',
            collection_id: 'col',
            node_id: 'reference_x',
            node_type: 'reference',
            shape: '',
            source_kind: 'record',
            embed_input: chunk!.embedInput,
            body: chunk!.text,
            path: pointerPath,
          },
        ])
      )[0];
    const [rebuilt, drained] = [await pointWith(path), await pointWith(path.slice(0, 500))];
    expect(rebuilt!.terms).toEqual(drained!.terms);
    expect(source.context!.length).toBeLessThanOrEqual(500);
  });
});
