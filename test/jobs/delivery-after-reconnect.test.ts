// The scale suite's lost GitHub delivery (docs/jobs.md, connectors__delivery): acknowledged,
// then its job completed while the delivery stayed unprocessed. As the primary came back, the
// worker's pool reconnected the connection an index drain's transaction had held; the drain's
// callback, still running, failed and its scope sent ROLLBACK on that connection while it asked
// for its array types; the delivery job's first read, waiting for the connection, was answered
// with the ROLLBACK's empty result, so the job found "no row", did nothing, and returned, and
// graphile-worker deleted it. Fix 7 of scripts/patch-postgres.cjs: a transaction whose
// connection closed sends nothing more. The job's body runs here on a one-connection pool, so
// the connection it reconnects is the dead transaction's.
import type { JobHelpers } from 'graphile-worker';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GithubClient } from '../../src/connectors/github/client.js';
import { kyselyOver } from '../../src/db/connect.js';
import { buildApp } from '../../src/http/app.js';
import { connectorDelivery } from '../../src/jobs/connector-tasks.js';
import { makeLog } from '../../src/lib/log.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { deadTransaction } from '../helpers/dead-transaction.js';
import type { FakeGithub } from '../helpers/fake-github.js';
import { APP_ID, appKeys, fakeGithub, INSTALLATION_ID, openedPullDelivery, WEBHOOK_SECRET } from '../helpers/github-app.js';
import { instantSleep } from '../helpers/retry.js';
import { callApi, jsonOf } from '../helpers/until.js';

const REPO = 'octo-org/ledger';
const keys = appKeys();
let t: TestDb;
let ws: TestWorkspace;
let gh: FakeGithub;
let app: ReturnType<typeof buildApp>;
let github: GithubClient;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'reconnect');
  gh = fakeGithub(keys.publicKey, REPO);
  const origin = await gh.start();
  github = new GithubClient({
    apiUrl: origin,
    appId: APP_ID,
    privateKey: keys.pem,
    retry: { sleep: instantSleep().sleep, maxAttempts: 2 },
  });
  app = buildApp({ ...makeApp(t).deps, githubWebhookSecret: WEBHOOK_SECRET });
  const added = await callApi(app, 'POST', '/api/v1/connectors', ws.writeToken, {
    kind: 'github',
    installation_id: INSTALLATION_ID,
    repo: REPO,
  });
  expect(added.status).toBe(201);
});
afterAll(async () => {
  await gh.stop();
  await t.drop();
});

it('processes a delivery whose job first reads on the connection a dead transaction had, or fails; never completes with it unprocessed', async () => {
  const d = openedPullDelivery(gh, REPO, {
    number: 7,
    title: 'Ledger rounding',
    body: 'Rounds half to even.',
    branch: 'rounding',
    file: 'src/ledger.ts',
    updated_at: '2026-11-30T09:07:00Z',
  });
  const sent = await jsonOf(await app.request('/webhooks/github', { method: 'POST', headers: d.headers, body: d.body }));
  expect(sent.status).toBe(202);

  // The worker's pool, one connection: every new connection first asks for the array types, and
  // the dead transaction's callback goes on (and fails, so its scope sends ROLLBACK) just then.
  let types: (() => void) | undefined;
  const sql = postgres(t.url, { max: 1, onnotice: () => {}, debug: (_c, query) => void (/typarray/.test(query) && types?.()) });
  const warnings: string[] = [];
  const helpers = { logger: { info() {}, debug() {}, error() {}, warn: (m: string) => warnings.push(m) } } as unknown as JobHelpers;
  try {
    types = await deadTransaction(t.sql, sql, async () => {
      throw new Error('the index drain failed after its connection closed');
    });
    const job = connectorDelivery({ sql, db: kyselyOver(sql), log: makeLog('error'), github });
    // Resolving is what makes graphile-worker complete (delete) the job; a throw would retry it.
    const outcome = await Promise.resolve(job({ kind: 'github', deliveryId: d.id }, helpers)).then(
      () => 'completed',
      (err: Error) => `failed: ${err.message}`,
    );
    const [row] = await t.sql<{ processed: boolean }[]>`
      select processed_at is not null as processed from doco.connector_deliveries where kind = 'github' and delivery_id = ${d.id}`;
    expect({ outcome, processed: row!.processed, warnings }).toEqual({ outcome: 'completed', processed: true, warnings: [] });
  } finally {
    await sql.end({ timeout: 1 });
  }
});
