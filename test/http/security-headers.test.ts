// What every answer carries, and the Host check wired in: console pages forbid scripts, frames and
// foreign forms (CSP, frame-ancestors, X-Frame-Options), every answer is nosniff with no referrer,
// and with a host policy (as doco serve builds it) a request naming another Host — a DNS
// rebinding page — is refused before any route runs, unauthenticated routes included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApp } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t.drop());

describe('security headers', () => {
  it('a console page carries a CSP without scripts, and frame and sniffing bans', async () => {
    const { app } = makeApp(t);
    const res = await app.request('/sign-in', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/script-src/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('JSON answers, errors included, are nosniff; a 404 echoes at most 200 characters of the path', async () => {
    const { app } = makeApp(t);
    const res = await app.request(`/api/v1/${'<script>'.repeat(100)}`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-type')).toContain('application/json');
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('unauthorized');
    const missing = await app.request(`/nowhere/${'x'.repeat(5000)}`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { message: string } }).error.message.length).toBeLessThan(260);
  });
});

describe('the Host check', () => {
  const policy = { port: 8787, listenHost: '127.0.0.1', publicHosts: ['doco.example.com'] };

  it('answers the listen address, the loopback names and the public URL', async () => {
    const { app } = makeApp(t, undefined, undefined, { hostPolicy: policy });
    for (const host of ['127.0.0.1:8787', 'localhost:8787', 'doco.example.com']) {
      const res = await app.request('http://x/healthz', { headers: { host } });
      expect(res.status, host).toBe(200);
    }
  });

  it('refuses another name with 421 before any route runs, webhooks and sign-in included', async () => {
    const { app } = makeApp(t, undefined, undefined, { hostPolicy: policy });
    for (const [method, path] of [
      ['GET', '/healthz'],
      ['POST', '/webhooks/notion'],
      ['POST', '/sign-in'],
      ['GET', '/'],
    ] as const) {
      const res = await app.request(`http://x${path}`, {
        method,
        headers: { host: 'evil.example:8787', 'content-type': 'application/json' },
        body: method === 'POST' ? '{}' : undefined,
      });
      expect(res.status, `${method} ${path}`).toBe(421);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('misdirected_request');
    }
  });
});
