// The environment of a team's own model servers (DOCO_EMBED_SERVER_*, DOCO_RERANK_SERVER_*): an
// OpenAI-compatible embeddings endpoint and a rerank endpoint of the Cohere/Jina shape, as
// docs/models.md describes. Parsed with the rest of the environment by src/config/environment.ts.
// Defaults are applied here, not in the schema, so a setting without its URL can be refused.
import * as v from 'valibot';
import { httpUrl } from './http-url.js';

export interface EmbedServerConfig {
  /** The full endpoint, ending in /embeddings (see embeddingsEndpoint). */
  url: string;
  model: string;
  dimensions: number;
  apiKey: string | undefined;
  batchSize: number;
  timeoutMs: number;
  /** Put before every query's or document's text (some models are trained with such prefixes). */
  queryPrefix: string;
  documentPrefix: string;
}

export interface RerankServerConfig {
  /** The full endpoint, ending in /rerank (see rerankEndpoint). */
  url: string;
  /** Sent as `model` when set; a server that serves one model may not need it. */
  model: string | undefined;
  apiKey: string | undefined;
  timeoutMs: number;
}

const text = v.pipe(v.string(), v.minLength(1));
const whole = (what: string, max: number) =>
  v.pipe(
    v.string(),
    v.regex(/^\d+$/, `must be a whole number of ${what}`),
    v.transform(Number),
    v.minValue(1, 'must be at least 1'),
    v.maxValue(max, `must be at most ${max}`),
  );

export const MODEL_SERVER_ENV = {
  DOCO_EMBED_SERVER_URL: v.optional(httpUrl),
  DOCO_EMBED_SERVER_MODEL: v.optional(text),
  DOCO_EMBED_SERVER_DIMENSIONS: v.optional(whole('dimensions', 65_536)),
  // Secrets: any text, so a config error never quotes one back.
  DOCO_EMBED_SERVER_API_KEY: v.optional(v.string()),
  DOCO_EMBED_SERVER_BATCH_SIZE: v.optional(whole('texts', 4096)),
  DOCO_EMBED_SERVER_TIMEOUT_MS: v.optional(whole('milliseconds', 600_000)),
  DOCO_EMBED_SERVER_QUERY_PREFIX: v.optional(v.string()),
  DOCO_EMBED_SERVER_DOCUMENT_PREFIX: v.optional(v.string()),
  DOCO_RERANK_SERVER_URL: v.optional(httpUrl),
  DOCO_RERANK_SERVER_MODEL: v.optional(text),
  DOCO_RERANK_SERVER_API_KEY: v.optional(v.string()),
  DOCO_RERANK_SERVER_TIMEOUT_MS: v.optional(whole('milliseconds', 600_000)),
};

type ModelServerEnv = v.InferOutput<v.ObjectSchema<typeof MODEL_SERVER_ENV, undefined>>;

/** Texts per request: Text Embeddings Inference refuses more than 32 by default (--max-client-batch-size). */
export const DEFAULT_EMBED_BATCH = 32;
/** A first request may wait while the server loads the model (Ollama does so on demand). */
export const DEFAULT_EMBED_TIMEOUT_MS = 60_000;
/** A brief is waiting; its deadline cuts the rerank sooner anyway. */
export const DEFAULT_RERANK_TIMEOUT_MS = 10_000;

/**
 * The embeddings endpoint a URL names: one whose path ends in /embeddings is used as given; one
 * ending in /v1 gets /embeddings; any other (a bare origin) gets /v1/embeddings.
 * @example embeddingsEndpoint('http://127.0.0.1:11434') // 'http://127.0.0.1:11434/v1/embeddings'
 */
export function embeddingsEndpoint(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  if (/\/embeddings$/.test(trimmed)) return trimmed;
  return /\/v1$/.test(trimmed) ? `${trimmed}/embeddings` : `${trimmed}/v1/embeddings`;
}

/**
 * The rerank endpoint a URL names: one whose path ends in /rerank is used as given; any other
 * gets /rerank (so a server at /v1/rerank is named by its full URL or by …/v1).
 * @example rerankEndpoint('http://127.0.0.1:8080/v1') // 'http://127.0.0.1:8080/v1/rerank'
 */
export function rerankEndpoint(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return /\/rerank$/.test(trimmed) ? trimmed : `${trimmed}/rerank`;
}

/** Names of the variables in `e` that are set, among those matching `pattern` but for `except`. */
const setAmong = (e: ModelServerEnv, pattern: RegExp, except: string) =>
  Object.keys(e).filter((k) => k !== except && pattern.test(k) && e[k as keyof ModelServerEnv] !== undefined);

const nothingUses = (names: string[], url: string) =>
  `${names.join(', ')}: set without ${url}, so nothing would use ${names.length > 1 ? 'them' : 'it'}`;

/** The servers' config, or the problems (one sentence each) that rule it out. */
export function modelServersFrom(e: ModelServerEnv): {
  embed: EmbedServerConfig | undefined;
  rerank: RerankServerConfig | undefined;
  problems: string[];
} {
  const problems: string[] = [];
  let embed: EmbedServerConfig | undefined;
  let rerank: RerankServerConfig | undefined;
  if (!e.DOCO_EMBED_SERVER_URL) {
    const stray = setAmong(e, /^DOCO_EMBED_SERVER_/, 'DOCO_EMBED_SERVER_URL');
    if (stray.length) problems.push(nothingUses(stray, 'DOCO_EMBED_SERVER_URL'));
  } else {
    if (!e.DOCO_EMBED_SERVER_MODEL)
      problems.push(
        `DOCO_EMBED_SERVER_MODEL: required with DOCO_EMBED_SERVER_URL — the model name the server serves, such as nomic-embed-text (DOCO_EMBED_MODEL is Voyage's)`,
      );
    if (!e.DOCO_EMBED_SERVER_DIMENSIONS)
      problems.push(
        'DOCO_EMBED_SERVER_DIMENSIONS: required with DOCO_EMBED_SERVER_URL — the length of the vectors the model makes, such as 768 for nomic-embed-text',
      );
    if (e.DOCO_EMBED_SERVER_MODEL && e.DOCO_EMBED_SERVER_DIMENSIONS)
      embed = {
        url: embeddingsEndpoint(e.DOCO_EMBED_SERVER_URL),
        model: e.DOCO_EMBED_SERVER_MODEL,
        dimensions: e.DOCO_EMBED_SERVER_DIMENSIONS,
        apiKey: e.DOCO_EMBED_SERVER_API_KEY || undefined,
        batchSize: e.DOCO_EMBED_SERVER_BATCH_SIZE ?? DEFAULT_EMBED_BATCH,
        timeoutMs: e.DOCO_EMBED_SERVER_TIMEOUT_MS ?? DEFAULT_EMBED_TIMEOUT_MS,
        queryPrefix: e.DOCO_EMBED_SERVER_QUERY_PREFIX ?? '',
        documentPrefix: e.DOCO_EMBED_SERVER_DOCUMENT_PREFIX ?? '',
      };
  }
  if (!e.DOCO_RERANK_SERVER_URL) {
    const stray = setAmong(e, /^DOCO_RERANK_SERVER_/, 'DOCO_RERANK_SERVER_URL');
    if (stray.length) problems.push(nothingUses(stray, 'DOCO_RERANK_SERVER_URL'));
  } else {
    rerank = {
      url: rerankEndpoint(e.DOCO_RERANK_SERVER_URL),
      model: e.DOCO_RERANK_SERVER_MODEL,
      apiKey: e.DOCO_RERANK_SERVER_API_KEY || undefined,
      timeoutMs: e.DOCO_RERANK_SERVER_TIMEOUT_MS ?? DEFAULT_RERANK_TIMEOUT_MS,
    };
  }
  return { embed, rerank, problems };
}
