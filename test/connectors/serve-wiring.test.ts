// The composition root wires the GitHub connector from the environment: `doco serve` (HTTP and
// worker in one process, as startDoco runs it) reads GITHUB_APP_ID, the key file,
// GITHUB_WEBHOOK_SECRET and GITHUB_API_URL, so a signed delivery over real HTTP becomes the PR's
// record; no log line carries the secret or the key.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/auth/tokens.js';
import { loadConfig } from '../../src/config/environment.js';
import { ensurePrincipal, ensureWorkspace } from '../../src/auth/workspaces.js';
import { makeLog } from '../../src/lib/log.js';
import { startDoco, type RunningDoco } from '../../src/main.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import type { FakeGithub } from '../helpers/fake-github.js';
import { APP_ID, appKeys, delivery, fakeGithub, INSTALLATION_ID, WEBHOOK_SECRET } from '../helpers/github-app.js';

const keys = appKeys();
const lines: string[] = [];
let t: TestDb;
let home: string;
let gh: FakeGithub;
let doco: RunningDoco;
let token: string;

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

beforeAll(async () => {
  t = await createTestDb();
  home = await mkdtemp(path.join(os.tmpdir(), 'doco-gh-serve-'));
  await chmod(home, 0o755);
  await writeFile(path.join(home, 'app.pem'), keys.pem);
  gh = fakeGithub(keys.publicKey);
  const origin = await gh.start();
  gh.pulls.set(9, {
    number: 9,
    title: 'Wire the ledger',
    body: 'Adds the ledger.',
    state: 'open',
    merged: false,
    updated_at: '2026-11-30T09:00:00Z',
    head: { ref: 'ledger' },
    base: { ref: 'main' },
    files: ['app/ledger/post.ts'],
  });
  const config = loadConfig({
    DATABASE_URL: t.url,
    DOCO_HOME: home,
    DOCO_LOG_LEVEL: 'debug',
    GITHUB_APP_ID: APP_ID,
    GITHUB_APP_PRIVATE_KEY_FILE: path.join(home, 'app.pem'),
    GITHUB_WEBHOOK_SECRET: WEBHOOK_SECRET,
    GITHUB_API_URL: origin,
  });
  doco = await startDoco(
    config,
    makeLog('debug', (l) => lines.push(l)),
    { http: true, worker: true, port: await freePort() },
  );
  const ws = await ensureWorkspace(t.sql, 'default');
  token = await createToken(t.db, { workspaceId: ws, principalId: await ensurePrincipal(t.db, ws, 'ops', 'cli'), scope: 'write' });
});
afterAll(async () => {
  await doco?.stop();
  await gh.stop();
  await t.drop();
  await rm(home, { recursive: true, force: true });
});

describe('doco serve with the GitHub connector configured', () => {
  it('takes a signed delivery over HTTP and writes the PR record with its files', async () => {
    const added = await fetch(`${doco.url}/api/v1/connectors`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'github', installation_id: INSTALLATION_ID, repo: 'octo-org/billing' }),
    });
    expect(added.status).toBe(201);
    const d = delivery('pull_request', {
      action: 'opened',
      number: 9,
      pull_request: gh.pullJson(gh.pulls.get(9)!),
      repository: { full_name: 'octo-org/billing' },
      installation: { id: INSTALLATION_ID },
    });
    const res = await fetch(`${doco.url}/webhooks/github`, { method: 'POST', headers: d.headers, body: d.body });
    expect(res.status).toBe(202);
    const deadline = Date.now() + 20_000;
    let touch: readonly unknown[] = [];
    while (Date.now() < deadline && !touch.length) {
      touch =
        await t.sql`select 1 from doco.touches t join doco.connector_items i on i.node_id = t.node_id where i.external_id = 'octo-org/billing#9' and t.value = 'app/ledger/post.ts'`;
      if (!touch.length) await new Promise((r) => setTimeout(r, 50));
    }
    expect(touch).toHaveLength(1);
    const all = lines.join('\n');
    expect(all).not.toContain(WEBHOOK_SECRET);
    expect(all).not.toContain('PRIVATE KEY');
    expect(all).not.toContain(gh.token());
  });
});
