// Request bodies are bounded while they stream, before any signature, CSRF, auth or JSON work.
// A real `doco serve` process on this file's database takes 16 chunked uploads at once, each of up
// to 300 MB and without a Content-Length, on the routes that need no token (the three webhooks
// and the console's sign-in form). Each is refused after a few megabytes at most — 413 past the
// route's limit, or 503 once the uploads together pass the budget bodies read without a token
// share — and the server's resident memory barely moves. (Before, every reader buffered the whole body first: a
// 300 MB body to /webhooks/notion grew the process by ~770 MB and kept it.)
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCO_BIN, LOCAL_ONLY } from '../helpers/cli.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

const UPLOAD_BYTES = 300 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 0x7b);

let t: TestDb;
let home: string;
let server: ChildProcess;
let port: number;
let log = '';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port: p } = s.address() as net.AddressInfo;
      s.close(() => resolve(p));
    });
  });

/** The server process's resident memory, in MB, as the kernel counts it. */
const rssMb = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))![1]) / 1024;

interface Upload {
  status: number | undefined;
  /** Bytes the client had handed to the socket when the answer came (or the server hung up). */
  sentMb: number;
}

/** Streams up to UPLOAD_BYTES of chunked body, stopping as soon as the server answers or hangs up. */
function upload(route: string, contentType: string, headers: Record<string, string> = {}): Promise<Upload> {
  return new Promise((resolve) => {
    let sent = 0;
    let finished = false;
    const done = (status: number | undefined) => {
      if (finished) return;
      finished = true;
      resolve({ status, sentMb: sent / (1024 * 1024) });
      req.destroy();
    };
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: route,
      headers: { 'content-type': contentType, ...headers },
    });
    req.on('response', (res) => {
      res.resume();
      done(res.statusCode);
    });
    req.on('error', () => done(undefined));
    const pump = () => {
      while (!finished && sent < UPLOAD_BYTES) {
        sent += CHUNK.length;
        if (!req.write(CHUNK)) return void req.once('drain', pump);
      }
      if (!finished) req.end();
    };
    pump();
  });
}

beforeAll(async () => {
  t = await createTestDb();
  home = await mkdtemp(path.join(os.tmpdir(), 'doco-body-limits-'));
  await chmod(home, 0o755);
  port = await freePort();
  server = spawn(process.execPath, [DOCO_BIN, 'serve', '--no-worker'], {
    env: {
      ...process.env,
      DATABASE_URL: t.url,
      DOCO_HOME: home,
      DOCO_PORT: String(port),
      DOCO_LOG_LEVEL: 'info',
      GITHUB_WEBHOOK_SECRET: 'a-webhook-secret',
      SLACK_SIGNING_SECRET: 'a-signing-secret',
      ...LOCAL_ONLY,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (d) => (log += d));
  server.stderr!.on('data', (d) => (log += d));
  for (let waited = 0; !/serving REST/.test(log); waited += 100) {
    if (server.exitCode !== null || waited > 60_000) throw new Error(`doco serve did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}, 90_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGINT');
    await exited;
  }
  await t.drop();
  await rm(home, { recursive: true, force: true });
}, 60_000);

describe('unauthenticated routes under 16 parallel 300 MB chunked uploads', () => {
  it('refuses each with 413 after a few megabytes, and the server holds none of it', async () => {
    // Warm the routes once, so the baseline includes what their first use loads.
    const warm = await upload('/webhooks/github', 'application/json', { 'x-github-event': 'ping', 'x-github-delivery': 'warm' });
    expect(warm.status).toBe(413);
    const before = rssMb();
    const routes: [string, string, Record<string, string>][] = [
      ['/webhooks/github', 'application/json', { 'x-github-event': 'push', 'x-github-delivery': 'd1' }],
      ['/webhooks/slack/events', 'application/json', {}],
      ['/webhooks/notion', 'application/json', {}],
      ['/sign-in', 'application/x-www-form-urlencoded', {}],
    ];
    const uploads = await Promise.all(Array.from({ length: 16 }, (_, i) => upload(...routes[i % routes.length]!)));
    const after = rssMb();
    // What each upload got, for a failure's message.
    const seen = JSON.stringify(uploads.map((u, i) => [routes[i % routes.length]![0], u.status, Number(u.sentMb.toFixed(1))]));
    for (const u of uploads) {
      // 413 past the route's limit; 503 (send again) when the uploads together pass the budget
      // that bodies read without a token share.
      expect([413, 503], seen).toContain(u.status);
      // The largest limit is GitHub's 8 MB; the rest is what the socket buffers held in flight.
      expect(u.sentMb, seen).toBeLessThan(40);
    }
    expect(after - before, `RSS ${before.toFixed(0)} → ${after.toFixed(0)} MB`).toBeLessThan(50);
    expect(uploads.filter((u) => u.status === 413).length, seen).toBeGreaterThan(0);
    // The process lives on and answers.
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
  }, 120_000);

  it('counts a declared Content-Length against the budget before reading it, and gives it back when the client goes', async () => {
    // GitHub's route takes up to 8 MB; bodies read without a token share 16 MB. Two uploads that
    // declare 8 MB each and then stall hold the whole budget, so a third is answered 503 at once,
    // before it sends a byte of its body. Once the two hang up, a fourth is read whole again and
    // answered by the route itself (401: the signature is wrong).
    const declared = String(8 * 1024 * 1024);
    const open = (): Promise<{ req: http.ClientRequest; status: Promise<number | undefined> }> =>
      new Promise((resolve) => {
        const req = http.request({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/webhooks/github',
          headers: { 'content-type': 'application/json', 'content-length': declared, 'x-github-event': 'push', 'x-github-delivery': 'd2' },
        });
        const status = new Promise<number | undefined>((done) => {
          req.on('response', (res) => {
            res.resume();
            done(res.statusCode);
          });
          req.on('error', () => done(undefined));
        });
        req.write(CHUNK, () => resolve({ req, status }));
      });
    const settled = (p: Promise<number | undefined>, ms: number) =>
      Promise.race([p, new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms))]);

    const first = await open();
    const second = await open();
    await new Promise((r) => setTimeout(r, 300));
    const third = await open();
    expect(await settled(third.status, 10_000)).toBe(503);
    expect(await settled(first.status, 200)).toBe('pending');
    expect(await settled(second.status, 200)).toBe('pending');
    third.req.destroy();

    first.req.destroy();
    second.req.destroy();
    await new Promise((r) => setTimeout(r, 300));
    const fourth = await new Promise<number | undefined>((resolve) => {
      const body = Buffer.alloc(Number(declared), 0x20);
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/webhooks/github',
          headers: {
            'content-type': 'application/json',
            'x-github-event': 'push',
            'x-github-delivery': 'd3',
            'x-hub-signature-256': 'sha256=00',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      req.on('error', () => resolve(undefined));
      req.end(body);
    });
    expect(fourth).toBe(401);
  }, 60_000);
});
