// DOCO_EMBED_SERVER_* and DOCO_RERANK_SERVER_* in the environment: off without their URL, the
// endpoint built from a base URL or taken whole, defaults, one clear sentence per bad value, and
// the providers from-config.ts picks for them (before Voyage, port by port).
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/environment.js';
import { configProblems } from '../helpers/config.js';
import { embeddingsEndpoint } from '../../src/config/model-servers.js';
import { makeSearchProviders } from '../../src/providers/from-config.js';
import { makeLog } from '../../src/lib/log.js';

const problems = configProblems;

const OLLAMA = {
  DOCO_EMBED_SERVER_URL: 'http://127.0.0.1:11434',
  DOCO_EMBED_SERVER_MODEL: 'nomic-embed-text',
  DOCO_EMBED_SERVER_DIMENSIONS: '768',
};

describe('the model servers in the environment', () => {
  it('are off without their URLs', () => {
    const c = loadConfig({});
    expect(c.embedServer).toBeUndefined();
    expect(c.rerankServer).toBeUndefined();
  });

  it('build the endpoints from a base URL or take them whole, with the defaults', () => {
    expect(loadConfig(OLLAMA).embedServer).toEqual({
      url: 'http://127.0.0.1:11434/v1/embeddings',
      model: 'nomic-embed-text',
      dimensions: 768,
      apiKey: undefined,
      batchSize: 32,
      timeoutMs: 60_000,
      queryPrefix: '',
      documentPrefix: '',
    });
    expect(embeddingsEndpoint('http://gpu-box:8080/v1/')).toBe('http://gpu-box:8080/v1/embeddings');
    expect(embeddingsEndpoint('https://models.internal/tei/v1/embeddings')).toBe('https://models.internal/tei/v1/embeddings');
    const c = loadConfig({
      ...OLLAMA,
      DOCO_EMBED_SERVER_API_KEY: 'sk-team',
      DOCO_EMBED_SERVER_BATCH_SIZE: '8',
      DOCO_EMBED_SERVER_TIMEOUT_MS: '5000',
      DOCO_EMBED_SERVER_QUERY_PREFIX: 'search_query: ',
      DOCO_EMBED_SERVER_DOCUMENT_PREFIX: 'search_document: ',
      DOCO_RERANK_SERVER_URL: 'http://127.0.0.1:8081/v1',
      DOCO_RERANK_SERVER_MODEL: 'bge-reranker-v2-m3',
      DOCO_RERANK_SERVER_API_KEY: 'sk-rerank',
    });
    expect(c.embedServer).toMatchObject({
      apiKey: 'sk-team',
      batchSize: 8,
      timeoutMs: 5000,
      queryPrefix: 'search_query: ',
      documentPrefix: 'search_document: ',
    });
    expect(c.rerankServer).toEqual({
      url: 'http://127.0.0.1:8081/v1/rerank',
      model: 'bge-reranker-v2-m3',
      apiKey: 'sk-rerank',
      timeoutMs: 10_000,
    });
  });

  it('say, one line each, what is missing or wrong', () => {
    expect(problems({ DOCO_EMBED_SERVER_URL: 'http://127.0.0.1:11434' })).toEqual([
      "DOCO_EMBED_SERVER_MODEL: required with DOCO_EMBED_SERVER_URL — the model name the server serves, such as nomic-embed-text (DOCO_EMBED_MODEL is Voyage's)",
      'DOCO_EMBED_SERVER_DIMENSIONS: required with DOCO_EMBED_SERVER_URL — the length of the vectors the model makes, such as 768 for nomic-embed-text',
    ]);
    expect(problems({ ...OLLAMA, DOCO_EMBED_SERVER_URL: 'localhost:11434' })).toEqual([
      'DOCO_EMBED_SERVER_URL: must be an http:// or https:// URL (got "localhost:11434")',
    ]);
    expect(problems({ ...OLLAMA, DOCO_EMBED_SERVER_URL: 'ftp://models.internal' })).toEqual([
      'DOCO_EMBED_SERVER_URL: must be an http:// or https:// URL (got "ftp://models.internal")',
    ]);
    expect(problems({ ...OLLAMA, DOCO_EMBED_SERVER_DIMENSIONS: 'large' })).toEqual([
      'DOCO_EMBED_SERVER_DIMENSIONS: must be a whole number of dimensions (got "large")',
    ]);
    expect(problems({ ...OLLAMA, DOCO_EMBED_SERVER_BATCH_SIZE: '0' })).toEqual([
      'DOCO_EMBED_SERVER_BATCH_SIZE: must be at least 1 (got "0")',
    ]);
    expect(problems({ DOCO_RERANK_SERVER_URL: 'http://127.0.0.1:7997', DOCO_RERANK_SERVER_TIMEOUT_MS: '2s' })).toEqual([
      'DOCO_RERANK_SERVER_TIMEOUT_MS: must be a whole number of milliseconds (got "2s")',
    ]);
  });

  it('refuse a setting without its URL, never quoting a key', () => {
    expect(problems({ DOCO_EMBED_SERVER_MODEL: 'nomic-embed-text', DOCO_EMBED_SERVER_API_KEY: 'sk-secret-value' })).toEqual([
      'DOCO_EMBED_SERVER_MODEL, DOCO_EMBED_SERVER_API_KEY: set without DOCO_EMBED_SERVER_URL, so nothing would use them',
    ]);
    expect(problems({ DOCO_RERANK_SERVER_MODEL: 'bge-reranker-base' })).toEqual([
      'DOCO_RERANK_SERVER_MODEL: set without DOCO_RERANK_SERVER_URL, so nothing would use it',
    ]);
  });
});

describe('the providers for them', () => {
  const log = makeLog('silent');

  it('embed and rerank on the servers when named, before Voyage', async () => {
    const p = await makeSearchProviders(
      loadConfig({ ...OLLAMA, DOCO_RERANK_SERVER_URL: 'http://127.0.0.1:7997', VOYAGE_API_KEY: 'pa-test', DOCO_HOME: '/tmp/doco-none' }),
      log,
    );
    expect(p.embedder.identity).toBe('openai-compatible/127.0.0.1:11434/nomic-embed-text/768');
    expect(p.embedder.dimensions).toBe(768);
    expect(p.reranker.name).toBe('rerank-server:127.0.0.1:7997');
  });

  it('leave the other port to Voyage, or to the local default', async () => {
    const withVoyage = await makeSearchProviders(loadConfig({ ...OLLAMA, VOYAGE_API_KEY: 'pa-test', DOCO_HOME: '/tmp/doco-none' }), log);
    expect(withVoyage.reranker.name).toBe('voyage:rerank-2.5');
    const rerankOnly = await makeSearchProviders(
      loadConfig({ DOCO_RERANK_SERVER_URL: 'http://127.0.0.1:7997/rerank', DOCO_HOME: '/tmp/doco-none' }),
      log,
    );
    expect(rerankOnly.embedder.identity).toMatch(/^local-hash-v1\//);
    expect(rerankOnly.reranker.name).toBe('rerank-server:127.0.0.1:7997');
  });
});
