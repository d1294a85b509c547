// A pass-through HTTP proxy in front of `doco serve`, given to `doco hooks install --url`, so the
// suite sees which hook endpoints and MCP methods each agent actually called (and what Doco
// answered) without changing Doco. Bodies are passed on unchanged, streamed answers included.
import { createServer, request, type Server } from 'node:http';
import { closeServer, listenOnLoopback } from './loopback.js';

export interface ProxiedCall {
  method: string;
  url: string;
  status: number;
  /** the request body (hook stdin JSON, or an MCP JSON-RPC message) */
  body: string;
  /** the answer's body, cut at 20,000 characters */
  answer: string;
}

export class RecordingProxy {
  readonly calls: ProxiedCall[] = [];
  private server: Server;

  constructor(target: string) {
    const { hostname, port } = new URL(target);
    this.server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        const call: ProxiedCall = { method: req.method ?? '', url: req.url ?? '', status: 0, body, answer: '' };
        this.calls.push(call);
        const headers = { ...req.headers, host: `${hostname}:${port}` };
        const up = request({ hostname, port, method: req.method, path: req.url, headers }, (upRes) => {
          call.status = upRes.statusCode ?? 0;
          res.writeHead(call.status, upRes.headers);
          upRes.on('data', (c: Buffer) => {
            if (call.answer.length < 20_000) call.answer += c.toString('utf8');
            res.write(c);
          });
          upRes.on('end', () => res.end());
        });
        up.on('error', (err) => {
          call.status = 502;
          res.writeHead(502).end(String(err));
        });
        up.end(body);
      });
    });
  }

  start(): Promise<string> {
    return listenOnLoopback(this.server);
  }

  stop(): Promise<void> {
    return closeServer(this.server);
  }

  /** The hook events that reached Doco, e.g. ["session-start", "prompt", "edit"], in order. */
  hookEvents(agent: string): string[] {
    return this.calls.flatMap((c) => {
      const m = new RegExp(`^/api/v1/hooks/${agent}/([a-z-]+)`).exec(c.url);
      return m ? [m[1]!] : [];
    });
  }

  /** MCP JSON-RPC methods called (tools/call as "tools/call:<tool>"). */
  mcpMethods(): string[] {
    return this.calls
      .filter((c) => c.url.startsWith('/mcp') && c.body)
      .flatMap((c) => {
        try {
          const msgs = ([] as { method?: string; params?: { name?: string } }[]).concat(JSON.parse(c.body));
          return msgs.filter((m) => m.method).map((m) => (m.method === 'tools/call' ? `tools/call:${m.params?.name}` : m.method!));
        } catch {
          return [];
        }
      });
  }
}
