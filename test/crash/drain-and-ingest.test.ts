// Crash suite: a worker killed mid-drain and an ingest killed mid-run, with SIGKILL.
// - `doco serve` with Qdrant (the loopback fake) kills itself (DOCO_TEST_CRASH_AT) after its drain
//   wrote points to Qdrant and before the commit that records them: the next serve removes
//   those orphan points and indexes the records, so Qdrant holds exactly doco.chunks.
// - `doco serve` kills itself whenever its drain loads one marked record (DOCO_TEST_CRASH_AT=
//   index-marked-record), restarted after each death: three deaths, then that record is set aside
//   and the five written beside it are indexed.
// - `doco ingest-docs` of a generated docs tree, with no server up (it owns the embedded
//   Postgres), killed -9 while writing sections: the next run completes without duplicating a
//   section, the killed run's doco.doc_ingest_runs row is marked abandoned, and the Postgres the
//   killed run left behind is adopted and stopped by the run that completes.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { ABANDONED_ERROR } from '../../src/ingest/docs/runs.js';
import { CRASH_MARK } from '../../src/lib/crash-point.js';
import { FakeQdrant } from '../helpers/fake-qdrant.js';
import {
  alive,
  cleanUp,
  DocoHome,
  DocoProcess,
  DocoServer,
  postmasterPid,
  restClient,
  waitFor,
  writeToken,
} from '../helpers/doco-process.js';

afterAll(cleanUp, 60_000);

const count = async (sql: postgres.Sql, query: string) => (await sql.unsafe<{ n: number }[]>(`select (${query})::int as n`))[0]!.n;

/** Qdrant's points (id → record) across its collections. */
function qdrantPoints(qdrant: FakeQdrant): Map<string, unknown> {
  return new Map(
    [...qdrant.collections.values()].flatMap((c) => [...c.points.values()].map((p) => [String(p.id), p.payload.node_id] as const)),
  );
}

async function chunkIds(sql: postgres.Sql): Promise<Map<string, string>> {
  return new Map((await sql<{ id: string; node_id: string }[]>`select id::text, node_id from doco.chunks`).map((r) => [r.id, r.node_id]));
}

const sorted = (ids: Iterable<string>) => [...ids].sort();

describe('a worker killed mid-drain', () => {
  it('between its Qdrant write and its commit: the next serve removes the orphan points and indexes the records', async () => {
    const home = await DocoHome.make();
    const qdrant = new FakeQdrant();
    const QDRANT_URL = await qdrant.start();
    try {
      let server = await DocoServer.start(home, { env: { QDRANT_URL, DOCO_TEST_CRASH_AT: 'index-after-store-write' } });
      const port = server.port;
      const rest = restClient(() => server.url, await writeToken(home));
      const operations = Array.from({ length: 5 }, (_, i) => ({
        op: 'create',
        node_type: 'reference',
        title: `Drained record ${i}`,
        prose: `Record ${i} of the mid-drain crash: the drain writes its points to Qdrant, then dies before its commit. `.repeat(3),
      }));
      const written = await rest('POST', '/changeset', { collection: 'constitution', operations });
      expect(written.status).toBe(201);
      const ids = (written.body.results as { id: string }[]).map((r) => r.id);

      // The drain the commit queued wrote to Qdrant and the process killed itself there.
      const exit = await waitFor('the server to die at its crash point', async () => (server.running ? undefined : server.exited), 60_000);
      expect(exit.signal).toBe('SIGKILL');
      expect(server.log).toContain('crash point index-after-store-write');

      let sql = await home.sql(); // its Postgres survived the kill
      const orphans = sorted(qdrantPoints(qdrant).keys());
      try {
        expect(orphans.length, 'points written before the commit').toBeGreaterThanOrEqual(ids.length);
        expect(await count(sql, `select count(*) from doco.chunks where node_id in (${ids.map((id) => `'${id}'`).join(',')})`)).toBe(0);
        const pending = (await sql<{ id: string }[]>`select point_id::text as id from doco.index_pending_points`).map((r) => r.id);
        expect(sorted(pending), 'every point written is recorded as pending').toEqual(orphans);
      } finally {
        await sql.end();
      }

      server = await DocoServer.start(home, { port, env: { QDRANT_URL } });
      expect(server.log).toMatch(/adopted the embedded Postgres/);
      sql = await home.sql();
      try {
        await waitFor('the outbox to drain', async () => (await count(sql, 'select count(*) from doco.outbox')) === 0, 60_000, 100);
        expect(server.log).toMatch(new RegExp(`removed ${orphans.length} orphan point\\(s\\)`));
        const chunks = await chunkIds(sql);
        for (const id of ids) expect([...chunks.values()], `chunks of ${id}`).toContain(id);
        const points = qdrantPoints(qdrant);
        expect(sorted(points.keys()), 'Qdrant holds exactly the chunks of doco.chunks').toEqual(sorted(chunks.keys()));
        for (const [id, nodeId] of chunks) expect(points.get(id)).toBe(nodeId);
        expect(orphans.filter((id) => points.has(id))).toEqual([]);
        expect(await count(sql, 'select count(*) from doco.index_pending_points')).toBe(0);
      } finally {
        await sql.end();
      }
      const pm = postmasterPid(home.dir)!;
      expect((await server.stop()).code).toBe(0);
      expect(alive(pm), 'the serve that adopted the postmaster stopped it').toBe(false);
    } finally {
      await qdrant.stop();
    }
  }, 180_000);
});

describe('a record that kills the drain every time', () => {
  it('is tried alone after the first death and set aside after the third; every other record is indexed', async () => {
    const home = await DocoHome.make();
    const env = { DOCO_TEST_CRASH_AT: 'index-marked-record' };
    let server = await DocoServer.start(home, { env });
    const port = server.port;
    const rest = restClient(() => server.url, await writeToken(home));
    const operations = Array.from({ length: 6 }, (_, i) => ({
      op: 'create',
      node_type: 'reference',
      title: i === 3 ? `Record ${i} ${CRASH_MARK}` : `Record ${i} of the batch`,
      prose: `Record ${i}: one of six written together, so the drain takes them in one batch. `.repeat(3),
    }));
    const written = await rest('POST', '/changeset', { collection: 'constitution', operations });
    expect(written.status).toBe(201);
    const ids = (written.body.results as { id: string }[]).map((r) => r.id);
    const killer = ids[3]!;

    // Each death is a restart by whoever runs the server (systemd, compose): the test does it.
    let deaths = 0;
    const logs: string[] = [];
    for (let round = 0; round < 6; round++) {
      const ended = await waitFor(
        'the server to die or the drain to settle',
        async () => {
          if (!server.running) return 'died';
          const sql = await home.sql();
          try {
            return (await count(sql, `select stopped_on from doco.outbox_backlog`)) === 1 &&
              (await count(sql, 'select pending from doco.outbox_backlog')) === 1
              ? 'settled'
              : undefined;
          } finally {
            await sql.end();
          }
        },
        90_000,
        250,
      ).catch(async (err: Error) => {
        const sql = await home.sql();
        const state =
          await sql`select o.id, o.node_id, o.attempts, o.next_attempt_at, c.claims from doco.outbox o left join doco.outbox_claims c on c.outbox_id = o.id`;
        await sql.end();
        throw new Error(
          `${err.message}; ids ${ids.join(' ')}; outbox ${JSON.stringify(state)}; the server's log: ${server.log.slice(-4000)}`,
        );
      });
      logs.push(server.log);
      if (ended === 'settled') break;
      expect((await server.exited).signal).toBe('SIGKILL');
      deaths++;
      // Its drain may kill it before it serves: wait for either.
      server = new DocoServer(home, port, env);
      const restarted = server;
      await waitFor('the restarted server to serve or die', () => /serving REST/.test(restarted.log) || !restarted.running, 90_000);
    }
    // The batch, then the record alone twice: three deaths, not one at every start.
    expect(deaths).toBe(3);
    expect(server.running).toBe(true);
    expect(logs.join('\n')).toContain(`${killer} was being indexed when a drain stopped (2 times); trying it alone, a last time`);
    const sql = await home.sql();
    try {
      const chunks = await chunkIds(sql);
      for (const id of ids) if (id !== killer) expect([...chunks.values()], `chunks of ${id}`).toContain(id);
      expect([...chunks.values()]).not.toContain(killer);
      expect(await count(sql, 'select failing from doco.outbox_backlog')).toBe(1);
    } finally {
      await sql.end();
    }
    expect((await server.stop()).code).toBe(0);
  }, 300_000);
});

const FILES = 40;
const SECTIONS_PER_FILE = 60;
const WORDS = [
  'ledger',
  'refund',
  'invoice',
  'shard',
  'replica',
  'cache',
  'quota',
  'route',
  'deploy',
  'schema',
  'index',
  'budget',
  'audit',
  'payment',
  'customer',
  'release',
];

/** A docs tree of FILES × SECTIONS_PER_FILE sections, each body well over the 200-character floor. */
async function writeDocsTree(root: string): Promise<number> {
  await mkdir(path.join(root, 'docs'), { recursive: true });
  for (let f = 0; f < FILES; f++) {
    const sections = Array.from({ length: SECTIONS_PER_FILE }, (_, s) => {
      const words = Array.from({ length: 60 }, (_, w) => WORDS[(f * 7 + s * 3 + w) % WORDS.length]!);
      return `## Topic ${f}-${s}\n\nSection ${s} of file ${f}: ${words.join(' ')}.`;
    });
    await writeFile(path.join(root, 'docs', `file-${f}.md`), `# File ${f}\n\n${sections.join('\n\n')}\n`);
  }
  return FILES * SECTIONS_PER_FILE;
}

describe('an ingest killed mid-run', () => {
  it('the next run completes without duplicates, the killed run is marked abandoned, and its Postgres is adopted and stopped', async () => {
    const home = await DocoHome.make();
    const qdrant = new FakeQdrant();
    const env = { QDRANT_URL: await qdrant.start() };
    const root = path.join(home.dir, 'checkout');
    const total = await writeDocsTree(root);
    try {
      // Only serve, worker and migrate create a database; the ingest then starts it and owns it.
      const migrated = await home.run(['migrate'], env);
      expect(migrated.code, migrated.stderr).toBe(0);
      const first = new DocoProcess(['ingest-docs', root, '--json'], home.env(env));
      // Killed while it writes sections: some are in, not all.
      let sql = await waitFor("the first run's Postgres", () => home.sql().catch(() => undefined), 120_000, 20);
      const writtenAtKill = await waitFor(
        'the first run to be part-way',
        async () => {
          const n = await count(sql, 'select count(*) from doco.doc_manifest').catch(() => 0);
          return n >= 300 ? n : undefined;
        },
        120_000,
        20,
      );
      const pm = postmasterPid(home.dir)!;
      expect((await first.kill9()).signal).toBe('SIGKILL');
      expect(alive(pm), 'the Postgres the killed run started outlives it').toBe(true);
      let killedRun: number;
      try {
        const written = await count(sql, 'select count(*) from doco.doc_manifest');
        expect(written, 'killed before it wrote every section').toBeLessThan(total);
        const [run] = await sql<
          { id: string; status: string; finished: boolean }[]
        >`select id::text, status, finished_at is not null as finished from doco.doc_ingest_runs`;
        expect(run).toMatchObject({ status: 'running', finished: false });
        killedRun = Number(run!.id);
        console.log(`crash suite, ingest: killed with ${written} of ${total} sections written (${writtenAtKill} seen at the kill)`);
      } finally {
        await sql.end();
      }

      // The next run adopts that Postgres, completes, and stops it when it exits.
      const second = await home.run(['ingest-docs', root, '--json'], env, 240_000);
      expect(second.code, second.stderr).toBe(0);
      const report = JSON.parse(second.stdout);
      expect(report.created + report.skipped).toBe(total);
      expect(report.skipped, 'what the killed run wrote is not written again').toBeGreaterThan(0);
      expect(report.created).toBeGreaterThan(0);
      expect(report.reap.outcome).toBe('nothing_to_reap');
      expect(alive(pm), "the run that adopted the killed run's Postgres stopped it").toBe(false);

      const server = await DocoServer.start(home, { env });
      sql = await home.sql();
      try {
        const runs = await sql<
          { id: string; status: string; error: string | null }[]
        >`select id::text, status, error from doco.doc_ingest_runs order by id`;
        expect(runs).toEqual([
          { id: String(killedRun), status: 'abandoned', error: ABANDONED_ERROR },
          { id: String(report.run_id), status: 'finished', error: null },
        ]);
        expect(await count(sql, 'select count(*) from doco.doc_manifest')).toBe(total);
        expect(
          await count(sql, `select count(*) from doco.nodes where node_type = 'reference' and body->>'source_type' = 'doc_expectation'`),
        ).toBe(total);
        expect(
          await count(
            sql,
            `select count(distinct body->'pointer'->>'section_key') from doco.nodes where node_type = 'reference' and body->>'source_type' = 'doc_expectation'`,
          ),
        ).toBe(total);
        await waitFor('the outbox to drain', async () => (await count(sql, 'select count(*) from doco.outbox')) === 0, 120_000, 200);
        expect((await home.run(['verify'])).code, 'doco verify').toBe(0);
        const chunks = await chunkIds(sql);
        expect(
          await count(
            sql,
            `select count(*) from doco.nodes n where n.node_type = 'reference' and not exists (select 1 from doco.chunks c where c.node_id = n.id)`,
          ),
        ).toBe(0);
        expect(sorted(qdrantPoints(qdrant).keys()), 'Qdrant holds exactly the chunks of doco.chunks').toEqual(sorted(chunks.keys()));
      } finally {
        await sql.end();
      }
      expect((await server.stop()).code).toBe(0);
    } finally {
      await qdrant.stop();
    }
  }, 300_000);
});
