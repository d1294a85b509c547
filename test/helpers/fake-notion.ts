// A loopback fake of the Notion API and its webhooks, speaking the documented formats
// (docs/connectors.md, Notion; developers.notion.com reference). What it stands for:
// - auth: `Authorization: Bearer <token>` and a `Notion-Version` header on every call, else
//   401 {"object":"error","code":"unauthorized"} (the SDK's error shape);
// - POST /v1/search with filter object=page and sort last_edited_time descending, page_size
//   ≤ 100, an opaque start_cursor, {results, next_cursor, has_more}; archived or trashed pages
//   are not found by search (so only a webhook, or reading the page, shows a deletion);
// - last_edited_time rounded down to the minute, as Notion stores it;
// - GET /v1/pages/{id} → the page (archived/in_trash flags set), 404 object_not_found when gone;
// - GET /v1/blocks/{id}/children with page_size/start_cursor pagination; any block with
//   children says has_children and has its own children list (nested blocks, table rows);
// - 429 rate_limited with Retry-After (and any other failure) on demand;
// - webhooks: the subscription handshake POSTs {"verification_token"} once; every event after
//   is signed X-Notion-Signature: sha256=HMAC-SHA256(verification token, raw body).
// It shares no code with the client, the Markdown conversion or the signature check it tests.
import { createHmac, randomUUID } from 'node:crypto';
import { takeFailure } from './failure-queue.js';
import { JsonServer, type JsonAnswer, type JsonServerRequest } from './json-server.js';

export interface FakeBlock {
  type: string;
  /** What sits under the block's type key: {rich_text: […]}, {checked}, {language}, {cells} … */
  content: Record<string, unknown>;
  children?: FakeBlock[];
  id?: string;
}

export interface FakeNotionPage {
  id: string;
  title: string;
  parent: Record<string, unknown>;
  lastEdited: number;
  archived: boolean;
  deleted: boolean;
  blocks: FakeBlock[];
}

export const text = (plain: string, over: { href?: string; bold?: boolean; code?: boolean; italic?: boolean } = {}) => ({
  type: 'text',
  plain_text: plain,
  text: { content: plain, link: over.href ? { url: over.href } : null },
  href: over.href ?? null,
  annotations: { bold: !!over.bold, italic: !!over.italic, strikethrough: false, underline: false, code: !!over.code, color: 'default' },
});

export const block = (type: string, content: Record<string, unknown>, children?: FakeBlock[]): FakeBlock => ({
  type,
  content,
  ...(children ? { children } : {}),
});
export const para = (plain: string) => block('paragraph', { rich_text: [text(plain)] });

const MINUTE = 60_000;

export class FakeNotion {
  readonly token = 'ntn_fakeIntegrationTokenForTests0000';
  readonly verificationToken = `secret_${randomUUID().replace(/-/g, '')}`;
  readonly pages = new Map<string, FakeNotionPage>();
  readonly requests: { method: string; path: string; status: number }[] = [];
  /** Answers served ahead of the real one (429s with Retry-After, 500s): see failure-queue.ts. */
  readonly failures: { status: number; code: string; headers?: Record<string, string>; path?: string; skip?: number }[] = [];
  /**
   * The fake's clock (epoch ms), a month back: pages are stamped with it, rounded down to the
   * minute. Each edit moves it on a minute first, as edits a tick apart are.
   */
  clock = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 30 * 86_400_000 + 30_000;
  /**
   * Stands for a misbehaving API, or a proxy replaying an answer: every search answers its first
   * page again, saying there is more after it at the same cursor.
   */
  replaySearch = false;
  private server: JsonServer;
  private blockIds = 0;
  private blocks = new Map<string, FakeBlock>();
  origin = '';

  constructor() {
    this.server = new JsonServer((req) => {
      const answer = this.handle(req);
      this.requests.push({ method: req.method, path: req.url, status: typeof answer === 'object' ? answer.status : 0 });
      return answer;
    });
  }

  async start() {
    this.origin = await this.server.start();
    return this.origin;
  }

  stop() {
    return this.server.stop();
  }

  private stamp() {
    return Math.floor(this.clock / MINUTE) * MINUTE;
  }

  /** Gives every block an id and indexes it, so a children request finds its block at once. */
  private withIds(blocks: FakeBlock[]): FakeBlock[] {
    return blocks.map((b) => {
      const withId = {
        ...b,
        id: b.id ?? `00000000-0000-4000-8000-${String(++this.blockIds).padStart(12, '0')}`,
        ...(b.children ? { children: this.withIds(b.children) } : {}),
      };
      this.blocks.set(withId.id, withId);
      return withId;
    });
  }

  addPage(p: { id?: string; title: string; blocks: FakeBlock[]; parent?: Record<string, unknown> }): FakeNotionPage {
    const page: FakeNotionPage = {
      id: p.id ?? randomUUID(),
      title: p.title,
      parent: p.parent ?? { type: 'workspace', workspace: true },
      lastEdited: this.stamp(),
      archived: false,
      deleted: false,
      blocks: this.withIds(p.blocks),
    };
    this.pages.set(page.id, page);
    return page;
  }

  /** An edit in the Notion UI: new content, last_edited_time = the fake clock's minute. */
  edit(id: string, change: { title?: string; blocks?: FakeBlock[] }) {
    const page = this.pages.get(id)!;
    this.clock += MINUTE;
    if (change.title !== undefined) page.title = change.title;
    if (change.blocks) page.blocks = this.withIds(change.blocks);
    page.lastEdited = this.stamp();
  }

  archive(id: string) {
    const page = this.pages.get(id)!;
    this.clock += MINUTE;
    page.archived = true;
    page.lastEdited = this.stamp();
  }

  url(p: FakeNotionPage) {
    return `https://www.notion.so/${p.title.replace(/[^A-Za-z0-9]+/g, '-')}-${p.id.replace(/-/g, '')}`;
  }

  pageJson(p: FakeNotionPage) {
    return {
      object: 'page',
      id: p.id,
      created_time: new Date(p.lastEdited).toISOString(),
      last_edited_time: new Date(p.lastEdited).toISOString(),
      archived: p.archived,
      in_trash: p.archived,
      url: this.url(p),
      parent: p.parent,
      properties: {
        Name: { id: 'title', type: 'title', title: [text(p.title)] },
        Tags: { id: 'x', type: 'multi_select', multi_select: [] },
      },
    };
  }

  private blockJson(b: FakeBlock) {
    return { object: 'block', id: b.id, type: b.type, has_children: !!b.children?.length, archived: false, [b.type]: b.content };
  }

  private handle(req: JsonServerRequest): JsonAnswer {
    const url = new URL(req.url, this.origin);
    if (req.headers.authorization !== `Bearer ${this.token}` || !req.headers['notion-version']) {
      return { status: 401, json: { object: 'error', status: 401, code: 'unauthorized', message: 'API token is invalid.' } };
    }
    const failure = takeFailure(this.failures, url.pathname);
    if (failure)
      return {
        status: failure.status,
        json: { object: 'error', status: failure.status, code: failure.code, message: 'fake failure' },
        headers: failure.headers ?? {},
      };
    if (req.method === 'POST' && url.pathname === '/v1/search') return this.search(JSON.parse(req.raw || '{}'));
    const page = url.pathname.match(/^\/v1\/pages\/([^/]+)$/);
    if (req.method === 'GET' && page) {
      const p = this.pages.get(decodeURIComponent(page[1]!));
      return p && !p.deleted ? { status: 200, json: this.pageJson(p) } : notFound();
    }
    const children = url.pathname.match(/^\/v1\/blocks\/([^/]+)\/children$/);
    if (req.method === 'GET' && children) return this.children(decodeURIComponent(children[1]!), url);
    return notFound();
  }

  private search(body: {
    filter?: { property?: string; value?: string };
    sort?: { timestamp?: string; direction?: string };
    page_size?: number;
    start_cursor?: string;
  }): JsonAnswer {
    if (body.filter?.value !== 'page' || body.sort?.timestamp !== 'last_edited_time' || body.sort.direction !== 'descending') {
      return {
        status: 400,
        json: {
          object: 'error',
          status: 400,
          code: 'validation_error',
          message: 'the fake serves pages by last_edited_time descending only',
        },
      };
    }
    const all = [...this.pages.values()]
      .filter((p) => !p.archived && !p.deleted)
      .sort((a, b) => b.lastEdited - a.lastEdited || a.id.localeCompare(b.id));
    if (this.replaySearch)
      return { status: 200, json: { ...pageOf(all, (p) => this.pageJson(p), 1), has_more: true, next_cursor: all[1]?.id ?? null } };
    return { status: 200, json: pageOf(all, (p) => this.pageJson(p), body.page_size, body.start_cursor) };
  }

  private children(id: string, url: URL): JsonAnswer {
    // An edit replaces a page's blocks: old ids stay indexed but are no longer reachable from a page read.
    const parent = this.pages.get(id)?.blocks ?? this.blocks.get(id)?.children;
    if (!parent) return notFound();
    return {
      status: 200,
      json: pageOf(
        parent as (FakeBlock & { id: string })[],
        (b) => this.blockJson(b),
        Number(url.searchParams.get('page_size') ?? '100'),
        url.searchParams.get('start_cursor') ?? undefined,
      ),
    };
  }

  /** The subscription's handshake: unsigned, the token alone. */
  handshake() {
    return { body: JSON.stringify({ verification_token: this.verificationToken }), headers: { 'content-type': 'application/json' } };
  }

  /** A signed event about a page (or another entity), as Notion delivers it. */
  event(type: string, entityId: string, opts: { id?: string; token?: string; signature?: string; entityType?: string } = {}) {
    const body = JSON.stringify({
      id: opts.id ?? randomUUID(),
      timestamp: new Date(this.clock).toISOString(),
      workspace_id: 'ws-1',
      subscription_id: 'sub-1',
      integration_id: 'int-1',
      type,
      attempt_number: 1,
      authors: [{ id: 'u1', type: 'person' }],
      entity: { id: entityId, type: opts.entityType ?? 'page' },
      data: { parent: { id: 'ws-1', type: 'space' } },
    });
    const signature =
      opts.signature ??
      `sha256=${createHmac('sha256', opts.token ?? this.verificationToken)
        .update(body)
        .digest('hex')}`;
    return { body, headers: { 'content-type': 'application/json', 'x-notion-signature': signature } };
  }
}

const notFound = (): JsonAnswer => ({
  status: 404,
  json: { object: 'error', status: 404, code: 'object_not_found', message: 'Could not find object.' },
});

/** Notion's list shape; the cursor is the id of the next page's first item. */
function pageOf<T extends { id: string }>(items: T[], json: (item: T) => unknown, pageSize = 100, cursor?: string) {
  const size = Math.min(100, Math.max(1, pageSize));
  const from = cursor ? items.findIndex((i) => i.id === cursor) : 0;
  const slice = from < 0 ? [] : items.slice(from, from + size);
  const next = from >= 0 ? items[from + size] : undefined;
  return { object: 'list', results: slice.map(json), next_cursor: next?.id ?? null, has_more: !!next, type: 'page_or_database' };
}
