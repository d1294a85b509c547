// How the NATS subscriber connects, against real nats-servers: it keeps trying (with backoff,
// never a crash) while no server is up, authenticates with a user and password or a token, and
// speaks TLS verified against DOCO_NATS_TLS_CA; and `doco worker` with DOCO_NATS_URL re-pulls
// the registered packs at start-up, follows the subjects, and stops cleanly.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPack, registerPack } from '../../src/ingest/packs/registry.js';
import { startNatsSubscriber, type NatsSubscriber } from '../../src/nats/subscriber.js';
import type { Log } from '../../src/lib/log.js';
import { makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { cleanUp, DocoHome, DocoProcess, freePort, waitFor } from '../helpers/doco-process.js';
import { natsConfig, NatsServer, publish, stopAllNatsServers } from '../helpers/nats-server.js';
import { markdown, startPackService, type PackService } from '../helpers/pack-service.js';

let t: TestDb;
let ws: TestWorkspace;
let dir: string;
const subscribers: NatsSubscriber[] = [];
const services: PackService[] = [];

/** Waits for the subscriber to be subscribed; on a timeout the error carries what it logged. */
async function connected(s: NatsSubscriber, lines: string[]): Promise<void> {
  try {
    await waitFor('the subscriber to connect and subscribe', () => s.state().subscribed, 30_000);
  } catch (err) {
    throw new Error(`${(err as Error).message}; it logged:\n${lines.join('\n')}`);
  }
}

function capture(): { log: Log; lines: string[] } {
  const lines: string[] = [];
  const push = (level: string) => (msg: string) => void lines.push(`${level} ${msg}`);
  return { log: { debug: () => {}, info: push('info'), warn: push('warn'), error: push('error') }, lines };
}

const start = (config: Parameters<typeof startNatsSubscriber>[0]['config'], log: Log) => {
  const s = startNatsSubscriber({ sql: t.sql, db: t.db, log, workspaceId: ws.id, packHosts: [], config });
  subscribers.push(s);
  return s;
};

/**
 * A CA and a server certificate signed by it, made with openssl for this run. The certificate
 * names localhost too: the nats client sends no server name for an IP address, so Node checks
 * the certificate against "localhost".
 */
function makeCertificates(): { ca: string; cert: string; key: string } {
  const f = (name: string) => path.join(dir, name);
  const run = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  run(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
    '-days',
    '1',
    '-subj',
    '/CN=doco-test-ca',
  );
  run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', '/CN=127.0.0.1');
  writeFileSync(f('san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  run(
    'x509',
    '-req',
    '-in',
    f('server.csr'),
    '-CA',
    f('ca.pem'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-out',
    f('server.pem'),
    '-days',
    '1',
    '-extfile',
    f('san.ext'),
  );
  return { ca: f('ca.pem'), cert: f('server.pem'), key: f('server.key') };
}

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'nats-conn');
  dir = await mkdtemp(path.join(os.tmpdir(), 'doco-nats-'));
});
afterAll(async () => {
  await Promise.all(subscribers.map((s) => s.stop()));
  await stopAllNatsServers();
  await cleanUp();
  await Promise.all(services.map((s) => s.close()));
  await t?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('connecting to NATS', () => {
  it('keeps trying, with a warning each time, while no server is up, and subscribes once one is', async () => {
    const port = await freePort();
    const { log, lines } = capture();
    const s = start(natsConfig([`nats://127.0.0.1:${port}`]), log);
    await waitFor('two failed attempts', () => lines.filter((l) => l.startsWith('warn NATS: cannot connect to')).length >= 2);
    expect(lines.find((l) => l.startsWith('warn NATS: cannot connect'))).toMatch(
      /^warn NATS: cannot connect to nats:\/\/127\.0\.0\.1:\d+: .*; trying again in \d+ ms$/,
    );
    expect(s.state().subscribed).toBe(false);
    await NatsServer.start({ port });
    await connected(s, lines);
    expect(s.state()).toMatchObject({ subscribed: true, connections: 1 });
  });

  it('authenticates with a user and password, or a token; a wrong password is a warning, not a crash', async () => {
    const users = await NatsServer.start({ args: ['--user', 'doco', '--pass', 'right-password'] });
    const right = capture();
    await connected(
      start(natsConfig([users.url], { auth: { kind: 'user', user: 'doco', password: 'right-password' } }), right.log),
      right.lines,
    );
    const wrong = capture();
    const bad = start(natsConfig([users.url], { auth: { kind: 'user', user: 'doco', password: 'wrong-password' } }), wrong.log);
    await waitFor('the refused connection to be reported', () =>
      wrong.lines.some((l) => /^warn NATS: cannot connect to .*: .*(authorization|Authorization)/.test(l)),
    );
    expect(bad.state().subscribed).toBe(false);
    expect(wrong.lines.join('\n')).not.toContain('wrong-password');
    const tokens = await NatsServer.start({ args: ['--auth', 'the-token'] });
    const token = capture();
    await connected(start(natsConfig([tokens.url], { auth: { kind: 'token', token: 'the-token' } }), token.log), token.lines);
  });

  it('connects over TLS, verifying the server against DOCO_NATS_TLS_CA', async () => {
    const certs = makeCertificates();
    const server = await NatsServer.start({ args: ['--tls', '--tlscert', certs.cert, '--tlskey', certs.key] });
    const trusting = capture();
    await connected(
      start(
        natsConfig([`tls://127.0.0.1:${server.port}`], { tls: { caFile: certs.ca, certFile: undefined, keyFile: undefined } }),
        trusting.log,
      ),
      trusting.lines,
    );
    // Without the CA the server's certificate is not trusted: no connection.
    const untrusting = capture();
    const u = start(
      natsConfig([`tls://127.0.0.1:${server.port}`], { tls: { caFile: undefined, certFile: undefined, keyFile: undefined } }),
      untrusting.log,
    );
    await waitFor('the untrusted server to be refused', () => untrusting.lines.some((l) => l.startsWith('warn NATS: cannot connect')));
    expect(u.state().subscribed).toBe(false);
  });
});

describe('doco worker with DOCO_NATS_URL', () => {
  it('re-pulls the registered packs at start-up, ingests a pack registered over NATS, and stops cleanly', async () => {
    const server = await NatsServer.start();
    const billing = await startPackService({
      format: 1,
      code: 'billing',
      files: [{ path: 'docs/invoices.md', content: markdown('Invoices', ['Numbering']) }],
    });
    const payments = await startPackService({
      format: 1,
      code: 'payments',
      files: [{ path: 'docs/cards.md', content: markdown('Cards', ['Declines']) }],
    });
    services.push(billing, payments);
    const proc = await makeWorkspace(t, 'nats-proc');
    await registerPack(t.sql, proc.id, 'billing', billing.baseUrl);
    const home = await DocoHome.make();
    const worker = new DocoProcess(
      ['worker'],
      home.env({
        DATABASE_URL: t.url,
        DOCO_WORKSPACE: 'nats-proc',
        DOCO_NATS_URL: server.url,
        DOCO_NATS_BACKOFF_MIN_MS: '50',
        DOCO_NATS_BACKOFF_MAX_MS: '400',
        // The pack services listen on 127.0.0.1: the operator lists it, as a private network's services are listed.
        DOCO_PACK_HOSTS: '127.0.0.1',
      }),
    );
    await worker.waitForLog(/NATS: connected to .*; following service\.register, service\.unregister, gateway_online/);
    await waitFor('the start-up re-pull of billing', async () => !!(await findPack(t.sql, proc.id, 'billing'))?.last_hash);
    expect(billing.fetches).toBe(1);
    await publish(
      server,
      'service.register',
      JSON.stringify({ code: 'payments', base_url: payments.baseUrl, capabilities: ['docs_pack'] }),
    );
    await waitFor('payments to be ingested', async () => !!(await findPack(t.sql, proc.id, 'payments'))?.last_hash);
    await publish(server, 'service.register', 'garbage');
    await worker.waitForLog(/warn +NATS service\.register: dropped a malformed message: the message is not JSON/);
    expect(worker.running).toBe(true);
    expect(await worker.stop()).toEqual({ code: 0, signal: null });
    expect(worker.log).toMatch(/stopped cleanly/);
  });
});
