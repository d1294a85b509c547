// The Notion API client the connector uses (docs/connectors.md, Notion): Bearer auth with the pinned
// Notion-Version, one shared pacer for every request (about 3 per second), 429/529 and 5xx
// retried with the shared policy, Retry-After honoured (and held for every caller). A wait
// longer than the policy's cap fails the call now: the tick tries again on the next minute.
import { ProviderError, retryPolicy, type RetryOptions, type RetryPolicy, type TryFailure } from '../../lib/retry.js';
import { Pacer } from '../pacer.js';
import type { NotionBlock, NotionList, NotionPage } from './types.js';

export const NOTION_VERSION = '2025-09-03';
/** Documented as an average of three requests per second per integration. */
export const NOTION_REQUESTS_PER_SECOND = 3;

export interface NotionClientOptions {
  apiUrl: string;
  token: string;
  /** Lower only to stay further under the limit; a bench may raise it against a fake. */
  requestsPerSecond?: number;
  fetch?: typeof fetch;
  retry?: RetryOptions;
  now?: () => number;
  /** The pacer's wait (tests pass one that records instead of sleeping). */
  sleep?: (ms: number) => Promise<void>;
}

/** A response that was not a success, as the retry policy reads it. */
export class NotionHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly retryAfter: string | null,
  ) {
    super(`HTTP ${status} ${code}: ${detail}`);
    this.name = 'NotionHttpError';
  }
}

const DEFAULT_RETRY: RetryOptions = { maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 60_000 };
const PAGE_SIZE = 100;

export class NotionClient {
  readonly pacer: Pacer;
  /** Requests sent (retries included): the bench's requests per second. */
  requests = 0;
  private readonly policy: RetryPolicy;
  private readonly fetch: typeof fetch;
  private readonly now: () => number;
  private readonly base: string;
  private readonly maxDelayMs: number;

  constructor(private readonly opts: NotionClientOptions) {
    this.fetch = opts.fetch ?? fetch;
    this.now = opts.now ?? Date.now;
    this.base = opts.apiUrl.replace(/\/+$/, '');
    this.pacer = new Pacer(opts.requestsPerSecond ?? NOTION_REQUESTS_PER_SECOND, {
      now: this.now,
      ...(opts.sleep ? { sleep: opts.sleep } : {}),
    });
    this.policy = retryPolicy('notion', DEFAULT_RETRY, { ...opts.retry, now: this.now });
    this.maxDelayMs = opts.retry?.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs!;
  }

  /** One page of the pages shared with the integration, most recently edited first. */
  search(startCursor?: string): Promise<NotionList<NotionPage>> {
    return this.call<NotionList<NotionPage>>('POST', '/v1/search', {
      filter: { property: 'object', value: 'page' },
      sort: { timestamp: 'last_edited_time', direction: 'descending' },
      page_size: PAGE_SIZE,
      ...(startCursor ? { start_cursor: startCursor } : {}),
    });
  }

  /** A page's properties; undefined when Notion no longer has it (or no longer shares it). */
  async page(id: string): Promise<NotionPage | undefined> {
    try {
      return await this.call<NotionPage>('GET', `/v1/pages/${encodeURIComponent(id)}`);
    } catch (err) {
      if (err instanceof ProviderError && err.upstreamStatus === 404) return undefined;
      throw err;
    }
  }

  /** One page of a block's children. */
  children(blockId: string, startCursor?: string): Promise<NotionList<NotionBlock>> {
    const q = new URLSearchParams({ page_size: String(PAGE_SIZE), ...(startCursor ? { start_cursor: startCursor } : {}) });
    return this.call<NotionList<NotionBlock>>('GET', `/v1/blocks/${encodeURIComponent(blockId)}/children?${q}`);
  }

  private call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const what = `${method} ${path.split('?')[0]}`;
    // Search is a POST that reads: retrying it after a 5xx is as safe as retrying a GET.
    return this.policy.run(
      what,
      async () => {
        await this.pacer.turn();
        this.requests++;
        const res = await this.fetch(`${this.base}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${this.opts.token}`,
            'notion-version': NOTION_VERSION,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(30_000),
        });
        const text = await res.text();
        if (res.ok) return JSON.parse(text) as T;
        const { code, message } = errorOf(text);
        const retryAfter = res.headers.get('retry-after');
        if (res.status === 429 && retryAfter && /^\d+$/.test(retryAfter.trim())) {
          const waitMs = Number(retryAfter.trim()) * 1000;
          if (waitMs > this.maxDelayMs) {
            throw new ProviderError({
              provider: 'notion',
              message: `notion ${what}: rate limited for ${waitMs / 1000} s (${message})`,
              upstreamStatus: 429,
              attempts: 1,
            });
          }
          this.pacer.holdUntil(this.now() + waitMs);
        }
        throw new NotionHttpError(res.status, code, message, retryAfter);
      },
      readFailure,
    );
  }
}

function readFailure(err: unknown): TryFailure | undefined {
  if (err instanceof NotionHttpError)
    return { status: err.status, detail: `${err.code}: ${err.detail}`, header: (h) => (h === 'retry-after' ? err.retryAfter : null) };
  if (err instanceof DOMException && err.name === 'TimeoutError') return { transport: 'timeout' };
  if (err instanceof TypeError) return { transport: 'network', detail: err.message };
  return undefined;
}

/** Notion's error body: {"object":"error","status","code","message"}. */
function errorOf(text: string): { code: string; message: string } {
  try {
    const e = JSON.parse(text) as { code?: unknown; message?: unknown };
    return { code: typeof e.code === 'string' ? e.code : 'error', message: typeof e.message === 'string' ? e.message.slice(0, 200) : '' };
  } catch {
    return { code: 'error', message: text.slice(0, 200) };
  }
}
