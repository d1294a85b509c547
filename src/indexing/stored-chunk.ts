// A chunk row as Postgres holds it, and its point for the vector store once embedded: shared by
// the start-up catch-up and the drain's repair sweep, which both rebuild points from doco.chunks.
import type { Embedder } from '../providers/embedder.js';
import { embedPoints } from './chunk-points.js';
import { pointerPathWords } from './record-source.js';
import type { ChunkPoint } from '../providers/vector/port.js';

export interface StoredChunk {
  id: string;
  workspace_id: string;
  collection_id: string;
  node_id: string;
  node_type: string;
  shape: string;
  source_kind: string;
  embed_input: string;
  /** The chunk's own text (doco.chunks.body), to tell its header from the rest of embed_input. */
  body: string;
  /** Its record's pointer path (doco.nodes.body), whose words BM25 reads with the header; null for none. */
  path: string | null;
}

/** Embeds the chunks' inputs (as documents) and makes their points. */
export async function pointsOf(embedder: Embedder, chunks: StoredChunk[]): Promise<ChunkPoint[]> {
  return embedPoints(
    embedder,
    chunks.map((c) => ({
      payload: {
        id: c.id,
        tenant: c.workspace_id,
        collectionId: c.collection_id,
        nodeId: c.node_id,
        nodeType: c.node_type,
        shape: c.shape,
        sourceKind: c.source_kind,
      },
      embedInput: c.embed_input,
      text: c.body,
      context: pointerPathWords(c.path),
    })),
  );
}
