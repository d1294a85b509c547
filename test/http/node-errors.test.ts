// What Node's HTTP parser and @hono/node-server answer before the app sees a request (a URL or
// headers too large, a request line that is not HTTP, no Host, an Expect Doco does not meet)
// comes in the one error shape like every other error (src/http/node-errors.ts). Over a raw
// socket to a server startDoco listens with: `app.request` never reaches Node's parser.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/environment.js';
import { clientErrorAnswer } from '../../src/http/node-errors.js';
import { makeLog } from '../../src/lib/log.js';
import { startDoco, type RunningDoco } from '../../src/main.js';
import { makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { expectError, expectNoWrite } from '../helpers/expect-error.js';

let t: TestDb;
let home: string;
let doco: RunningDoco;
let ws: TestWorkspace;
let port: number;

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
  body: unknown;
}

/** The answer to `request` sent as raw bytes, read until the server closes the connection. */
function sendRaw(request: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => resolve(parseAnswer(Buffer.concat(chunks).toString('utf8'))));
    socket.write(request);
  });
}

function parseAnswer(raw: string): RawAnswer {
  const end = raw.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()] as const),
  );
  const text = raw.slice(end + 4);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: Number(statusLine!.split(' ')[1]), headers, text, body };
}

/** The answer is the documented error body, sent whole as JSON, on a connection the server closes. */
function expectShaped(a: RawAnswer, status: number, code: string) {
  const error = expectError(a, status, code);
  expect(a.headers['content-type']).toMatch(/^application\/json/);
  expect(Number(a.headers['content-length'])).toBe(Buffer.byteLength(a.text));
  return error;
}

beforeAll(async () => {
  t = await createTestDb();
  home = await mkdtemp(path.join(os.tmpdir(), 'doco-node-errors-'));
  await chmod(home, 0o755);
  port = await freePort();
  doco = await startDoco(
    loadConfig({ DATABASE_URL: t.url, DOCO_HOME: home }),
    makeLog('warn', () => {}),
    {
      http: true,
      worker: false,
      port,
    },
  );
  ws = await makeWorkspace(t, 'default');
});
afterAll(async () => {
  await doco?.stop();
  await t.drop();
  await rm(home, { recursive: true, force: true });
});

describe('a request too large for the parser', () => {
  it('an oversized URL is 431 in the error shape, naming the limit, and the connection closes', async () => {
    const q = 'a'.repeat(17_000);
    const a = await sendRaw(
      `GET /api/v1/search?q=${q} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${ws.readToken}\r\n\r\n`,
    );
    const error = expectShaped(a, 431, 'headers_too_large');
    expect(a.headers.connection).toBe('close');
    expect(error.message).toContain('request line and headers');
    expect(error.message).toContain(String(http.maxHeaderSize));
  });

  it('oversized headers on a write are 431 and write nothing', async () => {
    const body = JSON.stringify({ collection: 'constitution', node_type: 'rule', prose: 'Never written.' });
    const a = await expectNoWrite(t, () =>
      sendRaw(
        `POST /api/v1/capture HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${ws.writeToken}\r\n` +
          `X-Padding: ${'p'.repeat(20_000)}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      ),
    );
    expectShaped(a, 431, 'headers_too_large');
  });
});

describe('a request that is not HTTP Doco can read', () => {
  it('a request line or header Node cannot parse is 400 validation_failed', async () => {
    for (const request of [
      'GARBAGE\r\n\r\n',
      `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nBad Header: y\r\n\r\n`,
      `GET /healthz HTTP/9.9\r\nHost: 127.0.0.1:${port}\r\n\r\n`,
    ]) {
      const a = await sendRaw(request);
      const error = expectShaped(a, 400, 'validation_failed');
      expect(a.headers.connection).toBe('close');
      expect(error.message).toMatch(/^the request is not valid HTTP\/1\.1: /);
    }
  });

  it('no Host, an invalid Host or a backslash in the path is 400 validation_failed', async () => {
    for (const request of [
      'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n',
      'GET /healthz HTTP/1.1\r\nHost: a@b\r\nConnection: close\r\n\r\n',
      `GET /api\\v1/whoami HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
    ]) {
      const error = expectShaped(await sendRaw(request), 400, 'validation_failed');
      expect(error.message).toMatch(/^the request cannot be read: /);
    }
  });

  it('an Expect other than 100-continue is 417 expectation_failed', async () => {
    const a = await sendRaw(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nExpect: teapot\r\nConnection: close\r\n\r\n`);
    const error = expectShaped(a, 417, 'expectation_failed');
    expect(error.message).toContain('100-continue');
  });

  it('the server goes on answering, and a well-formed request is untouched', async () => {
    const a = await sendRaw(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    expect(a.status).toBe(200);
  });
});

describe('clientErrorAnswer', () => {
  // The cases a socket test cannot reach without waiting out a timer or racing a reset.
  it('maps each parser error code to its status', () => {
    const err = (code: string) => Object.assign(new Error(code), { code });
    expect(clientErrorAnswer(err('HPE_HEADER_OVERFLOW'))?.status).toBe(431);
    expect(clientErrorAnswer(err('HPE_CHUNK_EXTENSIONS_OVERFLOW'))?.status).toBe(413);
    expect(clientErrorAnswer(err('ERR_HTTP_REQUEST_TIMEOUT'))?.status).toBe(408);
    expect(clientErrorAnswer(err('HPE_INVALID_METHOD'))?.status).toBe(400);
    expect(clientErrorAnswer(err('ECONNRESET'))).toBeUndefined();
  });
});
