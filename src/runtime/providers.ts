// Picks each provider port's implementation from the configuration: hosted when its key is
// set, the local default otherwise.
import path from 'node:path';
import type { Config } from '../config.js';
import { anthropicJudge, noJudge, type PolicyJudge } from '../providers/judge.js';
import { anthropicSynthesizer } from '../providers/anthropic-synthesizer.js';
import type { Embedder } from '../providers/embedder.js';
import { localEmbedder } from '../providers/local-embedder.js';
import { localReranker } from '../providers/local-reranker.js';
import { localSynthesizer } from '../providers/local-synthesizer.js';
import type { Reranker } from '../providers/reranker.js';
import type { Synthesizer } from '../providers/synthesizer.js';
import { voyageEmbedder } from '../providers/voyage-embedder.js';
import { voyageReranker } from '../providers/voyage-reranker.js';
import { embeddedStore } from '../search/embedded-store.js';
import { qdrantStore } from '../search/qdrant-store.js';
import type { VectorStore } from '../search/vector-store.js';

export function makeJudge(config: Config): PolicyJudge {
  return config.anthropic ? anthropicJudge(config.anthropic) : noJudge;
}

export interface SearchProviders {
  embedder: Embedder;
  store: VectorStore;
  reranker: Reranker;
  synthesizer: Synthesizer;
}

export function makeSearchProviders(config: Config): SearchProviders {
  const { voyage, anthropic, qdrant } = config;
  return {
    embedder: voyage ? voyageEmbedder({ apiKey: voyage.apiKey, baseUrl: voyage.baseUrl, model: voyage.embedModel }) : localEmbedder(),
    store: qdrant ? qdrantStore({ url: qdrant.url, ...(qdrant.apiKey ? { apiKey: qdrant.apiKey } : {}) }) : embeddedStore({ dir: path.join(config.home, 'index') }),
    reranker: voyage ? voyageReranker({ apiKey: voyage.apiKey, baseUrl: voyage.baseUrl, model: voyage.rerankModel }) : localReranker(),
    synthesizer: anthropic
      ? anthropicSynthesizer({ apiKey: anthropic.apiKey, ...(anthropic.baseURL ? { baseURL: anthropic.baseURL } : {}), model: config.synthesisModel, timeoutMs: anthropic.timeoutMs })
      : localSynthesizer(),
  };
}
