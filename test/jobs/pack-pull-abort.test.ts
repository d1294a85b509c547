// A docs-pack pull that does not end holds no worker pool past its shutdown: graphile-worker
// aborts a shutting-down pool's tasks after 5 s, and the pull's task then fails its job (to be
// pulled again on a live pool) instead of keeping the job locked by a pool that runs nothing
// else (src/jobs/pack-tasks.ts). The registering service here accepts the pack's request and
// never answers, as a pull stuck on anything would; the fetch's own 15 s timeout is far off.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PACK_ROUTE } from '../../src/ingest/packs/fetch.js';
import { PACK_PULL_TASK, queuePackPull } from '../../src/ingest/packs/queue.js';
import { registerPack } from '../../src/ingest/packs/registry.js';
import { makeLog } from '../../src/lib/log.js';
import { makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { startTestWorker } from '../helpers/connector-worker.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { LOOPBACK_PACK_HOSTS } from '../helpers/pack-service.js';
import { localProviders } from '../helpers/search.js';

let t: TestDb;
let ws: TestWorkspace;
let server: http.Server;
const sockets = new Set<Socket>();
/** Requests for the pack the service received and never answered. */
let held = 0;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'pack-abort');
  server = http.createServer((req) => {
    if (req.url === PACK_ROUTE) held++;
  });
  server.on('connection', (s) => sockets.add(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => server.close(resolve));
  await t.drop();
});

it('fails a pull still waiting when its pool shuts down, leaving the job to be pulled again', async () => {
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await registerPack(t.sql, ws.id, 'stalled', baseUrl);
  await queuePackPull(t.sql, ws.id, 'stalled');
  const worker = await startTestWorker(t, localProviders(), makeLog('silent'), { packHosts: LOOPBACK_PACK_HOSTS });
  const deadline = Date.now() + 20_000;
  while (held === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expect(held).toBe(1);

  // A graceful stop waits for the running pull: until the pool aborts it, not until the fetch times out.
  await worker.stop();
  expect(held).toBe(1);
  const [job] = await t.sql<{ locked_by: string | null; attempts: number; last_error: string | null }[]>`
    select locked_by, attempts, last_error from graphile_worker.jobs where task_identifier = ${PACK_PULL_TASK}`;
  expect(job).toMatchObject({ locked_by: null, attempts: 1 });
  expect(job!.last_error).toContain('docs pack stalled: pull given up: its worker pool shut down before it ended');
  const [pack] = await t.sql<{ last_hash: string | null }[]>`select last_hash from doco.docs_packs where code = 'stalled'`;
  expect(pack!.last_hash).toBeNull();
});
