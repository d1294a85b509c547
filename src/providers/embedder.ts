// The embedder port. An embedder's identity is part of every chunk's content hash, so a new
// embedder (or a new version of one) re-embeds everything, and vectors of different spaces are
// never mixed.
export type InputType = 'document' | 'query';

export interface Embedder {
  /** e.g. "local-hash-v1/512", "voyage/voyage-3.5/1024" or "openai-compatible/127.0.0.1:11434/nomic-embed-text/768": changes whenever vectors would. */
  readonly identity: string;
  readonly dimensions: number;
  /**
   * One L2-normalised vector per text, in order. Throws on failure (after its own retries).
   * `signal` ends a remote embedder's request and its waits (a brief's deadline); a local one may ignore it.
   * `terms` are each text's BM25 terms (tokenize(text)) when the caller holds them (the drain
   * tokenizes a chunk once for BM25 and this): an embedder that reads the same terms (the local
   * hashing ones) need not tokenize again; the others ignore them.
   */
  embed(texts: string[], inputType: InputType, signal?: AbortSignal, terms?: readonly (readonly string[])[]): Promise<Float32Array[]>;
}

/** Scales to unit length (a zero vector stays zero): the indexes compare by dot product. */
export function normalised(values: ArrayLike<number>): Float32Array {
  const v = Float32Array.from(values);
  let sum = 0;
  for (const x of v) sum += x * x;
  if (sum > 0) {
    const scale = 1 / Math.sqrt(sum);
    for (let i = 0; i < v.length; i++) v[i]! *= scale;
  }
  return v;
}
