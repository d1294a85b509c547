// Crash suite: 1,000 changesets from 8 concurrent REST clients while `doco serve` is
// killed with SIGKILL twice part-way — first alone (its embedded Postgres survives and the next
// serve adopts it), then together with its Postgres (recovery from the WAL). Afterwards every
// acknowledged changeset (201) is there by id with its records, no changeset is partial (all of
// its operations or none), `doco verify` is clean, the outbox drains to empty and the index holds
// exactly the live chunks: in the embedded index (read from its snapshot) and in Qdrant (the
// loopback fake), no orphan point and none missing.
import type postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { FakeQdrant } from '../helpers/fake-qdrant.js';
import { expectChunksOfLiveRecordsOnly, expectQdrantHolds } from '../helpers/index-check.js';
import { readSavedIndex } from '../helpers/index-snapshot.js';
import {
  alive,
  cleanUp,
  DocoHome,
  DocoServer,
  killPostgres,
  postmasterPid,
  restClient,
  waitFor,
  writeToken,
} from '../helpers/doco-process.js';

const TOTAL = 1000;
const CLIENTS = 8;
/** When to kill, by acknowledged changesets so far; the second kill takes Postgres down too. */
const KILLS = [
  { afterAcks: 300, postgresToo: false },
  { afterAcks: 650, postgresToo: true },
];
const COLLECTION = 'crash-notes';

afterAll(cleanUp, 60_000);

type Op = Record<string, unknown>;

interface Planned {
  marker: string;
  request: { collection: string; summary: string; operations: Op[] };
  appendTarget?: string;
  retireTarget?: string;
  /** Node versions the changeset writes: one per create, append and retire. */
  nodeVersions: number;
}

interface Outcome {
  plan: Planned;
  /** acked: 201; refused: another answer (must have written nothing); unknown: no answer (the kill). */
  kind: 'acked' | 'refused' | 'unknown';
  status?: number;
  changesetId?: string;
  created?: { id: string; kind: 'node' | 'edge'; op: string }[];
}

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
  'review',
  'incident',
  'owner',
  'policy',
  'retry',
  'window',
  'batch',
  'report',
  'session',
  'account',
];

/** Deterministic prose of 200 to 2,600 characters: some records make one chunk, some two or more. */
function prose(seed: number): string {
  let s = seed >>> 0;
  const rand = () => (s = (Math.imul(s ^ (s >>> 15), 2246822519) + 0x9e3779b9) >>> 0) / 2 ** 32;
  const target = 200 + Math.floor(rand() * 2400);
  const sentences: string[] = [];
  for (let len = 0; len < target;) {
    const words = Array.from({ length: 6 + Math.floor(rand() * 8) }, () => WORDS[Math.floor(rand() * WORDS.length)]!);
    const sentence = `${words.join(' ')}.`;
    sentences.push(sentence[0]!.toUpperCase() + sentence.slice(1));
    len += sentence.length + 1;
  }
  return sentences.join(' ');
}

function plan(client: number, n: number, mine: string[]): Planned {
  const marker = `crash-c${client}-n${n}`;
  const operations: Op[] = [
    { op: 'create', alias: 'log', node_type: 'log', title: `${marker} log`, prose: prose(client * 100_000 + n * 2) },
    { op: 'create', alias: 'dec', node_type: 'decision', title: `${marker} decision`, prose: prose(client * 100_000 + n * 2 + 1) },
    { op: 'relate', from: '$dec', to: '$log', edge_type: 'derived_from' },
  ];
  const planned: Planned = { marker, request: { collection: COLLECTION, summary: marker, operations }, nodeVersions: 2 };
  if (n % 3 === 2 && mine.length >= 1) {
    planned.appendTarget = mine[n % mine.length]!;
    operations.push({ op: 'append', target: planned.appendTarget, prose: `Addendum ${marker}.` });
    planned.nodeVersions++;
  }
  if (n % 5 === 4 && mine.length >= 2) {
    planned.retireTarget = mine.find((id) => id !== planned.appendTarget)!;
    operations.push({ op: 'retire', target: planned.retireTarget });
    planned.nodeVersions++;
  }
  return planned;
}

async function scenario(store: 'embedded' | 'qdrant') {
  const home = await DocoHome.make();
  const qdrant = store === 'qdrant' ? new FakeQdrant() : undefined;
  const env = qdrant ? { QDRANT_URL: await qdrant.start() } : {};
  let server = await DocoServer.start(home, { env });
  const port = server.port;
  const rest = restClient(() => server.url, await writeToken(home));
  expect(
    (await rest('POST', '/collections', { slug: COLLECTION, template: 'meeting-notes', goal: 'What the crash suite wrote.' })).status,
  ).toBe(201);

  const outcomes: Outcome[] = [];
  let issued = 0;
  let acked = 0;
  let clientsDone = 0;
  const serverBack = () =>
    waitFor('the server to answer again', async () => (await fetch(`${server.url}/healthz`).catch(() => undefined))?.ok, 120_000, 100);

  async function client(c: number) {
    const mine: string[] = []; // live records of this client's acknowledged changesets
    for (let n = 0; issued < TOTAL; n++) {
      issued++;
      const p = plan(c, n, mine);
      let answer;
      try {
        answer = await rest('POST', '/changeset', p.request);
      } catch {
        outcomes.push({ plan: p, kind: 'unknown' });
        // It may or may not have landed: leave its targets alone from now on.
        for (const t of [p.appendTarget, p.retireTarget]) if (t && mine.includes(t)) mine.splice(mine.indexOf(t), 1);
        await serverBack();
        continue;
      }
      if (answer.status !== 201) {
        outcomes.push({ plan: p, kind: 'refused', status: answer.status });
        continue;
      }
      acked++;
      const created = answer.body.results as { id: string; kind: 'node' | 'edge'; op: string }[];
      outcomes.push({ plan: p, kind: 'acked', status: 201, changesetId: answer.body.changeset_id, created });
      mine.push(...created.filter((r) => r.op === 'create').map((r) => r.id));
      if (p.retireTarget) mine.splice(mine.indexOf(p.retireTarget), 1);
    }
  }

  const postmasters: { before: number; after: number | undefined }[] = [];
  const clients = Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c).finally(() => clientsDone++)));
  for (const kill of KILLS) {
    await waitFor(`${kill.afterAcks} acknowledged changesets`, () => acked >= kill.afterAcks || clientsDone === CLIENTS, 240_000, 10);
    const before = postmasterPid(home.dir)!;
    expect((await server.kill9()).signal).toBe('SIGKILL');
    if (kill.postgresToo) killPostgres(home.dir);
    else expect(alive(before), 'the postmaster outlives a kill -9 of doco serve (its own process group)').toBe(true);
    server = await DocoServer.start(home, { port, env });
    postmasters.push({ before, after: postmasterPid(home.dir) });
    if (!kill.postgresToo) expect(server.log).toMatch(/adopted the embedded Postgres/);
  }
  await clients;

  // The clients were still writing when each kill came: some changesets got no answer.
  const count = (kind: Outcome['kind']) => outcomes.filter((o) => o.kind === kind).length;
  expect(outcomes).toHaveLength(TOTAL);
  expect(count('unknown')).toBeGreaterThanOrEqual(1);
  expect(acked).toBeGreaterThan(KILLS.at(-1)!.afterAcks);
  expect(postmasters[0]!.after, 'the first restart adopted the surviving postmaster').toBe(postmasters[0]!.before);
  expect(postmasters[1]!.after, 'the second restart started Postgres anew').not.toBe(postmasters[1]!.before);
  // Nothing but 201, or a 409 (a deadlock with a concurrent writer: nothing written).
  expect(outcomes.filter((o) => o.kind === 'refused' && o.status !== 409)).toEqual([]);

  const sql = await home.sql();
  let landedUnanswered = 0;
  try {
    landedUnanswered = await expectEveryAckPresentNonePartial(sql, outcomes);
    expect((await home.run(['verify'])).code, 'doco verify').toBe(0);
    await waitFor('the outbox to drain', async () => (await sql`select count(*)::int as n from doco.outbox`)[0]!.n === 0, 180_000, 200);
    const chunks = await expectChunksOfLiveRecordsOnly(sql, COLLECTION);
    if (qdrant) expectQdrantHolds(qdrant, chunks);
    // What the killed drains had recorded as being written was swept at the restart.
    expect((await sql`select count(*)::int as n from doco.index_pending_points`)[0]!.n).toBe(0);
    await sql.end();
    const pm = postmasterPid(home.dir)!;
    expect((await server.stop()).code).toBe(0);
    expect(alive(pm), 'a clean stop stops the postmaster this serve started').toBe(false);
    if (!qdrant) {
      const saved = await readSavedIndex(home.dir);
      expect(saved, 'the snapshot a clean stop saves').toBeDefined();
      expect(sorted(saved!.points.keys()), 'the embedded index holds exactly the chunks of doco.chunks').toEqual(sorted(chunks.keys()));
      for (const [id, nodeId] of chunks) expect(saved!.points.get(id)).toBe(nodeId);
    }
  } finally {
    await sql.end();
    await qdrant?.stop();
  }
  return { acked, unknown: count('unknown'), landedUnanswered, refused: count('refused') };
}

const sorted = (ids: Iterable<string>) => [...ids].sort();

/** Returns how many unanswered changesets landed (whole). */
async function expectEveryAckPresentNonePartial(sql: postgres.Sql, outcomes: Outcome[]): Promise<number> {
  const present = new Map(
    (
      await sql<{ id: string; summary: string }[]>`
    select id, summary from doco.changesets where summary like 'crash-c%'`
    ).map((r) => [r.summary, r.id]),
  );
  const versions = new Map(
    (
      await sql<{ changeset_id: string; n: number }[]>`
    select v.changeset_id, count(*)::int as n from doco.node_versions v join doco.changesets c on c.id = v.changeset_id
     where c.summary like 'crash-c%' group by 1`
    ).map((r) => [r.changeset_id, r.n]),
  );
  const edgeVersions = new Map(
    (
      await sql<{ changeset_id: string; n: number }[]>`
    select v.changeset_id, count(*)::int as n from doco.edge_versions v join doco.changesets c on c.id = v.changeset_id
     where c.summary like 'crash-c%' group by 1`
    ).map((r) => [r.changeset_id, r.n]),
  );

  // Every acknowledged changeset is there, under the id it was acknowledged with, with every record and edge it made.
  const acked = outcomes.filter((o) => o.kind === 'acked');
  expect(acked.filter((o) => present.get(o.plan.marker) !== o.changesetId).map((o) => o.plan.marker)).toEqual([]);
  const createdIds = acked.flatMap((o) => o.created!.filter((r) => r.op === 'create' || r.op === 'relate').map((r) => r.id));
  const [found] = await sql<{ nodes: number; edges: number }[]>`
    select (select count(*)::int from doco.nodes where id = any(${createdIds})) as nodes,
           (select count(*)::int from doco.edges where id = any(${createdIds})) as edges`;
  expect(found!.nodes + found!.edges).toBe(createdIds.length);
  const appended = await sql<{ changeset_id: string; ok: boolean }[]>`
    select v.changeset_id, v.prose like '%Addendum ' || c.summary || '.' as ok
      from doco.node_versions v join doco.changesets c on c.id = v.changeset_id
     where c.summary like 'crash-c%' and v.version > 1 and v.lifecycle <> 'retired'`;
  const appendOk = new Map(appended.map((r) => [r.changeset_id, r.ok]));
  for (const o of acked.filter((x) => x.plan.appendTarget)) expect(appendOk.get(o.changesetId!), `append of ${o.plan.marker}`).toBe(true);

  // Every changeset that landed (acknowledged or not) landed whole; one that did not left nothing.
  for (const o of outcomes) {
    const id = present.get(o.plan.marker);
    if (o.kind === 'refused') expect(id, `${o.plan.marker} was refused yet landed`).toBeUndefined();
    if (!id) continue;
    expect(versions.get(id), `node versions of ${o.plan.marker} (${o.kind})`).toBe(o.plan.nodeVersions);
    expect(edgeVersions.get(id) ?? 0, `edge versions of ${o.plan.marker} (${o.kind})`).toBeGreaterThanOrEqual(1);
  }
  const missing = outcomes.filter((o) => !present.has(o.plan.marker)).map((o) => o.plan.marker);
  const leftovers = await sql<{ marker: string }[]>`
    select m as marker from unnest(${missing}::text[]) as m
     where exists (select 1 from doco.nodes n where split_part(n.title, ' ', 1) = m)
        or exists (select 1 from doco.node_versions v where strpos(v.prose, 'Addendum ' || m || '.') > 0)`;
  expect(leftovers, 'a changeset that did not land left nothing behind').toEqual([]);
  return outcomes.filter((o) => o.kind === 'unknown' && present.has(o.plan.marker)).length;
}

describe('1,000 changesets from 8 clients, doco serve killed -9 twice part-way', () => {
  it('with the embedded index: every acknowledged changeset present, none partial, verify clean, the index exactly the live chunks', async () => {
    const figures = await scenario('embedded');
    console.log(
      `crash suite, embedded index: ${figures.acked} acknowledged, ${figures.unknown} unanswered at a kill (${figures.landedUnanswered} of them landed, whole), ${figures.refused} refused`,
    );
  }, 300_000);

  it('with Qdrant (the loopback fake): the same, and no orphan point in Qdrant', async () => {
    const figures = await scenario('qdrant');
    console.log(
      `crash suite, Qdrant: ${figures.acked} acknowledged, ${figures.unknown} unanswered at a kill (${figures.landedUnanswered} of them landed, whole), ${figures.refused} refused`,
    );
  }, 300_000);
});
