// The Google Drive v3 client the connector uses (docs/connectors.md, Drive): a service account's access
// token (or one supplied), refreshed once on a 401; changes with page tokens, files.list, Docs
// exported as Markdown (plain text where Markdown is refused), other text files downloaded; shared
// drives included. Quota errors (403 userRateLimitExceeded / rateLimitExceeded, 429) and 5xx are
// retried with the shared policy's exponential backoff and jitter; any other 403 is not.
import { ProviderError, retryPolicy, type RetryOptions, type RetryPolicy, type TryFailure } from '../../lib/retry.js';
import { textUpTo } from '../../lib/text-up-to.js';
import { InstallationTokens } from '../github/app-auth.js';
import { assertion, type ServiceAccount } from './service-account.js';

export interface DriveFile {
  id: string;
  name: string;
  mimeType: string;
  modifiedTime?: string;
  trashed?: boolean;
  version?: string;
  parents?: string[];
  webViewLink?: string;
}

export interface DriveChange {
  removed?: boolean;
  fileId: string;
  time?: string;
  file?: DriveFile;
}

export interface DriveClientOptions {
  apiUrl: string;
  tokenUrl: string;
  auth: { serviceAccount: ServiceAccount } | { accessToken: string };
  fetch?: typeof fetch;
  retry?: RetryOptions;
  now?: () => number;
}

export class DriveHttpError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    readonly detail: string,
    readonly retryAfter: string | null,
  ) {
    super(`HTTP ${status} ${reason}: ${detail}`);
    this.name = 'DriveHttpError';
  }
}

const QUOTA_REASONS = new Set(['userRateLimitExceeded', 'rateLimitExceeded']);
const DEFAULT_RETRY: RetryOptions = { maxAttempts: 6, baseDelayMs: 1000, maxDelayMs: 64_000 };
const FILE_FIELDS = 'id,name,mimeType,modifiedTime,trashed,version,parents,webViewLink';
/** Drive exports at most 10 MB; nothing longer is read into a record anyway. */
const MAX_TEXT_BYTES = 10 * 1024 * 1024;
/** An error answer's body: Google's error JSON is a few hundred bytes. */
const MAX_ERROR_BYTES = 64 * 1024;
const ALL_DRIVES = { supportsAllDrives: 'true', includeItemsFromAllDrives: 'true' };

export class DriveClient {
  /** Requests sent (retries and token exchanges included). */
  requests = 0;
  private readonly policy: RetryPolicy;
  private readonly fetch: typeof fetch;
  private readonly now: () => number;
  private readonly base: string;
  private readonly tokens: InstallationTokens | undefined;

  constructor(private readonly opts: DriveClientOptions) {
    this.fetch = opts.fetch ?? fetch;
    this.now = opts.now ?? Date.now;
    this.base = opts.apiUrl.replace(/\/+$/, '');
    this.policy = retryPolicy('drive', DEFAULT_RETRY, { ...opts.retry, now: this.now });
    // The token cache is keyed by what it exchanges for; a service account has one.
    this.tokens = 'serviceAccount' in opts.auth ? new InstallationTokens(() => this.exchange(), this.now) : undefined;
  }

  async startPageToken(): Promise<string> {
    const { startPageToken } = await this.json<{ startPageToken: string }>('drive/v3/changes/startPageToken', {
      supportsAllDrives: 'true',
    });
    return startPageToken;
  }

  /** One page of changes; the last page carries newStartPageToken instead of nextPageToken. */
  changes(pageToken: string): Promise<{ changes: DriveChange[]; nextPageToken?: string; newStartPageToken?: string }> {
    return this.json('drive/v3/changes', {
      pageToken,
      pageSize: '1000',
      ...ALL_DRIVES,
      fields: `nextPageToken,newStartPageToken,changes(removed,fileId,time,file(${FILE_FIELDS}))`,
    });
  }

  /** One page of files matching `q` (Drive's query language). */
  listFiles(q: string, pageToken?: string): Promise<{ files: DriveFile[]; nextPageToken?: string }> {
    return this.json('drive/v3/files', {
      q,
      pageSize: '1000',
      corpora: 'allDrives',
      ...ALL_DRIVES,
      fields: `nextPageToken,files(${FILE_FIELDS})`,
      ...(pageToken ? { pageToken } : {}),
    });
  }

  /** A Google Doc as Markdown, or as plain text where the Markdown export is refused. */
  async exportDoc(fileId: string): Promise<string> {
    const path = `drive/v3/files/${encodeURIComponent(fileId)}/export`;
    try {
      return await this.text(path, { mimeType: 'text/markdown' });
    } catch (err) {
      if (!(err instanceof ProviderError) || (err.upstreamStatus !== 400 && err.upstreamStatus !== 403)) throw err;
      return this.text(path, { mimeType: 'text/plain' });
    }
  }

  /** A stored file's bytes as UTF-8 text. */
  download(fileId: string): Promise<string> {
    return this.text(`drive/v3/files/${encodeURIComponent(fileId)}`, { alt: 'media', supportsAllDrives: 'true' });
  }

  private async exchange() {
    const account = (this.opts.auth as { serviceAccount: ServiceAccount }).serviceAccount;
    const body = new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: assertion(account, this.opts.tokenUrl, this.now()),
    });
    const json = await this.policy.run(
      'token exchange',
      async () => {
        this.requests++;
        const res = await this.fetch(this.opts.tokenUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body,
          signal: AbortSignal.timeout(30_000),
        });
        const text = await res.text();
        // OAuth errors are {"error":"invalid_grant","error_description":…}: said, never the assertion.
        if (!res.ok)
          throw new DriveHttpError(res.status, oauthError(text), 'the service account was refused', res.headers.get('retry-after'));
        return JSON.parse(text) as { access_token?: string; expires_in?: number };
      },
      readFailure,
    );
    if (!json.access_token)
      throw new ProviderError({ provider: 'drive', message: 'drive token exchange: the answer had no access_token', attempts: 1 });
    return { token: json.access_token, expiresAt: this.now() + (json.expires_in ?? 3600) * 1000 };
  }

  private async json<T>(path: string, params: Record<string, string>): Promise<T> {
    return JSON.parse(await this.text(path, params)) as T;
  }

  /** A GET as the account; a 401 with a service account forgets the token and tries once more. */
  private async text(path: string, params: Record<string, string>): Promise<string> {
    try {
      return await this.get(path, params);
    } catch (err) {
      if (!this.tokens || !(err instanceof ProviderError) || err.upstreamStatus !== 401) throw err;
      this.tokens.forget('drive');
      return this.get(path, params);
    }
  }

  private async get(path: string, params: Record<string, string>): Promise<string> {
    const token = this.tokens ? await this.tokens.get('drive') : (this.opts.auth as { accessToken: string }).accessToken;
    const url = `${this.base}/${path}?${new URLSearchParams(params)}`;
    return this.policy.run(
      `GET /${path.replace(/\/files\/[^/]+/, '/files/{id}')}`,
      async () => {
        this.requests++;
        const res = await this.fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(60_000) });
        // A file's text past the cap is cut (the record holds far less), and never read.
        const { text } = await textUpTo(res, res.ok ? MAX_TEXT_BYTES : MAX_ERROR_BYTES);
        if (res.ok) return text;
        const { reason, message } = apiError(text);
        throw new DriveHttpError(res.status, reason, message, res.headers.get('retry-after'));
      },
      readFailure,
    );
  }
}

function readFailure(err: unknown): TryFailure | undefined {
  if (err instanceof DriveHttpError) {
    const header = (h: string) => (h === 'retry-after' ? err.retryAfter : null);
    // A quota 403 is retried as a 429 is; its reason stays in the message.
    if (err.status === 403 && QUOTA_REASONS.has(err.reason)) return { status: 429, detail: `403 ${err.reason}: ${err.detail}`, header };
    return { status: err.status, detail: `${err.reason}: ${err.detail}`, header };
  }
  if (err instanceof DOMException && err.name === 'TimeoutError') return { transport: 'timeout' };
  if (err instanceof TypeError) return { transport: 'network', detail: err.message };
  return undefined;
}

/** Drive's error body: {"error":{"code","message","errors":[{"domain","reason"}]}}. */
function apiError(text: string): { reason: string; message: string } {
  try {
    const e = (JSON.parse(text) as { error?: { message?: unknown; errors?: { reason?: unknown }[] } }).error;
    const reason = e?.errors?.[0]?.reason;
    return {
      reason: typeof reason === 'string' ? reason : 'error',
      message: typeof e?.message === 'string' ? e.message.slice(0, 200) : '',
    };
  } catch {
    return { reason: 'error', message: text.slice(0, 200) };
  }
}

function oauthError(text: string): string {
  try {
    const e = (JSON.parse(text) as { error?: unknown }).error;
    return typeof e === 'string' ? e.slice(0, 60) : 'error';
  } catch {
    return 'error';
  }
}
