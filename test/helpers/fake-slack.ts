// A loopback fake of the Slack Web API (https://api.slack.com/web), speaking the documented
// formats (docs/connectors.md, Slack) so the connector's real client runs against it: methods at
// `/api/{method}`, arguments form-encoded in a POST (or in the query of a GET), the bot token as
// `Authorization: Bearer` (a wrong one is HTTP 200 `{ok: false, error: "invalid_auth"}`), every
// answer `{ok: true, …}` or `{ok: false, error}`. It serves auth.test, conversations.list,
// conversations.history (top-level messages newest first, `oldest` exclusive, parents with
// reply_count/latest_reply) and conversations.replies (the parent first, then replies after
// `oldest`), each paginated with an opaque `response_metadata.next_cursor` ("" on the last
// page). On demand it answers 429 with Retry-After (`error: "ratelimited"`) or fails outright
// (an outage). It stands for Slack itself and shares no code with the client it checks.
import { JsonServer, type JsonAnswer, type JsonServerRequest } from './json-server.js';

export interface FakeSlackMessage {
  ts: string;
  thread_ts?: string;
  user?: string;
  text: string;
  subtype?: string;
  bot_id?: string;
  edited?: { user: string; ts: string };
}

interface FakeChannel {
  id: string;
  name: string;
  isMember: boolean;
  messages: Map<string, FakeSlackMessage>;
}

export interface FakeSlackOptions {
  teamId: string;
  token: string;
  teamUrl?: string;
}

export class FakeSlack {
  readonly requests: { method: string; params: Record<string, string>; status: number; error?: string }[] = [];
  readonly channels = new Map<string, FakeChannel>();
  /** Answers served ahead of the real one, to any method call but auth.test: 429s, 503s. */
  readonly failures: { status: number; retryAfter?: number; error: string }[] = [];
  origin = '';
  /** The most items a page holds, whatever `limit` asks (Slack's own caps are 1000 and 999): smaller makes walks of several pages. */
  maxPageSize = 1000;
  private server: JsonServer;
  /** Seconds; each new message is a microsecond later. An hour ago, inside the sync's reply window. */
  private clock = Math.floor(Date.now() / 1000) - 3600;
  private micro = 0;

  constructor(private readonly opts: FakeSlackOptions) {
    this.server = new JsonServer((req) => this.answer(req));
  }

  async start(): Promise<string> {
    this.origin = await this.server.start();
    return `${this.origin}/api`;
  }

  stop() {
    return this.server.stop();
  }

  addChannel(id: string, name: string, isMember = true): void {
    this.channels.set(id, { id, name, isMember, messages: new Map() });
  }

  /** Posts a message (a reply when threadTs is given); returns its ts. `at` moves the clock on to that second, never back. */
  post(
    channel: string,
    text: string,
    opts: { user?: string; threadTs?: string; at?: number; subtype?: string; botId?: string } = {},
  ): string {
    const ch = this.channel(channel);
    if (opts.at !== undefined) this.clock = Math.max(this.clock, opts.at);
    this.micro++;
    const ts = `${this.clock}.${String(this.micro).padStart(6, '0')}`;
    ch.messages.set(ts, {
      ts,
      text,
      user: opts.user ?? 'U0TESTER',
      ...(opts.threadTs ? { thread_ts: opts.threadTs } : {}),
      ...(opts.subtype ? { subtype: opts.subtype } : {}),
      ...(opts.botId ? { bot_id: opts.botId } : {}),
    });
    return ts;
  }

  edit(channel: string, ts: string, text: string): FakeSlackMessage {
    const m = this.channel(channel).messages.get(ts);
    if (!m) throw new Error(`no message ${ts}`);
    m.text = text;
    m.edited = { user: m.user ?? '', ts: `${this.clock}.${String(++this.micro).padStart(6, '0')}` };
    return m;
  }

  remove(channel: string, ts: string): void {
    this.channel(channel).messages.delete(ts);
  }

  /** A message as the API shows it: a parent carries its thread's reply_count and latest_reply. */
  messageJson(channel: string, m: FakeSlackMessage): Record<string, unknown> {
    const replies = [...this.channel(channel).messages.values()].filter((r) => r.thread_ts === m.ts && r.ts !== m.ts);
    const json: Record<string, unknown> = { type: 'message', ...m };
    if (replies.length) {
      json.thread_ts = m.ts;
      json.reply_count = replies.length;
      json.latest_reply = replies
        .map((r) => r.ts)
        .sort(byTs)
        .at(-1);
      json.reply_users = [...new Set(replies.map((r) => r.user))];
    }
    return json;
  }

  channel(id: string): FakeChannel {
    const ch = this.channels.get(id);
    if (!ch) throw new Error(`no channel ${id}`);
    return ch;
  }

  private answer(req: JsonServerRequest): JsonAnswer {
    const url = new URL(req.url, this.origin);
    const method = url.pathname.replace(/^\/api\//, '');
    const params = Object.fromEntries(
      req.method === 'POST' && /x-www-form-urlencoded/.test(String(req.headers['content-type']))
        ? new URLSearchParams(req.raw)
        : url.searchParams,
    );
    const answer = this.handle(method, params, req);
    const json = typeof answer === 'object' ? (answer.json as { error?: string }) : undefined;
    this.requests.push({
      method,
      params,
      status: typeof answer === 'object' ? answer.status : 0,
      ...(json?.error ? { error: json.error } : {}),
    });
    return answer;
  }

  private handle(method: string, params: Record<string, string>, req: JsonServerRequest): JsonAnswer {
    const auth = req.headers.authorization;
    if (!auth) return fail('not_authed');
    if (auth !== `Bearer ${this.opts.token}`) return fail('invalid_auth');
    if (method === 'auth.test')
      return ok({
        url: this.opts.teamUrl ?? 'https://acme-test.slack.com/',
        team: 'Acme',
        user: 'doco',
        team_id: this.opts.teamId,
        user_id: 'U0BOT',
        bot_id: 'B0BOT',
      });
    const failure = this.failures.shift();
    if (failure) {
      const body = { ok: false, error: failure.error };
      return {
        status: failure.status,
        json: body,
        headers: failure.retryAfter !== undefined ? { 'retry-after': String(failure.retryAfter) } : {},
      };
    }
    if (method === 'conversations.list') {
      const all = [...this.channels.values()].map((c) => ({
        id: c.id,
        name: c.name,
        is_channel: true,
        is_archived: false,
        is_member: c.isMember,
      }));
      return page(all, params, 'channels', 100, Math.min(1000, this.maxPageSize));
    }
    if (method === 'conversations.history' || method === 'conversations.replies') {
      const ch = this.channels.get(params.channel ?? '');
      if (!ch) return fail('channel_not_found');
      if (!ch.isMember) return fail('not_in_channel');
      return method === 'conversations.history' ? this.history(ch, params) : this.replies(ch, params);
    }
    return fail('unknown_method');
  }

  private history(ch: FakeChannel, params: Record<string, string>): JsonAnswer {
    const oldest = Number(params.oldest ?? '0');
    const latest = params.latest ? Number(params.latest) : Infinity;
    const top = [...ch.messages.values()]
      .filter((m) => !m.thread_ts || m.thread_ts === m.ts || m.subtype === 'thread_broadcast')
      .filter((m) => Number(m.ts) > oldest && Number(m.ts) <= latest)
      .sort((a, b) => byTs(b.ts, a.ts))
      .map((m) => this.messageJson(ch.id, m));
    return page(top, params, 'messages', 100, Math.min(999, this.maxPageSize));
  }

  private replies(ch: FakeChannel, params: Record<string, string>): JsonAnswer {
    const parent = ch.messages.get(params.ts ?? '');
    if (!parent) return fail('thread_not_found');
    const oldest = Number(params.oldest ?? '0');
    const thread = [...ch.messages.values()]
      .filter((m) => m.thread_ts === parent.ts && m.ts !== parent.ts && Number(m.ts) > oldest)
      .sort((a, b) => byTs(a.ts, b.ts));
    return page(
      [parent, ...thread].map((m) => this.messageJson(ch.id, m)),
      params,
      'messages',
      100,
      Math.min(1000, this.maxPageSize),
    );
  }
}

const byTs = (a: string, b: string) => Number(a) - Number(b) || a.localeCompare(b);
const ok = (json: Record<string, unknown>): JsonAnswer => ({ status: 200, json: { ok: true, ...json } });
const fail = (error: string): JsonAnswer => ({ status: 200, json: { ok: false, error } });

/** One page of `items` from the opaque cursor on, with the next cursor ("" when there is none). */
function page(items: unknown[], params: Record<string, string>, key: string, defaultLimit: number, maxLimit: number): JsonAnswer {
  let offset = 0;
  if (params.cursor) {
    const decoded = Buffer.from(params.cursor, 'base64').toString();
    if (!/^offset:\d+$/.test(decoded)) return fail('invalid_cursor');
    offset = Number(decoded.slice('offset:'.length));
  }
  const limit = Math.min(maxLimit, Math.max(1, Number(params.limit ?? defaultLimit) || defaultLimit));
  const slice = items.slice(offset, offset + limit);
  const more = offset + limit < items.length;
  return ok({
    [key]: slice,
    has_more: more,
    response_metadata: { next_cursor: more ? Buffer.from(`offset:${offset + limit}`).toString('base64') : '' },
  });
}
