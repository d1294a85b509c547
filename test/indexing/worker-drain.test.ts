// The real worker, its crontab off: a capture's commit-time notification queues a drain job,
// and the record becomes searchable without anyone calling the drain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, type RunningWorker } from '../../src/jobs/worker.js';
import { capture, changeset } from '../../src/graph/writes.js';
import { noJudge } from '../../src/providers/judge.js';
import { makeLog } from '../../src/lib/log.js';
import { indexKeeper } from '../../src/indexing/index-keeper.js';
import { makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { localProviders } from '../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let worker: RunningWorker | undefined;
const log = makeLog('silent');
const providers = localProviders();
const keeper = indexKeeper(providers.store, log);
const ctx = () => ({ workspaceId: ws.id, principalId: ws.principalId, source: 'api' as const });

/** Polls until `check` holds; a bound on the wait, not a claim about speed. */
async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not met in time');
}

async function searchable(query: string): Promise<string[]> {
  const [vector] = await providers.embedder.embed([query], 'query');
  const { sparse } = await providers.store.search({ tenant: ws.id, vector: vector!, text: query, limit: 5 });
  return sparse.map((h) => h.nodeId);
}
const outboxCount = async () => (await t.sql<{ n: number }[]>`select count(*)::int as n from doco.outbox`)[0]!.n;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'worker-drain');
  worker = await startWorker({ connectionString: t.url, sql: t.sql, log, cron: false, ...providers, keeper });
});
afterAll(async () => {
  await worker?.stop();
  await keeper.flush();
  await t.drop();
});

describe('the worker', () => {
  it('indexes a captured record on its own, queued by the commit notification', async () => {
    expect(await searchable('albatross migration')).toEqual([]);
    const { node } = await capture({ db: t.db, judge: noJudge }, ctx(), {
      collection: 'constitution',
      node_type: 'reference',
      title: 'Albatross migration routes',
      prose: 'The albatross migration crosses the southern ocean.',
    });
    await until(async () => (await searchable('albatross migration')).includes(node.id));
    await until(async () => (await outboxCount()) === 0);
    const chunks = await t.sql<{ id: string }[]>`select id::text from doco.chunks where node_id = ${node.id}`;
    expect(chunks).toHaveLength(1);
    expect(await providers.store.count()).toBe(1);
    // Nothing was left to the (disabled) cron: no drain job waits in the queue.
    await until(async () => (await t.sql`select 1 from graphile_worker.jobs where task_identifier = 'outbox__drain'`).length === 0);
  });

  it('takes a retirement out of the index the same way', async () => {
    const { node } = await capture({ db: t.db, judge: noJudge }, ctx(), {
      collection: 'constitution',
      node_type: 'reference',
      title: 'Cormorant nesting survey',
      prose: 'Cormorants nest on the sea cliffs each spring.',
    });
    await until(async () => (await searchable('cormorant nesting')).includes(node.id));
    await changeset({ db: t.db, judge: noJudge }, ctx(), { operations: [{ op: 'retire', target: node.id }] });
    await until(async () => !(await searchable('cormorant nesting')).includes(node.id));
    await until(async () => (await outboxCount()) === 0);
    expect(await t.sql`select 1 from doco.chunks where node_id = ${node.id}`).toHaveLength(0);
  });
});
