// The one loopback HTTP server under the tests' fakes of hosted APIs (Voyage, Anthropic, Qdrant):
// it reads each request's body whole, asks the fake's handler what to answer, and writes that
// answer as JSON. Each fake keeps its own routes, replies and record of what it was asked.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as it arrived, its body unparsed. */
export interface JsonServerRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  raw: string;
}

/**
 * A JSON answer; 'hang' to hold the request open, never answered (stop() drops it); 'drop' to
 * close the connection without answering, as a crashed server or a reset does.
 */
export type JsonAnswer =
  | {
      status: number;
      json: unknown;
      headers?: Record<string, string>;
      /** Sent as is instead of the JSON (a file download). */ text?: string;
    }
  | 'hang'
  | 'drop';

/** The request with its body parsed as JSON (undefined when empty), as most fakes record it. */
export function parsed<Body>(req: JsonServerRequest): { method: string; url: string; headers: IncomingHttpHeaders; body: Body } {
  return { method: req.method, url: req.url, headers: req.headers, body: req.raw ? JSON.parse(req.raw) : undefined };
}

export class JsonServer {
  /** Answers fully written to the socket. */
  answered = 0;
  private server: Server;

  constructor(handle: (req: JsonServerRequest) => JsonAnswer) {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk) => (raw += chunk));
      req.on('end', () => {
        const answer = handle({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, raw });
        if (answer === 'hang') return;
        if (answer === 'drop') return void req.socket.destroy();
        res.on('finish', () => this.answered++);
        res.writeHead(answer.status, {
          'content-type': answer.text === undefined ? 'application/json' : 'text/plain; charset=utf-8',
          ...answer.headers,
        });
        res.end(answer.text ?? JSON.stringify(answer.json));
      });
    });
  }

  /** Listens on a free loopback port and returns its origin, e.g. http://127.0.0.1:41234. */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Drops every open connection, held requests included, and closes the server. */
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.server.close((err) => (err ? reject(err) : resolve())));
  }
}
