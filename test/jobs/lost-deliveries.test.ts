// The safety net under webhook deliveries (docs/jobs.md, connectors__delivery): a delivery left
// unprocessed with no job is queued again, in the named queue recorded with it, by the
// every-minute connectors__requeue (doco.requeue_lost_deliveries, sql/connectors.sql). A job is
// "lost" here as the scale suite's was: completed (graphile_worker.complete_jobs) with its
// delivery unprocessed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordDelivery } from '../../src/connectors/deliveries.js';
import { GithubClient } from '../../src/connectors/github/client.js';
import { queueDelivery, REQUEUE_TASK, requeueLostDeliveries } from '../../src/connectors/queue.js';
import { buildApp } from '../../src/http/app.js';
import { LOST_DELIVERY_AFTER_S } from '../../src/jobs/connector-tasks.js';
import { makeLog } from '../../src/lib/log.js';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { startConnectorWorker } from '../helpers/connector-worker.js';
import type { FakeGithub } from '../helpers/fake-github.js';
import { APP_ID, appKeys, fakeGithub, INSTALLATION_ID, openedPullDelivery, WEBHOOK_SECRET } from '../helpers/github-app.js';
import { instantSleep } from '../helpers/retry.js';
import { localProviders } from '../helpers/search.js';
import { callApi, jsonOf, until } from '../helpers/until.js';

const REPO = 'octo-org/ledger';
const keys = appKeys();
const providers = localProviders();
let t: TestDb;
let ws: TestWorkspace;
let gh: FakeGithub;
let app: ReturnType<typeof buildApp>;
let connectorId: string;
let githubOrigin: string;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'lost');
  gh = fakeGithub(keys.publicKey, REPO);
  githubOrigin = await gh.start();
  app = buildApp({ ...makeApp(t, undefined, providers).deps, githubWebhookSecret: WEBHOOK_SECRET });
  const added = await callApi(app, 'POST', '/api/v1/connectors', ws.writeToken, {
    kind: 'github',
    installation_id: INSTALLATION_ID,
    repo: REPO,
  });
  expect(added.status).toBe(201);
  connectorId = added.body.connector.id;
});
afterAll(async () => {
  await gh.stop();
  await t.drop();
});

const key = (id: string) => `connectors__delivery:github:${id}`;
/** The delivery's job, as graphile-worker shows it. */
const jobOf = async (id: string) =>
  (
    await t.sql<{ id: string; queue_name: string | null; max_attempts: number }[]>`
      select id, queue_name, max_attempts from graphile_worker.jobs where key = ${key(id)}`
  )[0];
/** Records a delivery and its job, as a webhook route does, received `minutesAgo`. */
async function received(id: string, minutesAgo: number, jobQueue?: string) {
  await t.sql.begin(async (tx) => {
    await recordDelivery(tx, {
      kind: 'github',
      deliveryId: id,
      connectorId,
      event: 'issues',
      payload: {},
      ...(jobQueue ? { jobQueue } : {}),
    });
    await queueDelivery(tx, 'github', id);
  });
  await t.sql`update doco.connector_deliveries set received_at = now() - make_interval(mins => ${minutesAgo}) where delivery_id = ${id}`;
  return (await jobOf(id))!;
}
/** Its job completed without its delivery processed: the scale suite's loss. */
const lose = (job: { id: string }) => t.sql`select graphile_worker.complete_jobs(array[${job.id}]::bigint[])`;

describe('a delivery whose job was lost', () => {
  it('is queued again once, in its named queue, 10 attempts; the processed, the recent and those with a job are left alone', async () => {
    await lose(await received('lost-1', 5, 'slack:connector_x:C0SOME'));
    await lose(await received('lost-2', 5));
    await lose(await received('recent', 0));
    await lose(await received('processed', 5));
    await t.sql`update doco.connector_deliveries set processed_at = now() where delivery_id = 'processed'`;
    await received('waiting', 5);
    const failed = await received('failed', 5);
    await t.sql`select graphile_worker.permanently_fail_jobs(array[${failed.id}]::bigint[], 'gave up')`;

    expect(await requeueLostDeliveries(t.sql, LOST_DELIVERY_AFTER_S)).toEqual([key('lost-1'), key('lost-2')]);
    expect(await jobOf('lost-1')).toMatchObject({ queue_name: 'slack:connector_x:C0SOME', max_attempts: 10 });
    expect(await jobOf('lost-2')).toMatchObject({ queue_name: null, max_attempts: 10 });
    expect(await jobOf('recent')).toBeUndefined();
    // Their jobs exist now: nothing more to queue.
    expect(await requeueLostDeliveries(t.sql, LOST_DELIVERY_AFTER_S)).toEqual([]);
    await t.sql`delete from doco.connector_deliveries where delivery_id in ('lost-1', 'lost-2', 'recent', 'processed', 'waiting', 'failed')`;
    await t.sql`select graphile_worker.remove_job(k) from unnest(${[key('lost-1'), key('lost-2'), key('waiting'), key('failed')]}::text[]) as k`;
  });

  it('is processed by the worker once the every-minute task has queued it again', async () => {
    const d = openedPullDelivery(gh, REPO, {
      number: 11,
      title: 'Ledger export',
      body: 'Exports the ledger as CSV.',
      branch: 'export',
      file: 'src/export.ts',
      updated_at: '2026-11-30T09:11:00Z',
    });
    expect((await jsonOf(await app.request('/webhooks/github', { method: 'POST', headers: d.headers, body: d.body }))).status).toBe(202);
    await lose((await jobOf(d.id))!);
    await t.sql`update doco.connector_deliveries set received_at = now() - interval '5 minutes' where delivery_id = ${d.id}`;

    const lines: string[] = [];
    const log = makeLog('info', (l) => lines.push(l));
    const github = new GithubClient({
      apiUrl: githubOrigin,
      appId: APP_ID,
      privateKey: keys.pem,
      retry: { sleep: instantSleep().sleep, maxAttempts: 2 },
    });
    const worker = await startConnectorWorker(t, providers, log, { github });
    try {
      await worker.runner.addJob(REQUEUE_TASK, {});
      const processed = async () =>
        (
          await t.sql<
            { done: boolean }[]
          >`select processed_at is not null as done from doco.connector_deliveries where delivery_id = ${d.id}`
        )[0]!.done;
      await until(processed);
      expect(lines.filter((l) => l.includes(key(d.id)))).toEqual([expect.stringMatching(/queued again 1 webhook delivery job\(s\) lost/)]);
      expect(
        await t.sql`select i.external_id from doco.connector_items i where i.kind = 'github' and i.external_id = ${`${REPO}#11`}`,
      ).toHaveLength(1);
    } finally {
      await worker.stop();
    }
  });
});
