// What the Notion and Drive end-to-end tests share: polling without timed assertions, the REST
// calls, row counts of everything a sync can write, and one sweep run through the real worker.
import type { buildApp } from '../../src/http/app.js';
import { SWEEP_TASK } from '../../src/connectors/queue.js';
import type { RunningWorker } from '../../src/jobs/worker.js';
import type { TestDb } from './db.js';
import { until } from './until.js';

export { until };

export function connectorHarness(t: TestDb, app: ReturnType<typeof buildApp>, worker: () => RunningWorker) {
  const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as Record<string, any> });
  const api = async (method: string, path: string, token: string | undefined, body?: unknown) =>
    json(
      await app.request(path, {
        method,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  const post = async (path: string, req: { body: string; headers: Record<string, string> }) =>
    json(await app.request(path, { method: 'POST', headers: req.headers, body: req.body }));

  /**
   * Everything a sync can write: a run that changed nothing leaves every figure as it was. Jobs
   * count all but the index drain, which the worker queues on the outbox's notification after any
   * commit (src/jobs/worker.ts): one from an earlier test's writes may be queued between two counts.
   */
  const counts = async () =>
    (
      await t.sql<Record<string, number | string | null>[]>`
      select (select count(*) from doco.nodes)::int as nodes, (select count(*) from doco.node_versions)::int as versions,
             (select count(*) from doco.changesets)::int as changesets, (select count(*) from doco.connector_deliveries)::int as deliveries,
             (select count(*) from doco.connector_items)::int as items, (select max(updated_at)::text from doco.connector_items) as items_touched,
             (select max(updated_at)::text from doco.connector_state) as state_touched, (select count(*) from graphile_worker.jobs where task_identifier <> 'outbox__drain')::int as jobs`
    )[0]!;

  const status = async (id: string, token: string) =>
    (await api('GET', `/api/v1/connectors/${id}`, token)).body.connector as Record<string, any>;
  const idle = () => until(async () => (await t.sql<{ n: number }[]>`select count(*)::int as n from graphile_worker.jobs`)[0]!.n === 0);

  /** Runs one sweep of the kind through the worker and waits for its outcome on the connector's row. */
  async function sweep(kind: string, id: string, token: string) {
    const before = await status(id, token);
    await worker().runner.addJob(SWEEP_TASK, { kind });
    await until(async () => {
      const s = await status(id, token);
      return (s.last_sync_at ?? '') !== (before.last_sync_at ?? '') || (s.last_error_at ?? '') !== (before.last_error_at ?? '');
    });
    await idle();
    return status(id, token);
  }

  return { api, post, counts, status, idle, sweep };
}
