// DATABASE_READ_URL against a real streaming replica (docs/replica.md): a primary made with
// Debian's initdb and a hot standby of it made with `pg_basebackup -R` (test/helpers/postgres-cluster.ts),
// and Doco started in process as `doco serve` starts it (startDoco, with its worker), on
// DATABASE_URL + DATABASE_READ_URL. QDRANT_URL points at the loopback fake of
// test/helpers/fake-qdrant.ts, which stands in for a Qdrant server: the production shape a
// replica goes with (the embedded index is one process's). Shown here: a capture then a brief
// asked after its changeset finds the record; with the standby's replay paused, a brief without
// the marker reads the standby (the record is not there yet) and one with it still finds it;
// /readyz shows the lag; a lag past the bound, and a standby stopped, send reads to the primary
// (never a 500), and they come back when it catches up or starts again, one log line each way.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/auth/tokens.js';
import { ensurePrincipal, ensureWorkspace } from '../../src/auth/workspaces.js';
import type { Brief } from '../../src/brief/types.js';
import { loadConfig } from '../../src/config/environment.js';
import { connect, type DbHandles } from '../../src/db/connect.js';
import { openReadReplica, type ReadRoute } from '../../src/db/read-replica.js';
import { buildApp } from '../../src/http/app.js';
import { makeLog } from '../../src/lib/log.js';
import { startDoco, type RunningDoco } from '../../src/main.js';
import { noJudge } from '../../src/providers/judge.js';
import { freePort, waitFor } from '../helpers/doco-process.js';
import { FakeQdrant } from '../helpers/fake-qdrant.js';
import { startPrimary, startReplica, stopAllClusters, type PgCluster } from '../helpers/postgres-cluster.js';
import { localProviders } from '../helpers/search.js';

let primary: PgCluster;
let replica: PgCluster;
let qdrant: FakeQdrant;
let home: string;
let doco: RunningDoco;
let handles: DbHandles;
let standby: postgres.Sql;
let tokens: { read: string; write: string };
const logged: string[] = [];
const ids: Record<string, string> = {};

const ASK = 'Who sends the refund emails?';
const call = async (method: string, route: string, body?: unknown) => {
  const res = await fetch(`${doco.url}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${method === 'GET' ? tokens.read : tokens.write}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
};
const ok = async (method: string, route: string, body?: unknown) => {
  const res = await call(method, route, body);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body;
};
const briefIds = async (query = '') => {
  const b = (await ok('GET', `/api/v1/brief.json?about=${encodeURIComponent(ASK)}${query}`)) as Brief;
  return [...Object.values(b.tiers).flat(), ...b.proposed].map((i) => i.id);
};
const readyz = async () => {
  const res = await fetch(`${doco.url}/readyz`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { read: Record<string, any> }).read;
};
const warnings = (lines: string[], re: RegExp) => lines.filter((l) => / warn /.test(l) && re.test(l));
const capture = (title: string) =>
  ok('POST', '/api/v1/capture', {
    collection: 'billing',
    node_type: 'decision',
    title,
    prose: `${title}. The refund emails are sent by the billing service, never by support.`,
  });

beforeAll(async () => {
  primary = await startPrimary({ database: 'doco' });
  replica = await startReplica(primary);
  qdrant = new FakeQdrant();
  const qdrantUrl = await qdrant.start();
  home = await mkdtemp(path.join(os.tmpdir(), 'doco-replica-'));
  const config = loadConfig({
    DATABASE_URL: primary.url('doco'),
    DATABASE_READ_URL: replica.url('doco'),
    // Far above what this test waits, so only the second app below falls back for lag.
    DOCO_READ_MAX_LAG_MS: '60000',
    QDRANT_URL: qdrantUrl,
    DOCO_HOME: home,
  });
  doco = await startDoco(
    config,
    makeLog('info', (l) => logged.push(l)),
    { http: true, worker: true, port: await freePort() },
  );
  handles = connect(primary.url('doco'), { max: 2 });
  standby = postgres(replica.url('doco'), { max: 1, onnotice: () => {} });
  const workspaceId = await ensureWorkspace(handles.sql, 'replica');
  const principalId = await ensurePrincipal(handles.db, workspaceId, 'tester', 'cli');
  tokens = {
    read: await createToken(handles.db, { workspaceId, principalId, scope: 'read' }),
    write: await createToken(handles.db, { workspaceId, principalId, scope: 'write' }),
  };
  await ok('POST', '/api/v1/collections', { slug: 'billing', template: 'product-decisions', goal: 'How billing works' });
}, 180_000);

afterAll(async () => {
  await doco?.stop();
  await standby?.end();
  await handles?.close();
  await qdrant?.stop();
  await stopAllClusters();
  if (home) await rm(home, { recursive: true, force: true });
});

describe('a streaming replica', () => {
  it('is where briefs and searches read, and /readyz shows its lag', async () => {
    const read = await waitFor('a measured lag on /readyz', async () => {
      const r = await readyz();
      return r.lag_bytes === null ? undefined : r;
    });
    expect(read).toMatchObject({ reading_from: 'replica', state: 'ok', standby: true, max_lag_ms: 60000 });
    expect(read.lag_bytes).toBeGreaterThanOrEqual(0);
    expect(read.lag_ms).toBeGreaterThanOrEqual(0);
    expect(logged.join('\n')).toMatch(/briefs and searches read from DATABASE_READ_URL \(\d+ bytes, \d+ ms behind\)/);
    const [conn] = await standby<{ n: number }[]>`select count(*)::int as n from pg_stat_activity where application_name = 'doco-read'`;
    expect(conn!.n).toBeGreaterThan(0);
  });

  it('answers a brief and a search asked after a capture with the record captured', async () => {
    const written = await capture('Refund emails come from billing');
    ids.first = written.node.id;
    expect(await briefIds(`&after_changeset=${written.changeset_id}`)).toContain(ids.first);
    const found = await ok('GET', `/api/v1/search?q=refund+emails&after_changeset=${written.changeset_id}`);
    expect(found.results.map((r: { id: string }) => r.id)).toContain(ids.first);
  });

  describe('while its replay is paused', () => {
    let lagging: { reads: ReadRoute; app: ReturnType<typeof buildApp>; lines: string[] };
    let changeset: string;

    beforeAll(async () => {
      await standby`select pg_wal_replay_pause()`;
      await waitFor('the replay to pause', async () => {
        const [row] = await standby<{ state: string }[]>`select pg_get_wal_replay_pause_state() as state`;
        return row!.state === 'paused';
      });
      const written = await capture('Refund emails carry the order number');
      ids.paused = written.node.id;
      changeset = written.changeset_id;
      // A second server on the same databases with a bound of 200 ms, checking every 50 ms.
      const lines: string[] = [];
      const reads = await openReadReplica(handles, {
        url: replica.url('doco'),
        maxLagMs: 200,
        log: makeLog('info', (l) => lines.push(l)),
        checkEveryMs: 50,
      });
      lagging = {
        reads,
        lines,
        app: buildApp({ db: handles.db, sql: handles.sql, judge: noJudge, version: 'test', ...localProviders(), reads }),
      };
    });
    afterAll(async () => {
      await lagging?.reads.close();
    });

    it('a brief without the marker reads the replica, which has not the record yet; with it, the record is there', async () => {
      expect(await briefIds()).not.toContain(ids.paused);
      expect(await briefIds(`&after_changeset=${changeset}`)).toContain(ids.paused);
      expect(await briefIds()).not.toContain(ids.paused);
    });

    it('a server whose bound the lag passes reads the primary, and says so once', async () => {
      await waitFor('the lag to pass 200 ms', async () => lagging.reads.status().state === 'lagging');
      const res = await lagging.app.request(`/api/v1/brief.json?about=${encodeURIComponent(ASK)}`, {
        headers: { authorization: `Bearer ${tokens.read}` },
      });
      expect(res.status).toBe(200);
      const brief = (await res.json()) as Brief;
      expect(
        Object.values(brief.tiers)
          .flat()
          .map((i) => i.id),
      ).toContain(ids.paused);
      const read = (await (await lagging.app.request('/readyz')).json()) as { read: Record<string, any> };
      expect(read.read).toMatchObject({ reading_from: 'primary', state: 'lagging', standby: true });
      expect(read.read.lag_bytes).toBeGreaterThan(0);
      expect(read.read.lag_ms).toBeGreaterThan(200);
      expect(
        warnings(lagging.lines, /read replica lags .*DOCO_READ_MAX_LAG_MS=200.*read from the primary until it catches up/),
      ).toHaveLength(1);
    });

    it('once replay resumes, reads return to the replica, which now has the record', async () => {
      await standby`select pg_wal_replay_resume()`;
      await waitFor('the replica to replay the capture', async () => (await briefIds()).includes(ids.paused!));
      await waitFor('the second server to read the replica again', async () => lagging.reads.status().reading_from === 'replica');
      expect(warnings(lagging.lines, /read replica back .*read from it again/)).toHaveLength(1);
      expect(warnings(lagging.lines, /lags/)).toHaveLength(1);
    });
  });

  it('stopped, sends reads to the primary with no 500; started again, takes them back', async () => {
    const written = await capture('Refund emails are sent once a day');
    ids.stopped = written.node.id;
    await standby.end();
    await replica.stop('fast');
    // Before or after the next check: never a 500.
    expect(await briefIds()).toEqual(expect.arrayContaining([ids.first, ids.stopped]));
    const read = await waitFor('/readyz to say reads go to the primary', async () => {
      const r = await readyz();
      return r.reading_from === 'primary' ? r : undefined;
    });
    expect(read).toMatchObject({ state: 'down', lag_bytes: null });
    const found = await ok('GET', '/api/v1/search?q=refund+emails');
    expect(found.results.map((r: { id: string }) => r.id)).toContain(ids.stopped);
    expect(await briefIds(`&after_changeset=${written.changeset_id}`)).toContain(ids.stopped);

    await replica.start();
    standby = postgres(replica.url('doco'), { max: 1, onnotice: () => {} });
    await waitFor('/readyz to say reads go to the replica again', async () => (await readyz()).reading_from === 'replica');
    expect(await briefIds()).toEqual(expect.arrayContaining([ids.first, ids.paused, ids.stopped]));
    expect(warnings(logged, /read replica unreachable .*read from the primary until it answers/)).toHaveLength(1);
    expect(warnings(logged, /read replica back .*read from it again/)).toHaveLength(1);
  });
});
