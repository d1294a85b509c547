// The embedder port. An embedder's identity is part of every chunk's content hash, so a new
// embedder (or a new version of one) re-embeds everything, and vectors of different spaces are
// never mixed.
export type InputType = 'document' | 'query';

export interface Embedder {
  /** e.g. "local-hash-v1/512" or "voyage/voyage-3.5/1024": changes whenever vectors would. */
  readonly identity: string;
  readonly dimensions: number;
  /** One L2-normalised vector per text, in order. Throws on failure (after its own retries). */
  embed(texts: string[], inputType: InputType): Promise<Float32Array[]>;
}
