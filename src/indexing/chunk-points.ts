// A chunk's point for the vector store: its embedding and its BM25 fields, from one tokenizing
// of its embedding input that the embedder and the store's BM25 both read (the drain's, the
// start-up catch-up's and the repair sweep's points).
import { mapYielding } from '../lib/yield-often.js';
import { tokenize } from '../text/tokenize.js';
import { lexicalFields, lexicalTerms } from './chunker.js';
import type { Embedder } from '../providers/embedder.js';
import type { ChunkPoint } from '../providers/vector/port.js';

/** What a point carries besides its text, its BM25 fields and its vector. */
export type PointPayload = Omit<ChunkPoint, 'text' | 'header' | 'terms' | 'vector'>;

export interface ChunkToEmbed {
  payload: PointPayload;
  /** Exactly what the embedder is given (chunker.ts's Chunk.embedInput, doco.chunks.embed_input). */
  embedInput: string;
  /** The chunk's own text (Chunk.text, doco.chunks.body), to tell its header from the rest of embedInput. */
  text: string;
  /** The source's context words, which BM25 reads with the header ("" for none). */
  context: string;
}

/** Embeds the chunks (as documents) and makes their points, in order. */
export async function embedPoints(embedder: Embedder, chunks: ChunkToEmbed[]): Promise<ChunkPoint[]> {
  // In slices, as the embedder and the store do theirs, so `doco serve` keeps answering meanwhile.
  const terms = await mapYielding(chunks, (c) => tokenize(c.embedInput));
  const vectors = await embedder.embed(
    chunks.map((c) => c.embedInput),
    'document',
    undefined,
    terms,
  );
  return chunks.map((c, i) => ({
    ...c.payload,
    ...lexicalFields(c.embedInput, c.text, c.context),
    terms: lexicalTerms(terms[i]!, c.context),
    vector: vectors[i]!,
  }));
}
