// Loopback stand-ins for the hosted providers' HTTP APIs, for tests that run a whole brief
// against them: Voyage's rerank endpoint (POST /v1/rerank) and Anthropic's Messages API
// (POST /v1/messages). Each answers whatever `reply` says for the n-th request (0-based), in the
// provider's documented wire format; any other route is a 404 in that provider's error shape.
import type { IncomingHttpHeaders } from 'node:http';
import { JsonServer, parsed } from './json-server.js';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface Reply {
  status: number;
  json: unknown;
  headers?: Record<string, string>;
}

/** A reply, or 'drop' to close the connection unanswered. */
export type ReplyOrDrop = Reply | 'drop';

export class FakeProviderApi {
  readonly seen: SeenRequest[] = [];
  /** The status of every reply written, in order (0 for a dropped connection). */
  readonly statuses: number[] = [];
  private server: JsonServer;

  constructor(
    private readonly route: { method: string; url: string; notFound: Reply },
    private readonly reply: (req: SeenRequest, n: number) => ReplyOrDrop,
  ) {
    this.server = new JsonServer((req) => {
      const seen: SeenRequest = parsed(req);
      const matches = seen.method === this.route.method && seen.url === this.route.url;
      const answer = matches ? this.reply(seen, this.seen.length) : this.route.notFound;
      this.seen.push(seen);
      this.statuses.push(answer === 'drop' ? 0 : answer.status);
      return answer;
    });
  }

  /** Listens on a free loopback port and returns its origin, e.g. http://127.0.0.1:41234. */
  start(): Promise<string> {
    return this.server.start();
  }

  stop(): Promise<void> {
    return this.server.stop();
  }
}

/** Voyage embeddings: {input, model, input_type, output_dimension} → {object: 'list', data: [{object, embedding, index}], model, usage}. */
export function fakeVoyageEmbeddings(reply: (req: SeenRequest, n: number) => ReplyOrDrop = voyageEmbeddings): FakeProviderApi {
  return new FakeProviderApi({ method: 'POST', url: '/v1/embeddings', notFound: { status: 404, json: { detail: 'Not Found' } } }, reply);
}

/** One embedding per input, [1, 0, 0, …] of the asked dimension. */
export function voyageEmbeddings(req: SeenRequest): Reply {
  const dims = (req.body.output_dimension as number | undefined) ?? 1024;
  const data = (req.body.input as string[]).map((_, index) => ({
    object: 'embedding',
    embedding: Array.from({ length: dims }, (_, i) => (i === 0 ? 1 : 0)),
    index,
  }));
  return { status: 200, json: { object: 'list', data, model: req.body.model, usage: { total_tokens: 5 } } };
}

/** Voyage rerank: {query, documents, model} → {object: 'list', data: [{index, relevance_score}] best first, model, usage}. */
export function fakeVoyageRerank(reply: (req: SeenRequest, n: number) => ReplyOrDrop = voyageRanked): FakeProviderApi {
  return new FakeProviderApi({ method: 'POST', url: '/v1/rerank', notFound: { status: 404, json: { detail: 'Not Found' } } }, reply);
}

/** A deterministic ranking: a document's score is its length over the longest. */
export function voyageRanked(req: SeenRequest): Reply {
  const documents = req.body.documents as string[];
  const longest = Math.max(...documents.map((d) => d.length));
  const data = documents
    .map((d, index) => ({ index, relevance_score: d.length / longest }))
    .sort((a, b) => b.relevance_score - a.relevance_score);
  return { status: 200, json: { object: 'list', data, model: req.body.model, usage: { total_tokens: 42 } } };
}

export const voyageError = (status: number): Reply => ({
  status,
  json: { detail: status === 429 ? 'Rate limit exceeded' : 'Internal server error' },
});

/** Anthropic Messages: errors carry `retry-after-ms: 1`, a header Anthropic sends and the retry policy (src/lib/retry.ts) honours. */
export function fakeAnthropicMessages(reply: (req: SeenRequest, n: number) => ReplyOrDrop): FakeProviderApi {
  return new FakeProviderApi(
    {
      method: 'POST',
      url: '/v1/messages',
      notFound: { status: 404, json: { type: 'error', error: { type: 'not_found_error', message: 'Not found' } } },
    },
    reply,
  );
}

export const anthropicText = (text: string): Reply => ({
  status: 200,
  json: {
    id: 'msg_01FakeFakeFakeFakeFake',
    type: 'message',
    role: 'assistant',
    model: 'claude-haiku-4-5',
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 240, output_tokens: 60 },
  },
});

export const anthropicError = (status: number): Reply => ({
  status,
  json: {
    type: 'error',
    error: { type: status === 429 ? 'rate_limit_error' : 'api_error', message: status === 429 ? 'Rate limited' : 'Internal server error' },
  },
  headers: { 'retry-after-ms': '1' },
});
