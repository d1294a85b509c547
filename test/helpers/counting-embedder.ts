// A test embedder: the local embedder's vectors, with a count of the texts it embedded, an
// identity that can be changed (a "new embedder" without new vectors), and failures on demand
// (every call, or any call holding a text with a marker).
import type { Embedder, InputType } from '../../src/providers/embedder.js';
import { localEmbedder } from '../../src/providers/local-embedder.js';

export interface CountingEmbedder extends Embedder {
  identity: string;
  /** Texts embedded by calls that succeeded, as 'document'. */
  documents: number;
  /** Every text given to successful document calls, in order. */
  embedded: string[];
  /** Throw from every call with this message (undefined: do not). */
  failAll?: string;
  /** Throw from any call holding a text that includes this marker. */
  failOn?: string;
  /** Delay each call by this many milliseconds (lets concurrent drains overlap). */
  delayMs: number;
  reset(): void;
}

export function countingEmbedder(opts: { identity?: string; dimensions?: number } = {}): CountingEmbedder {
  const inner = localEmbedder(opts.dimensions ? { dimensions: opts.dimensions } : {});
  const e: CountingEmbedder = {
    identity: opts.identity ?? inner.identity,
    dimensions: inner.dimensions,
    documents: 0,
    embedded: [],
    delayMs: 0,
    async embed(
      texts: string[],
      inputType: InputType,
      signal?: AbortSignal,
      terms?: readonly (readonly string[])[],
    ): Promise<Float32Array[]> {
      if (e.delayMs) await new Promise((r) => setTimeout(r, e.delayMs));
      if (e.failAll !== undefined) throw new Error(e.failAll);
      const marker = e.failOn;
      if (marker !== undefined && texts.some((t) => t.includes(marker))) throw new Error(`embedder refused a text containing ${marker}`);
      const vectors = await inner.embed(texts, inputType, signal, terms);
      if (inputType === 'document') {
        e.documents += texts.length;
        e.embedded.push(...texts);
      }
      return vectors;
    },
    reset() {
      e.documents = 0;
      e.embedded = [];
    },
  };
  return e;
}
