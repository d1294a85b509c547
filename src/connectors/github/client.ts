// The GitHub REST client the connector uses: installation tokens (app-auth.ts), the pinned API
// version headers, ETag/If-None-Match, Link pagination, and the shared retry policy with
// GitHub's rate limits read into it (a wait longer than the policy's cap fails the call now, so
// the sweep tries again on its next tick instead of sleeping through a reset).
import type { KeyObject } from 'node:crypto';
import { ProviderError, retryPolicy, type RetryOptions, type RetryPolicy, type TryFailure } from '../../lib/retry.js';
import { appJwt, InstallationTokens, parseAppKey } from './app-auth.js';
import { pageCursors } from '../page-cursors.js';
import { nextLink } from './link-header.js';
import { rateLimitWaitMs } from './rate-limit.js';

export interface GithubClientOptions {
  apiUrl: string;
  appId: string;
  /** PEM text or a parsed key. */
  privateKey: string | KeyObject;
  fetch?: typeof fetch;
  retry?: RetryOptions;
  now?: () => number;
}

export interface GithubResponse<T> {
  status: 200 | 201 | 304;
  json: T | undefined;
  etag: string | undefined;
  next: string | undefined;
}

/** A response that was not a success, as the retry policy reads it. */
export class GithubHttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly waitMs: number | undefined,
  ) {
    super(`HTTP ${status}: ${detail}`);
    this.name = 'GithubHttpError';
  }
}

const API_VERSION = '2022-11-28';
const DEFAULT_RETRY: RetryOptions = { maxAttempts: 4, baseDelayMs: 1000, maxDelayMs: 120_000 };

export class GithubClient {
  private readonly tokens: InstallationTokens;
  private readonly policy: RetryPolicy;
  private readonly key: KeyObject;
  private readonly fetch: typeof fetch;
  private readonly now: () => number;
  private readonly base: URL;
  private readonly maxDelayMs: number;

  constructor(private readonly opts: GithubClientOptions) {
    this.key = typeof opts.privateKey === 'string' ? parseAppKey(opts.privateKey) : opts.privateKey;
    this.fetch = opts.fetch ?? fetch;
    this.now = opts.now ?? Date.now;
    this.base = new URL(opts.apiUrl.replace(/\/+$/, '') + '/');
    this.policy = retryPolicy('github', DEFAULT_RETRY, { ...opts.retry, now: this.now });
    this.maxDelayMs = opts.retry?.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs!;
    this.tokens = new InstallationTokens((id) => this.exchange(id), this.now);
  }

  private async exchange(installationId: string) {
    const res = await this.call<{ token: string; expires_at: string }>(
      'POST',
      `app/installations/${encodeURIComponent(installationId)}/access_tokens`,
      `Bearer ${appJwt(this.opts.appId, this.key, this.now())}`,
    );
    const json = res.json;
    if (!json?.token || !json.expires_at)
      throw new ProviderError({ provider: 'github', message: 'github installation token: the answer had no token', attempts: 1 });
    return { token: json.token, expiresAt: Date.parse(json.expires_at) };
  }

  /** A GET as the installation: a path under the API URL, or a `next` URL as GitHub gave it. */
  async get<T>(installationId: string, pathOrUrl: string, opts: { etag?: string } = {}): Promise<GithubResponse<T>> {
    const token = await this.tokens.get(installationId);
    try {
      return await this.call<T>('GET', pathOrUrl, `token ${token}`, opts.etag);
    } catch (err) {
      if (err instanceof ProviderError && err.upstreamStatus === 401) this.tokens.forget(installationId);
      throw err;
    }
  }

  /** Every page of a list, following rel="next"; stops early when `each` returns false. */
  async eachPage<T>(
    installationId: string,
    path: string,
    each: (items: T[], page: GithubResponse<T[]>) => Promise<boolean | void>,
    opts: { etag?: string } = {},
  ): Promise<GithubResponse<T[]> | undefined> {
    let url: string | undefined = path;
    let first: GithubResponse<T[]> | undefined;
    const cursors = pageCursors(`github ${path.split('?')[0]}`);
    while (url) {
      const page: GithubResponse<T[]> = await this.get<T[]>(installationId, url, first ? {} : opts);
      first ??= page;
      if (page.status === 304) return first;
      if ((await each(page.json ?? [], page)) === false) break;
      url = page.next === undefined ? undefined : cursors.next(page.next);
    }
    return first;
  }

  /** The filenames a pull request changes (GitHub lists at most 3000). */
  async pullFiles(installationId: string, repo: string, number: number): Promise<string[]> {
    const files: string[] = [];
    await this.eachPage<{ filename: string }>(installationId, `repos/${repo}/pulls/${number}/files?per_page=100`, async (items) => {
      files.push(...items.map((f) => f.filename));
    });
    return files;
  }

  private resolve(pathOrUrl: string): URL {
    const url = /^https?:\/\//.test(pathOrUrl) ? new URL(pathOrUrl) : new URL(pathOrUrl.replace(/^\/+/, ''), this.base);
    // A next link elsewhere would carry the installation token to another host.
    if (url.origin !== this.base.origin)
      throw new ProviderError({ provider: 'github', message: `github: refusing a link to another host (${url.origin})`, attempts: 1 });
    return url;
  }

  private async call<T>(method: 'GET' | 'POST', pathOrUrl: string, authorization: string, etag?: string): Promise<GithubResponse<T>> {
    const url = this.resolve(pathOrUrl);
    const what = `${method} ${url.pathname}`;
    return this.policy.run(
      what,
      async () => {
        const res = await this.fetch(url, {
          method,
          headers: {
            accept: 'application/vnd.github+json',
            'user-agent': 'doco-connector',
            'x-github-api-version': API_VERSION,
            authorization,
            ...(etag ? { 'if-none-match': etag } : {}),
          },
          signal: AbortSignal.timeout(30_000),
        });
        const meta = { etag: res.headers.get('etag') ?? undefined, next: nextLink(res.headers.get('link')) };
        if (res.status === 304) return { status: 304, json: undefined, ...meta } as GithubResponse<T>;
        const text = await res.text();
        if (res.status === 200 || res.status === 201)
          return { status: res.status, json: text ? (JSON.parse(text) as T) : undefined, ...meta } as GithubResponse<T>;
        const waitMs = rateLimitWaitMs(res.status, (h) => res.headers.get(h), text, this.now());
        // Longer than we hold on: fail now, unretried (readFailure passes a ProviderError through).
        if (waitMs !== undefined && waitMs > this.maxDelayMs) {
          throw new ProviderError({
            provider: 'github',
            message: `github ${what}: rate limited for ${Math.ceil(waitMs / 1000)} s (${messageOf(text)})`,
            upstreamStatus: res.status,
            attempts: 1,
          });
        }
        throw new GithubHttpError(res.status, messageOf(text), waitMs);
      },
      (err) => this.readFailure(err),
    );
  }

  private readFailure(err: unknown): TryFailure | undefined {
    if (err instanceof GithubHttpError) {
      if (err.waitMs === undefined) return { status: err.status, detail: err.detail };
      // A rate limit: retried after the wait GitHub asks.
      return { status: 429, detail: err.detail, header: (h) => (h === 'retry-after-ms' ? String(err.waitMs) : null) };
    }
    if (err instanceof DOMException && err.name === 'TimeoutError') return { transport: 'timeout' };
    if (err instanceof TypeError) return { transport: 'network', detail: err.message };
    return undefined;
  }
}

function messageOf(text: string): string {
  try {
    const m = (JSON.parse(text) as { message?: unknown }).message;
    if (typeof m === 'string') return m.slice(0, 200);
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 200);
}
