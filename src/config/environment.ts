// The environment, parsed once with valibot; one clear message per bad value.
import os from 'node:os';
import path from 'node:path';
import * as v from 'valibot';
import { NATS_ENV, natsConfigFrom, type NatsConfig } from './nats.js';
import { MODEL_SERVER_ENV, modelServersFrom, type EmbedServerConfig, type RerankServerConfig } from './model-servers.js';
import { httpUrl } from './http-url.js';
import { parsePackHosts, type PackHosts } from './pack-hosts.js';
import { chooseHome, homeProblem, type HomeChoice } from './home.js';
import { hookTimeoutProblem } from './hook-timeout.js';
import { CRASH_POINTS, type CrashPoint } from '../lib/crash-point.js';

const port = v.pipe(v.string(), v.transform(Number), v.integer('must be a whole number'), v.minValue(1), v.maxValue(65535));
const positiveMs = v.pipe(v.string(), v.transform(Number), v.integer('must be a whole number of milliseconds'), v.minValue(1));
// Checked as text first, so a bad value is quoted as written ("heavy", not NaN).
const positiveNumber = v.pipe(
  v.string(),
  v.regex(/^(\d+\.?\d*|\.\d+)$/, 'must be a positive number'),
  v.transform(Number),
  v.gtValue(0, 'must be above 0'),
);
const postgresUrl = v.pipe(v.string(), v.regex(/^postgres(ql)?:\/\//, 'must be a postgres:// connection string'));

/**
 * How long a stored brief is kept by default. Every hook call stores one (~5 kB at 1,500 tokens):
 * ten people's agents at ~300 hook calls a day each add ~5 GB a year. Ninety days outlasts a pull
 * request's review, where a commit trailer's link to its brief is read.
 */
export const BRIEFS_KEEP_DAYS = 90;

/** The workspace DOCO_WORKSPACE names when unset: a fresh home's, made by its first read or write. */
export const DEFAULT_WORKSPACE = 'default';

const EnvSchema = v.object({
  DATABASE_URL: v.optional(postgresUrl),
  DATABASE_READ_URL: v.optional(postgresUrl),
  DOCO_READ_MAX_LAG_MS: v.optional(positiveMs, '5000'),
  // Read by chooseHome (src/config/home.ts), which needs HOME and XDG_DATA_HOME beside it.
  DOCO_HOME: v.optional(v.pipe(v.string(), v.minLength(1))),
  DOCO_PORT: v.optional(port, '8787'),
  DOCO_HOST: v.optional(v.pipe(v.string(), v.minLength(1)), '127.0.0.1'),
  DOCO_PG_PORT: v.optional(port),
  DOCO_PG_SHARED_BUFFERS: v.optional(
    v.pipe(v.string(), v.regex(/^[1-9]\d{0,6}(kB|MB|GB)$/, 'must be an amount of memory as Postgres writes it, e.g. 512MB or 1GB')),
  ),
  DOCO_URL: v.optional(httpUrl),
  DOCO_PUBLIC_URL: v.optional(httpUrl),
  DOCO_WORKSPACE: v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be a workspace slug')), DEFAULT_WORKSPACE),
  ANTHROPIC_API_KEY: v.optional(v.pipe(v.string(), v.minLength(1))),
  ANTHROPIC_BASE_URL: v.optional(httpUrl),
  DOCO_JUDGE_MODEL: v.optional(v.pipe(v.string(), v.minLength(1)), 'claude-haiku-4-5'),
  DOCO_JUDGE_TIMEOUT_MS: v.optional(positiveMs, '10000'),
  // Read by `doco hook` alone, which fails open on a bad one (src/config/hook-timeout.ts); refused here as any bad value is.
  DOCO_HOOK_TIMEOUT_MS: v.optional(
    v.pipe(
      v.string(),
      v.check(
        (text) => hookTimeoutProblem(text) === undefined,
        (issue) => hookTimeoutProblem(issue.input) ?? 'is not a timeout',
      ),
    ),
  ),
  DOCO_LOG_LEVEL: v.optional(v.picklist(['debug', 'info', 'warn', 'error', 'silent']), 'info'),
  VOYAGE_API_KEY: v.optional(v.pipe(v.string(), v.minLength(1))),
  VOYAGE_BASE_URL: v.optional(httpUrl),
  DOCO_EMBED_MODEL: v.optional(v.pipe(v.string(), v.minLength(1)), 'voyage-3.5'),
  DOCO_RERANK_MODEL: v.optional(v.pipe(v.string(), v.minLength(1)), 'rerank-2.5'),
  DOCO_SYNTHESIS_MODEL: v.optional(v.pipe(v.string(), v.minLength(1)), 'claude-haiku-4-5'),
  QDRANT_URL: v.optional(httpUrl),
  QDRANT_API_KEY: v.optional(v.pipe(v.string(), v.minLength(1))),
  DOCO_DOCS_ROOT: v.optional(v.pipe(v.string(), v.minLength(1))),
  // Checked entry by entry in parsePackHosts, one sentence per bad entry.
  DOCO_PACK_HOSTS: v.optional(v.string()),
  DOCO_CACHE_DIR: v.optional(v.pipe(v.string(), v.minLength(1))),
  DOCO_LOCAL_EMBEDDER: v.optional(v.picklist(['hash', 'hash+glove'], 'must be hash or hash+glove'), 'hash'),
  DOCO_GLOVE_WEIGHT: v.optional(positiveNumber, '1'),
  DOCO_SCAN_THREADS: v.optional(
    v.pipe(v.string(), v.regex(/^\d{1,2}$/, 'must be a whole number of threads (0: scan in the main thread)'), v.transform(Number)),
  ),
  GITHUB_APP_ID: v.optional(
    v.pipe(v.string(), v.regex(/^([1-9][0-9]{0,18}|Iv[0-9A-Za-z.]{1,40})$/, 'must be the GitHub App id (a number) or its client id')),
  ),
  GITHUB_API_URL: v.optional(httpUrl, 'https://api.github.com'),
  GITHUB_APP_PRIVATE_KEY_FILE: v.optional(v.pipe(v.string(), v.minLength(1))),
  // Secrets: any non-empty text, so a bad value is never quoted back by a config error.
  GITHUB_APP_PRIVATE_KEY: v.optional(v.string()),
  GITHUB_WEBHOOK_SECRET: v.optional(v.string()),
  GITHUB_WEBHOOK_SECRET_FILE: v.optional(v.pipe(v.string(), v.minLength(1))),
  NOTION_TOKEN: v.optional(v.string()),
  NOTION_API_URL: v.optional(httpUrl, 'https://api.notion.com'),
  NOTION_REQUESTS_PER_SECOND: v.optional(positiveNumber, '3'),
  GOOGLE_SERVICE_ACCOUNT_FILE: v.optional(v.pipe(v.string(), v.minLength(1))),
  GOOGLE_ACCESS_TOKEN: v.optional(v.string()),
  GOOGLE_API_URL: v.optional(httpUrl, 'https://www.googleapis.com'),
  GOOGLE_OAUTH_TOKEN_URL: v.optional(httpUrl, 'https://oauth2.googleapis.com/token'),
  SLACK_API_URL: v.optional(httpUrl, 'https://slack.com/api'),
  SLACK_BOT_TOKEN: v.optional(v.string()),
  SLACK_BOT_TOKEN_FILE: v.optional(v.pipe(v.string(), v.minLength(1))),
  SLACK_SIGNING_SECRET: v.optional(v.string()),
  SLACK_SIGNING_SECRET_FILE: v.optional(v.pipe(v.string(), v.minLength(1))),
  DOCO_BRIEFS_KEEP_DAYS: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,5}$/, 'must be a whole number of days (0: keep every brief)'),
      v.transform(Number),
      v.maxValue(36_500, 'must be at most 36500 days (0: keep every brief)'),
    ),
    String(BRIEFS_KEEP_DAYS),
  ),
  DOCO_TEST_CRASH_AT: v.optional(v.picklist(CRASH_POINTS, `must be one of ${CRASH_POINTS.join(', ')}`)),
  ...NATS_ENV,
  ...MODEL_SERVER_ENV,
});

export interface Config {
  databaseUrl: string | undefined;
  /** DATABASE_READ_URL, a streaming replica of DATABASE_URL, and DOCO_READ_MAX_LAG_MS (docs/replica.md). */
  readReplica: { url: string; maxLagMs: number } | undefined;
  /** DOCO_HOME, or $XDG_DATA_HOME/doco (src/config/home.ts). */
  home: string;
  homeSource: HomeChoice['source'];
  /** A ./.doco holding a database that was not used (src/config/home.ts): a notice names it. */
  homePassedOver: string | undefined;
  port: number;
  host: string;
  pgPort: number | undefined;
  /** The embedded cluster's shared_buffers when set; else a share of the machine's memory (src/db/shared-buffers.ts). */
  pgSharedBuffers: string | undefined;
  serverUrl: string | undefined;
  /** DOCO_PUBLIC_URL: where people and agents reach this server (behind a proxy); its Host is always answered. */
  publicUrl: string | undefined;
  workspace: string;
  anthropic: { apiKey: string; baseURL: string | undefined; model: string; timeoutMs: number } | undefined;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** Voyage (embeddings and rerank) when VOYAGE_API_KEY is set; baseUrl ends in /v1. */
  voyage: { apiKey: string; baseUrl: string; embedModel: string; rerankModel: string } | undefined;
  /**
   * A team's own embeddings endpoint (OpenAI-compatible, DOCO_EMBED_SERVER_*): the embedder when
   * set, before Voyage (src/config/model-servers.ts).
   */
  embedServer: EmbedServerConfig | undefined;
  /** A team's own rerank endpoint (Cohere/Jina shape, DOCO_RERANK_SERVER_*): the reranker when set, before Voyage. */
  rerankServer: RerankServerConfig | undefined;
  synthesisModel: string;
  qdrant: { url: string; apiKey: string | undefined } | undefined;
  /** The checkout the doc ingester walks by default; the worker's cron ingests it when set. */
  docsRoot: string | undefined;
  /**
   * DOCO_PACK_HOSTS: the hosts and ranges docs packs may be fetched from although the default
   * policy refuses their addresses (loopback, private, link-local, metadata); empty by default.
   */
  packHosts: PackHosts;
  /** Derived files worth keeping between runs (the converted word table): $DOCO_HOME/cache by default. */
  cacheDir: string;
  /** The embedder used when Voyage is not configured: hashing alone, or hashing + GloVe SIF scaled by gloveWeight. */
  localEmbedder: { kind: 'hash' } | { kind: 'hash+glove'; gloveWeight: number };
  /** Worker threads for the embedded index's dense scan: one per core up to 4 by default; 0 scans in the main thread. */
  scanThreads: number;
  /**
   * The GitHub connector. Secrets are held as where to read them (a file) or the value itself
   * (env); src/connectors/github/from-config.ts reads them, and nothing logs this object.
   */
  github: {
    apiUrl: string;
    appId: string | undefined;
    privateKey: { file: string } | { pem: string } | undefined;
    webhookSecret: SecretSource | undefined;
  };
  /** The Slack connector; its secrets held as for GitHub (src/connectors/slack/from-config.ts reads them). */
  slack: {
    apiUrl: string;
    botToken: SecretSource | undefined;
    signingSecret: SecretSource | undefined;
  };
  /** The Notion connector: the integration's token (never logged) and the pacing of its requests. */
  notion: { apiUrl: string; token: string | undefined; requestsPerSecond: number };
  /** The Drive connector: a service account's key file, or a ready access token (never logged). */
  drive: { apiUrl: string; tokenUrl: string; serviceAccountFile: string | undefined; accessToken: string | undefined };
  /** For the crash suite only: the moment this process kills itself (src/lib/crash-point.ts). */
  crashAt: CrashPoint | undefined;
  /** DOCO_BRIEFS_KEEP_DAYS: stored briefs older than this are deleted daily (briefs__prune); 0 keeps them all. */
  briefsKeepDays: number;
  /** The NATS docs-pack subscriber the worker runs, when DOCO_NATS_URL is set (src/config/nats.ts). */
  nats: NatsConfig | undefined;
}

/** A secret: where to read it, or the value itself. */
export type SecretSource = { file: string } | { value: string };

const secretSource = (file: string | undefined, value: string | undefined): SecretSource | undefined =>
  file ? { file: path.resolve(file) } : value ? { value } : undefined;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    // One bad value, one line; several, one line each under the first.
    super(
      problems.length === 1
        ? `invalid configuration: ${problems[0]}`
        : `invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`,
    );
    this.name = 'ConfigError';
  }
}

/**
 * A bad value as an error quotes it, but never a URL's user and password (DATABASE_URL holds
 * one). No credential's own variable can be refused: each takes any text it is set to.
 */
function shownValue(value: unknown): string {
  const text = typeof value === 'string' ? value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/i, '$1…@') : value;
  return `got ${JSON.stringify(text)}`;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const picked = Object.fromEntries(
    Object.keys(EnvSchema.entries).flatMap((k) => (env[k] === undefined || env[k] === '' ? [] : [[k, env[k]]])),
  );
  const parsed = v.safeParse(EnvSchema, picked);
  if (!parsed.success) {
    // One problem per variable: the first a value breaks (a word for a port fails three checks).
    const seen = new Set<string>();
    const firsts = parsed.issues.filter((i) => {
      const key = v.getDotPath(i) ?? '?';
      return seen.has(key) ? false : (seen.add(key), true);
    });
    throw new ConfigError(
      firsts.map((i) => {
        const key = v.getDotPath(i) ?? '?';
        return `${key}: ${i.message} (${shownValue(picked[key] ?? i.input)})`;
      }),
    );
  }
  const e = parsed.output;
  const nats = natsConfigFrom(e);
  const packHosts = parsePackHosts(e.DOCO_PACK_HOSTS);
  const servers = modelServersFrom(e);
  const problems = [...nats.problems, ...packHosts.problems, ...servers.problems];
  if (e.DATABASE_READ_URL && !e.DATABASE_URL) problems.push('DATABASE_READ_URL: needs DATABASE_URL, the primary it replicates');
  const home = chooseHome(env);
  const homeRefused = homeProblem(home.path);
  if (homeRefused) problems.push(`${home.source === 'env' ? 'DOCO_HOME' : 'the home'}: ${homeRefused}`);
  if (problems.length) throw new ConfigError(problems);
  return {
    databaseUrl: e.DATABASE_URL,
    readReplica: e.DATABASE_READ_URL ? { url: e.DATABASE_READ_URL, maxLagMs: e.DOCO_READ_MAX_LAG_MS } : undefined,
    home: home.path,
    homeSource: home.source,
    homePassedOver: home.passedOver,
    port: e.DOCO_PORT,
    host: e.DOCO_HOST,
    pgPort: e.DOCO_PG_PORT,
    pgSharedBuffers: e.DOCO_PG_SHARED_BUFFERS,
    serverUrl: e.DOCO_URL,
    publicUrl: e.DOCO_PUBLIC_URL,
    workspace: e.DOCO_WORKSPACE,
    anthropic: e.ANTHROPIC_API_KEY
      ? { apiKey: e.ANTHROPIC_API_KEY, baseURL: e.ANTHROPIC_BASE_URL, model: e.DOCO_JUDGE_MODEL, timeoutMs: e.DOCO_JUDGE_TIMEOUT_MS }
      : undefined,
    logLevel: e.DOCO_LOG_LEVEL,
    voyage: e.VOYAGE_API_KEY
      ? {
          apiKey: e.VOYAGE_API_KEY,
          baseUrl: withV1(e.VOYAGE_BASE_URL ?? 'https://api.voyageai.com'),
          embedModel: e.DOCO_EMBED_MODEL,
          rerankModel: e.DOCO_RERANK_MODEL,
        }
      : undefined,
    embedServer: servers.embed,
    rerankServer: servers.rerank,
    synthesisModel: e.DOCO_SYNTHESIS_MODEL,
    qdrant: e.QDRANT_URL ? { url: e.QDRANT_URL, apiKey: e.QDRANT_API_KEY } : undefined,
    docsRoot: e.DOCO_DOCS_ROOT ? path.resolve(e.DOCO_DOCS_ROOT) : undefined,
    packHosts: packHosts.hosts,
    cacheDir: path.resolve(e.DOCO_CACHE_DIR ?? path.join(home.path, 'cache')),
    localEmbedder: e.DOCO_LOCAL_EMBEDDER === 'hash+glove' ? { kind: 'hash+glove', gloveWeight: e.DOCO_GLOVE_WEIGHT } : { kind: 'hash' },
    // One core stays free for Postgres and this thread (BM25 and the SQL retrievers run while
    // the workers scan): on 2 cores one worker gave 100k p95 106 ms where two gave 126 ms.
    scanThreads: e.DOCO_SCAN_THREADS ?? Math.max(1, Math.min(4, os.availableParallelism() - 1)),
    github: {
      apiUrl: e.GITHUB_API_URL.replace(/\/+$/, ''),
      appId: e.GITHUB_APP_ID,
      privateKey: e.GITHUB_APP_PRIVATE_KEY_FILE
        ? { file: path.resolve(e.GITHUB_APP_PRIVATE_KEY_FILE) }
        : e.GITHUB_APP_PRIVATE_KEY
          ? { pem: e.GITHUB_APP_PRIVATE_KEY.replace(/\\n/g, '\n') }
          : undefined,
      webhookSecret: secretSource(e.GITHUB_WEBHOOK_SECRET_FILE, e.GITHUB_WEBHOOK_SECRET),
    },
    slack: {
      apiUrl: e.SLACK_API_URL.replace(/\/+$/, ''),
      botToken: secretSource(e.SLACK_BOT_TOKEN_FILE, e.SLACK_BOT_TOKEN),
      signingSecret: secretSource(e.SLACK_SIGNING_SECRET_FILE, e.SLACK_SIGNING_SECRET),
    },
    notion: { apiUrl: e.NOTION_API_URL.replace(/\/+$/, ''), token: e.NOTION_TOKEN, requestsPerSecond: e.NOTION_REQUESTS_PER_SECOND },
    drive: {
      apiUrl: e.GOOGLE_API_URL.replace(/\/+$/, ''),
      tokenUrl: e.GOOGLE_OAUTH_TOKEN_URL,
      serviceAccountFile: e.GOOGLE_SERVICE_ACCOUNT_FILE ? path.resolve(e.GOOGLE_SERVICE_ACCOUNT_FILE) : undefined,
      accessToken: e.GOOGLE_ACCESS_TOKEN,
    },
    crashAt: e.DOCO_TEST_CRASH_AT,
    briefsKeepDays: e.DOCO_BRIEFS_KEEP_DAYS,
    nats: nats.config,
  };
}

/** The Voyage client wants its base URL to end in /v1; accept it with or without. */
function withV1(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return trimmed.endsWith('/v1') ? trimmed : `${trimmed}/v1`;
}
