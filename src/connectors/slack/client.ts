// The Slack Web API client the connector uses (docs/connectors.md, Slack): `{base}/{method}`, POSTed
// form-encoded with the bot token as a Bearer, as @slack/web-api does; errors come as HTTP 200
// `{ok: false, error}`; pages follow `response_metadata.next_cursor` until it is empty; a 429's
// Retry-After is waited out through the shared retry policy (a wait past the policy's cap fails
// the call now, so the sweep tries again on a later tick instead of sleeping through it).
import { pageCursors } from '../page-cursors.js';
import { ProviderError, retryPolicy, type RetryOptions, type RetryPolicy, type TryFailure } from '../../lib/retry.js';

export interface SlackClientOptions {
  apiUrl: string;
  token: string;
  fetch?: typeof fetch;
  retry?: RetryOptions;
  now?: () => number;
}

export interface SlackMessage {
  type?: string;
  subtype?: string;
  ts: string;
  thread_ts?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  reply_count?: number;
  latest_reply?: string;
  edited?: { ts?: string };
}

interface Paged {
  response_metadata?: { next_cursor?: string };
}
export interface HistoryPage extends Paged {
  messages: SlackMessage[];
  has_more?: boolean;
}
export interface ChannelsPage extends Paged {
  channels: { id: string; name?: string; is_member?: boolean; is_archived?: boolean }[];
}

/** A non-2xx answer, as the retry policy reads it. */
class SlackHttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly waitMs: number | undefined,
  ) {
    super(`HTTP ${status}: ${detail}`);
  }
}

const DEFAULT_RETRY: RetryOptions = { maxAttempts: 4, baseDelayMs: 1000, maxDelayMs: 120_000 };

/** What to do about the Slack errors an operator can fix. */
const HINTS: Record<string, string> = {
  invalid_auth: 'SLACK_BOT_TOKEN is not a valid bot token',
  not_authed: 'SLACK_BOT_TOKEN is not set',
  token_revoked: 'the bot token was revoked: reinstall the Slack app',
  missing_scope: 'the Slack app lacks a scope: add channels:history and channels:read, then reinstall it',
  not_in_channel: 'the bot is not in this channel: invite it (/invite @your-app)',
  channel_not_found: 'no such channel (or the bot cannot see it)',
};

export class SlackClient {
  private readonly policy: RetryPolicy;
  private readonly fetch: typeof fetch;
  private readonly base: string;
  private readonly maxDelayMs: number;

  constructor(private readonly opts: SlackClientOptions) {
    this.fetch = opts.fetch ?? fetch;
    this.base = opts.apiUrl.replace(/\/+$/, '');
    this.policy = retryPolicy('slack', DEFAULT_RETRY, { ...opts.retry, ...(opts.now ? { now: opts.now } : {}) });
    this.maxDelayMs = opts.retry?.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs!;
  }

  /** The workspace the token belongs to, and its URL (permalinks are made from it). */
  authTest(): Promise<{ team_id: string; url: string }> {
    return this.call('auth.test', {});
  }

  history(channel: string, params: { oldest?: string; cursor?: string; limit?: number }): Promise<HistoryPage> {
    return this.call('conversations.history', { channel, limit: 200, ...params });
  }

  replies(channel: string, ts: string, params: { oldest?: string; cursor?: string }): Promise<HistoryPage> {
    return this.call('conversations.replies', { channel, ts, limit: 200, ...params });
  }

  channels(cursor?: string): Promise<ChannelsPage> {
    return this.call('conversations.list', {
      types: 'public_channel',
      exclude_archived: 'true',
      limit: 200,
      ...(cursor ? { cursor } : {}),
    });
  }

  /** Every page of a cursor-paginated call (`listing` names it in errors); `each` returns false to stop. */
  async eachPage<P extends Paged>(
    listing: string,
    fetchPage: (cursor: string | undefined) => Promise<P>,
    each: (page: P, last: boolean) => Promise<boolean | void>,
  ): Promise<void> {
    let cursor: string | undefined;
    const cursors = pageCursors(`slack ${listing}`);
    for (;;) {
      const page = await fetchPage(cursor);
      const next = page.response_metadata?.next_cursor || undefined;
      if ((await each(page, !next)) === false || !next) return;
      cursor = cursors.next(next);
    }
  }

  async call<T>(method: string, params: Record<string, string | number | undefined>): Promise<T> {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined) form.set(k, String(v));
    const json = await this.policy.run(
      method,
      async () => {
        const res = await this.fetch(`${this.base}/${method}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${this.opts.token}`, 'content-type': 'application/x-www-form-urlencoded' },
          body: form.toString(),
          signal: AbortSignal.timeout(30_000),
        });
        const text = await res.text();
        if (res.ok) return parseJson(method, text);
        const retryAfter = res.headers.get('retry-after')?.trim();
        const waitMs = res.status === 429 ? (retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) * 1000 : 60_000) : undefined;
        if (waitMs !== undefined && waitMs > this.maxDelayMs) {
          throw new ProviderError({
            provider: 'slack',
            message: `slack ${method}: rate limited for ${Math.ceil(waitMs / 1000)} s`,
            upstreamStatus: 429,
            attempts: 1,
          });
        }
        throw new SlackHttpError(res.status, errorOf(text), waitMs);
      },
      readFailure,
    );
    if (json.ok !== true) {
      const code = typeof json.error === 'string' ? json.error : 'unknown_error';
      throw new ProviderError({
        provider: 'slack',
        message: `slack ${method}: ${code}${HINTS[code] ? ` (${HINTS[code]})` : ''}`,
        attempts: 1,
      });
    }
    return json as T;
  }
}

function parseJson(method: string, text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    if (v && typeof v === 'object') return v as Record<string, unknown>;
  } catch {
    // said below
  }
  throw new ProviderError({ provider: 'slack', message: `slack ${method}: the answer is not JSON`, attempts: 1 });
}

function errorOf(text: string): string {
  try {
    const e = (JSON.parse(text) as { error?: unknown }).error;
    if (typeof e === 'string') return e.slice(0, 200);
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 200);
}

function readFailure(err: unknown): TryFailure | undefined {
  if (err instanceof SlackHttpError) {
    if (err.waitMs === undefined) return { status: err.status, detail: err.detail };
    return { status: 429, detail: err.detail, header: (h) => (h === 'retry-after-ms' ? String(err.waitMs) : null) };
  }
  if (err instanceof DOMException && err.name === 'TimeoutError') return { transport: 'timeout' };
  if (err instanceof TypeError) return { transport: 'network', detail: err.message };
  return undefined;
}
