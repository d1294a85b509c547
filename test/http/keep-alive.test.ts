// `doco serve` keeps an idle connection open longer than its clients keep theirs, and says so on
// every answer, the MCP endpoint's event stream too (src/http/keep-alive.ts): with Node's 5 s and
// no hint on the event stream, a client's request could meet a socket the server was closing at
// that moment (docs/production.md, "What the scale suite proves"). Over a real socket, as
// startDoco serves it.
import http from 'node:http';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/auth/tokens.js';
import { ensurePrincipal, ensureWorkspace } from '../../src/auth/workspaces.js';
import { loadConfig } from '../../src/config/environment.js';
import { KEEP_ALIVE_MS } from '../../src/http/keep-alive.js';
import { makeLog } from '../../src/lib/log.js';
import { startDoco, type RunningDoco } from '../../src/main.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
let home: string;
let doco: RunningDoco;
let token: string;
// One socket for every request: each answer below must leave it open for the next.
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  socket: net.Socket;
}
function request(method: string, route: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${doco.url}${route}`, { method, headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, socket: req.socket! }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

beforeAll(async () => {
  t = await createTestDb();
  home = await mkdtemp(path.join(os.tmpdir(), 'doco-keep-alive-'));
  await chmod(home, 0o755);
  doco = await startDoco(
    loadConfig({ DATABASE_URL: t.url, DOCO_HOME: home }),
    makeLog('warn', () => {}),
    { http: true, worker: false, port: await freePort() },
  );
  const ws = await ensureWorkspace(t.sql, 'default');
  token = await createToken(t.db, { workspaceId: ws, principalId: await ensurePrincipal(t.db, ws, 'ops', 'cli'), scope: 'write' });
});
afterAll(async () => {
  agent.destroy();
  await doco?.stop();
  await t.drop();
  await rm(home, { recursive: true, force: true });
});

describe('doco serve keeps idle connections', () => {
  it('says Keep-Alive: timeout=65 on REST answers and on MCP answers (and its 405 to a GET), over one socket', async () => {
    const auth = { authorization: `Bearer ${token}` };
    const answers = [
      await request('GET', '/api/v1/collections', auth),
      // A JSON-RPC request: the MCP endpoint answers JSON.
      await request(
        'POST',
        '/mcp',
        { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      ),
      // The stream a client may try to open after initializing: a stateless server has none (405).
      await request('GET', '/mcp', { ...auth, accept: 'text/event-stream' }),
      await request('GET', '/healthz', {}),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 405, 200]);
    for (const a of answers) {
      expect(a.headers.connection).toBe('keep-alive');
      expect(a.headers['keep-alive']).toBe(`timeout=${KEEP_ALIVE_MS / 1000}`);
    }
    expect(new Set(answers.map((a) => a.socket)).size).toBe(1);
  });
});
