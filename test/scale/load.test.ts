// The scale suite (issue 28; docs/production.md, "What the scale suite proves"): the production
// layout on loopback — a Postgres primary and a streaming standby of it (Debian's initdb, pg_ctl
// and pg_basebackup -R, test/helpers/postgres-cluster.ts), two `doco serve --no-worker` and two
// `doco worker` processes, all on DATABASE_URL (primary) + DATABASE_READ_URL (standby) +
// QDRANT_URL. QDRANT_URL points at test/helpers/fake-qdrant.ts, which stands in for a Qdrant
// server (its REST API, with real filtering and scoring) so that every process may run: the
// embedded index is one process's.
//
// CLIENTS clients share the two API processes for LOAD_MS: captures, 50-operation changesets
// (each with a supersede), relates, briefs, searches and MCP tool calls. Mid-load one API
// process and one worker are killed with SIGKILL and started again, then the primary is stopped
// (`pg_ctl -m fast stop`) for PRIMARY_DOWN_MS and started again. Afterwards: every acknowledged
// write is there and whole, none landed twice, `doco verify` is clean, the outbox drains, no
// job is left failed, Qdrant holds exactly the live chunks, both API processes compose the same
// brief for the same ask, and no request got a 500 or waited past the deadline: while the
// primary was down a client got 503 with Retry-After, or no connection at all from the process
// being killed. GitHub webhook deliveries are not sent: a delivery runs the connector's jobs
// against the GitHub fake, which the connector suites cover, and here would only share two cores.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCrontab } from 'graphile-worker';
import postgres from 'postgres';
import { crontabFor, type JobDeps } from '../../src/jobs/tasks.js';
import { cleanUp, DocoHome, DocoProcess, freePort, waitFor } from '../helpers/doco-process.js';
import { FakeQdrant } from '../helpers/fake-qdrant.js';
import { expectIndexHoldsLiveChunks } from '../helpers/index-check.js';
import { startPrimary, startReplica, stopAllClusters, type PgCluster } from '../helpers/postgres-cluster.js';
import { ASKS, COLLECTION, DEADLINE_MS, percentile, runClient, type Ledger, type Phase } from './clients.js';

// 16 clients for 60 s is the target. On this two-core machine (four doco processes, two
// Postgres and the clients share the cores) it is measured in docs/production.md.
const CLIENTS = Number(process.env.DOCO_SCALE_CLIENTS ?? 16);
const LOAD_MS = Number(process.env.DOCO_SCALE_SECONDS ?? 60) * 1000;
const KILL_AT = 0.25;
const PRIMARY_DOWN_AT = 0.5;
const PRIMARY_DOWN_MS = 4000;
const AFTER_MS = 15_000;
/** How long `pg_ctl -m fast stop` took, and the primary was away in all. */
let pgTimes = { stopMs: 0, downMs: 0 };
/**
 * How long this process's event loop was held, by phase (max and p99, ms): the clients run here,
 * and a client that reads an answer late keeps its socket past the server's idle timeout by as
 * much (src/http/keep-alive.ts).
 */
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
const loopDelays: Partial<Record<Phase, string>> = {};
function endPhase(p: Phase): void {
  loopDelays[p] = `max ${Math.round(loopDelay.max / 1e6)} ms, p99 ${Math.round(loopDelay.percentile(99) / 1e6)} ms`;
  loopDelay.reset();
}

let primary: PgCluster;
let replica: PgCluster;
let qdrant: FakeQdrant;
let env: NodeJS.ProcessEnv;
let sql: postgres.Sql;
let token: string;
const apis: DocoProcess[] = [];
const apiPorts: number[] = [];
const workers: DocoProcess[] = [];
/** The processes killed, kept for their logs. */
const logged: (readonly [string, DocoProcess])[] = [];

async function startApi(i: number): Promise<DocoProcess> {
  const home = await DocoHome.make();
  const p = new DocoProcess(['serve', '--no-worker'], home.env({ ...env, DOCO_PORT: String(apiPorts[i]) }));
  await p.waitForLog(/serving REST/);
  return p;
}
async function startWorker(): Promise<DocoProcess> {
  const home = await DocoHome.make();
  const p = new DocoProcess(['worker'], home.env(env));
  await p.waitForLog(/worker running/);
  return p;
}
const apiUrl = (i: number) => `http://127.0.0.1:${apiPorts[i]}`;

beforeAll(async () => {
  primary = await startPrimary({ database: 'doco' });
  replica = await startReplica(primary);
  qdrant = new FakeQdrant();
  env = { DATABASE_URL: primary.url('doco'), DATABASE_READ_URL: replica.url('doco'), QDRANT_URL: await qdrant.start() };
  const admin = await DocoHome.make();
  const migrated = await admin.run(['migrate'], env);
  expect(migrated.code, migrated.stderr).toBe(0);
  const minted = await admin.run(['token', 'create', '--scope', 'write'], env);
  expect(minted.code, minted.stderr).toBe(0);
  token = minted.stdout.trim();
  for (let i = 0; i < 2; i++) apiPorts.push(await freePort());
  apis.push(...(await Promise.all([startApi(0), startApi(1)])));
  workers.push(...(await Promise.all([startWorker(), startWorker()])));
  sql = postgres(primary.url('doco'), { max: 2, onnotice: () => {} });
  const res = await fetch(`${apiUrl(0)}/api/v1/collections`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ slug: COLLECTION, template: 'meeting-notes', goal: 'What the scale suite wrote.' }),
  });
  expect(res.status, await res.text()).toBe(201);
}, 180_000);

afterAll(async () => {
  // DOCO_SCALE_LOGS=<dir> keeps each process's log there, for a failure that needs more than the tail.
  const dir = process.env.DOCO_SCALE_LOGS;
  if (dir) {
    await mkdir(dir, { recursive: true });
    for (const [name, p] of [
      ...logged,
      ...apis.map((p, i) => [`api${i}`, p] as const),
      ...workers.map((p, i) => [`worker${i}`, p] as const),
    ])
      await writeFile(path.join(dir, `${name}-${p.child.pid}.log`), p.log);
  }
  await sql?.end();
  await cleanUp();
  await qdrant?.stop();
  await stopAllClusters();
}, 60_000);

const ledger: Ledger = { samples: [], captures: [], changesets: [], relates: [], unanswered: [] };
const PHASES: Phase[] = ['before kill', 'after kills', 'primary down', 'after'];

describe(`${CLIENTS} clients for ${LOAD_MS / 1000} s through two API processes and two workers`, () => {
  it('loses no acknowledged write, answers no 500 and no hang through a kill -9 of an API and a worker and a primary stop', async () => {
    let phase: Phase = 'before kill';
    let stopped = false;
    const started = Date.now();
    loopDelay.enable();
    const clients = Promise.all(
      Array.from({ length: CLIENTS }, (_, id) =>
        runClient({ id, api: id % 2, apiUrl: () => apiUrl(id % 2), token, phase: () => phase, stopped: () => stopped, ledger }),
      ),
    );
    const at = (share: number) => new Promise((r) => setTimeout(r, Math.max(0, started + share * LOAD_MS - Date.now())));

    await at(KILL_AT);
    endPhase(phase);
    phase = 'after kills';
    logged.push(['api1-killed', apis[1]!], ['worker1-killed', workers[1]!]);
    await Promise.all([apis[1]!.kill9(), workers[1]!.kill9()]);
    [apis[1], workers[1]] = await Promise.all([startApi(1), startWorker()]);

    await at(PRIMARY_DOWN_AT);
    endPhase(phase);
    phase = 'primary down';
    const down = Date.now();
    await primary.stop('fast');
    const stopMs = Date.now() - down;
    await new Promise((r) => setTimeout(r, PRIMARY_DOWN_MS));
    await primary.start();
    endPhase(phase);
    phase = 'after';
    const back = Date.now();
    pgTimes = { stopMs, downMs: back - down };

    // However long the stop took, the clients run AFTER_MS more against the primary started again.
    await at(1);
    await new Promise((r) => setTimeout(r, Math.max(0, back + AFTER_MS - Date.now())));
    stopped = true;
    await clients;
    endPhase(phase);
    loopDelay.disable();
    const loadSeconds = (Date.now() - started) / 1000;
    report(loadSeconds);

    // No 500, no hang; every 503 said when to come back.
    const bad = ledger.samples.filter(
      (s) =>
        s.status === 500 || s.status === 'timeout' || (typeof s.status === 'number' && s.status >= 400 && ![409, 503].includes(s.status)),
    );
    expect(bad.slice(0, 10), `${bad.length} requests got a 500, another unexpected error, or hung past ${DEADLINE_MS} ms`).toEqual([]);
    expect(ledger.samples.filter((s) => s.status === 503 && s.retryAfter === false)).toEqual([]);
    // No connection refused except from the API process that was killed, while it was down.
    expect(ledger.samples.filter((s) => s.status === 'conn' && s.api === 0)).toEqual([]);
    // Both processes recovered without a restart: writes and briefs succeed on each after the primary came back.
    for (const api of [0, 1])
      for (const kind of ['capture', 'brief'] as const)
        expect(
          ledger.samples.some(
            (s) => s.phase === 'after' && s.api === api && s.kind === kind && typeof s.status === 'number' && s.status < 300,
          ),
          `${kind} on API ${api} after`,
        ).toBe(true);
    for (const p of [...apis, ...workers]) expect(p.running, p.log.slice(-2000)).toBe(true);
  }, 240_000);

  it('holds every acknowledged write whole, once; verify is clean; the outbox drains and Qdrant holds exactly the live chunks', async () => {
    const captures = await sql<{ id: string; title: string; prose: string }[]>`
      select n.id, n.title, v.prose from doco.nodes n join doco.node_versions v on v.node_id = n.id and v.version = 1
       where n.id = any(${ledger.captures.map((c) => c.id)})`;
    const byId = new Map(captures.map((c) => [c.id, c]));
    for (const c of ledger.captures) expect(byId.get(c.id), `capture ${c.title}`).toEqual(c);

    const created = ledger.changesets.flatMap((c) => c.created).concat(ledger.relates);
    const [found] = await sql<{ n: number }[]>`
      select (select count(*)::int from doco.nodes where id = any(${created})) + (select count(*)::int from doco.edges where id = any(${created})) as n`;
    expect(found!.n, 'every record and edge of an acknowledged changeset or relate').toBe(created.length);
    const changesets = new Map(
      (
        await sql<{ summary: string; ids: string[] }[]>`
        select summary, array_agg(id) as ids from doco.changesets where summary like 'scale-c%' group by summary`
      ).map((r) => [r.summary, r.ids]),
    );
    for (const c of ledger.changesets) expect(changesets.get(c.summary), c.summary).toEqual([c.changesetId]);
    // Nothing landed twice: one changeset per marker, one record per title (a retried write would make two).
    expect([...changesets].filter(([, ids]) => ids.length > 1)).toEqual([]);
    const dupes =
      await sql`select title, count(*)::int as n from doco.nodes where title like 'scale-c%' group by title having count(*) > 1`;
    expect(dupes).toEqual([]);
    const superseded = ledger.changesets.filter((c) => c.superseded).map((c) => c.superseded!);
    const [retired] = await sql<
      { n: number }[]
    >`select count(*)::int as n from doco.nodes where id = any(${superseded}) and lifecycle = 'retired'`;
    expect(retired!.n, 'every record an acknowledged supersede replaced is retired').toBe(superseded.length);

    const verify = await (await DocoHome.make()).run(['verify'], env);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);

    try {
      await waitFor('the outbox to drain', async () => (await sql`select count(*)::int as n from doco.outbox`)[0]!.n === 0, 120_000, 250);
    } catch (err) {
      console.log(await drainState());
      throw err;
    }
    // A periodic job (a crontab task: the drain, the PageRank sweep, …) that failed as the primary
    // stopped has given up by design: a cron job has one attempt, and a job superseded while it
    // ran (its key taken by a newer one) has none left; the next tick or notification queues it
    // afresh, and the drain's work is checked above and below. Any other job must not give up.
    const periodic = [...new Set(parseCrontab(crontabFor({} as JobDeps)).map((c) => c.task))];
    const failed = await sql`
      select task_identifier, last_error from graphile_worker.jobs
       where attempts >= max_attempts and last_error is not null and not task_identifier = any(${periodic})`;
    expect(failed, 'no job gave up').toEqual([]);
    await expectIndexHoldsLiveChunks(sql, COLLECTION, qdrant);
  }, 180_000);

  it('composes the same brief for the same ask on both API processes', async () => {
    const last = ledger.changesets.at(-1)!.changesetId;
    for (const ask of ASKS) {
      const [a, b] = await Promise.all(
        [0, 1].map(async (i) => {
          const res = await fetch(`${apiUrl(i)}/api/v1/brief.json?about=${encodeURIComponent(ask)}&after_changeset=${last}`, {
            headers: { authorization: `Bearer ${token}` },
          });
          expect(res.status).toBe(200);
          return normalised(await res.json());
        }),
      );
      // Compared as parsed JSON for a readable diff; equal parsed values of one serialiser are equal bytes.
      expect(JSON.parse(a!), ask).toEqual(JSON.parse(b!));
      expect(a, ask).toBe(b);
    }
  }, 60_000);
});

/** What a stalled drain left: the jobs, the outbox rows, sessions holding locks, the workers' logs. */
async function drainState(): Promise<string> {
  const jobs = await sql`
    select id, task_identifier, key, queue_name, run_at, locked_at, locked_by, attempts, max_attempts, last_error, created_at, updated_at
      from graphile_worker.jobs order by id`;
  const outbox = await sql`
    select o.id, o.node_id, o.attempts, o.next_attempt_at, o.last_error, o.last_attempt_at, now() as now from doco.outbox o order by o.id limit 40`;
  const [counts] =
    await sql`select count(*)::int as n, count(*) filter (where next_attempt_at > now())::int as later, max(attempts) as max_attempts from doco.outbox`;
  const sessions = await sql`
    select pid, application_name, state, wait_event_type, wait_event, xact_start, state_change, left(query, 200) as query
      from pg_stat_activity where datname = 'doco' and pid <> pg_backend_pid()`;
  const locks =
    await sql`select locktype, classid, objid, mode, granted, pid from pg_locks where locktype in ('advisory', 'transactionid', 'tuple') order by pid`;
  const logs = [...logged, ...workers.map((p, i) => [`worker${i}`, p] as const)]
    .map(([name, p]) => `--- ${name} (pid ${p.child.pid}, running ${p.running}):\n${p.log.slice(-6000)}`)
    .join('\n');
  return [
    `drain stalled at ${new Date().toISOString()}`,
    `outbox: ${JSON.stringify(counts)}`,
    `jobs: ${JSON.stringify(jobs, null, 1)}`,
    `outbox rows: ${JSON.stringify(outbox, null, 1)}`,
    `sessions: ${JSON.stringify(sessions, null, 1)}`,
    `locks: ${JSON.stringify(locks)}`,
    logs,
  ].join('\n');
}

/** The brief as JSON without what differs between two composings of it: its id and timings (the receipt's "(0.2s)" too). */
function normalised(brief: unknown): string {
  return JSON.stringify(brief, (key, value: unknown) => {
    if (key === 'brief_id' || key === 'timings' || /(_ms|_at)$/.test(key)) return undefined;
    return typeof value === 'string' ? value.replace(/\(\d+(\.\d+)?m?s\)/g, '(…)') : value;
  });
}

function report(loadSeconds: number): void {
  const s = ledger.samples;
  const byStatus: Record<string, number> = {};
  for (const x of s) byStatus[String(x.status)] = (byStatus[String(x.status)] ?? 0) + 1;
  const lines = [
    `scale suite: ${CLIENTS} clients, ${loadSeconds.toFixed(1)} s, ${s.length} requests (${(s.length / loadSeconds).toFixed(0)}/s)`,
  ];
  lines.push(`  by status: ${JSON.stringify(byStatus)}`);
  lines.push(`  primary: pg_ctl -m fast stop took ${pgTimes.stopMs} ms, away ${pgTimes.downMs} ms in all`);
  lines.push(
    `  acknowledged: ${ledger.captures.length} captures, ${ledger.changesets.length} changesets of 50 ops, ${ledger.relates.length} relates; ${ledger.unanswered.length} writes unanswered`,
  );
  for (const phase of PHASES) {
    const inPhase = s.filter((x) => x.phase === phase);
    const errors: Record<string, number> = {};
    for (const x of inPhase.filter((y) => y.status !== 200 && y.status !== 201))
      errors[`${x.kind} ${x.status}`] = (errors[`${x.kind} ${x.status}`] ?? 0) + 1;
    const ms = (kind: string) => inPhase.filter((x) => x.kind === kind && (x.status === 200 || x.status === 201)).map((x) => x.ms);
    // p50 and p95 of the requests that succeeded; "none" when none did (while the primary is down).
    const p = (kind: string, n: number) => {
      const v = percentile(ms(kind), n);
      return v === undefined ? 'none' : `${v} ms`;
    };
    lines.push(
      `  ${phase}: ${inPhase.length} requests, this process's loop held ${loopDelays[phase] ?? '?'}; brief p50 ${p('brief', 50)} p95 ${p('brief', 95)}; capture p50 ${p('capture', 50)} p95 ${p('capture', 95)}; changeset p50 ${p('changeset', 50)}; errors ${JSON.stringify(errors)}`,
    );
  }
  // Why requests got no answer, by process and phase (socket ports and byte counts left out of the key).
  const causes: Record<string, number> = {};
  for (const x of s.filter((y) => y.status === 'conn')) {
    const key = `API ${x.api} ${x.phase}: ${(x.detail ?? '?').replace(/ \(socket [^)]*\)/g, '')}`;
    causes[key] = (causes[key] ?? 0) + 1;
  }
  for (const [key, n] of Object.entries(causes)) lines.push(`  no answer ×${n}, ${key}`);
  console.log(lines.join('\n'));
}
