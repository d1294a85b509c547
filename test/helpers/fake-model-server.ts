// A loopback stand-in for a team's own model server (docs/models.md): what Ollama, llama.cpp
// server, LM Studio, vLLM, Text Embeddings Inference or Infinity serve at POST /v1/embeddings
// (OpenAI's wire format) and what llama.cpp server or Infinity serve at POST /rerank (the
// Cohere/Jina shape). It computes its answers with its own simple code, none of Doco's:
// a vector counts the letters a–z of the text (a bag of letters, folded onto `dimensions`), and
// a document's relevance is the share of the query's words it contains. `replies` queues special
// answers ('hang', 'drop', an error) for the next requests, whichever route they ask.
import type { IncomingHttpHeaders } from 'node:http';
import { JsonServer, parsed, type JsonAnswer } from './json-server.js';

export interface ModelServerRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: any;
}

/** The bag of letters: one count per letter a–z, letter i added at i mod dimensions. */
export function letterCounts(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions).fill(0);
  for (const ch of text.toLowerCase()) {
    const code = ch.charCodeAt(0) - 97;
    if (code >= 0 && code < 26) v[code % dimensions]! += 1;
  }
  return v;
}

const words = (text: string) => new Set(text.toLowerCase().match(/[a-z0-9]+/g) ?? []);

/** The share of the query's words the document holds, in [0, 1]. */
export function wordOverlap(query: string, document: string): number {
  const q = words(query);
  const d = words(document);
  let shared = 0;
  for (const w of q) if (d.has(w)) shared++;
  return q.size ? shared / q.size : 0;
}

export const serverError = (status: number, message = 'model is loading'): JsonAnswer => ({
  status,
  json: { error: { message, type: 'server_error' } },
});

export class FakeModelServer {
  readonly seen: ModelServerRequest[] = [];
  /** Answers for the next requests, first in first out, before the computed ones. */
  readonly replies: JsonAnswer[] = [];
  /** The length of the vectors it makes: change it to stand for another model behind the same name. */
  dimensions: number;
  private server: JsonServer;

  constructor(opts: { dimensions?: number; rerankPath?: string } = {}) {
    this.dimensions = opts.dimensions ?? 26;
    const rerankPath = opts.rerankPath ?? '/rerank';
    this.server = new JsonServer((req) => {
      const seen: ModelServerRequest = parsed(req);
      this.seen.push(seen);
      const queued = this.replies.shift();
      if (queued) return queued;
      if (req.method === 'POST' && req.url === '/v1/embeddings') return this.embeddings(seen.body);
      if (req.method === 'POST' && req.url === rerankPath) return this.rerank(seen.body);
      return { status: 404, json: { error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error' } } };
    });
  }

  /** {model, input: string[]} → {object: 'list', data: [{object: 'embedding', index, embedding}], model, usage}, listed in reverse. */
  private embeddings(body: { model: string; input: string[] }): JsonAnswer {
    const data = body.input.map((text, index) => ({ object: 'embedding', index, embedding: letterCounts(text, this.dimensions) }));
    return { status: 200, json: { object: 'list', data: data.reverse(), model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } } };
  }

  /** {model, query, documents, top_n} → {results: [{index, relevance_score}]}, best first, top_n of them. */
  private rerank(body: { model?: string; query: string; documents: string[]; top_n?: number }): JsonAnswer {
    const results = body.documents
      .map((d, index) => ({ index, relevance_score: wordOverlap(body.query, d) }))
      .sort((a, b) => b.relevance_score - a.relevance_score)
      .slice(0, body.top_n ?? body.documents.length);
    return { status: 200, json: { model: body.model, results, usage: { total_tokens: 1 } } };
  }

  /** The requests to one path. */
  to(path: string): ModelServerRequest[] {
    return this.seen.filter((r) => r.url === path);
  }

  start(): Promise<string> {
    return this.server.start();
  }

  stop(): Promise<void> {
    return this.server.stop();
  }
}
