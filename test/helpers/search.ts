// Local search providers for tests: the model-free embedder, an in-memory embedded store, the
// lexical reranker and the extractive synthesizer — the embedded defaults, minus the disk.
import { localEmbedder } from '../../src/providers/local-embedder.js';
import { localReranker } from '../../src/providers/local-reranker.js';
import { localSynthesizer } from '../../src/providers/local-synthesizer.js';
import type { SearchProviders } from '../../src/providers/from-config.js';
import { embeddedStore } from '../../src/providers/vector/embedded/store.js';
import { drainOutbox, type DrainReport } from '../../src/indexing/drain.js';
import { makeLog } from '../../src/lib/log.js';
import type { Sql } from '../../src/db/connect.js';

export function localProviders(overrides: Partial<SearchProviders> = {}): SearchProviders {
  const embedder = overrides.embedder ?? localEmbedder();
  const store = overrides.store ?? embeddedStore();
  // The embedded store's init does no I/O: it is ready when the call returns.
  void store.init(embedder.identity, embedder.dimensions);
  return { embedder, store, reranker: overrides.reranker ?? localReranker(), synthesizer: overrides.synthesizer ?? localSynthesizer() };
}

/** Indexes everything the outbox holds, as the worker would. */
export function drainAll(sql: Sql, providers: SearchProviders): Promise<DrainReport> {
  return drainOutbox({ sql, embedder: providers.embedder, store: providers.store, log: makeLog('silent') });
}
