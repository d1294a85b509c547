// The outbox drain against a real database: the outbox is filled in the writing transaction,
// unchanged chunks are never re-embedded, an edit re-embeds only the chunks it changed, a
// retired record leaves the index, a new embedder re-embeds everything, failures stay in the
// outbox with their error, two drains at once index every record exactly once, and a drain
// interrupted between its store write and its commit leaves no orphan point behind.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { capture, changeset } from '../../src/graph/writes.js';
import { noJudge } from '../../src/providers/judge.js';
import { makeLog } from '../../src/lib/log.js';
import { drainOutbox, type DrainReport } from '../../src/indexing/drain.js';
import { RECORD_LOCK_CLASS } from '../../src/indexing/drain-locks.js';
import { embeddedStore, type EmbeddedStore } from '../../src/providers/vector/embedded/store.js';
import { recordPendingPoints, sweepOrphanPoints } from '../../src/indexing/pending-points.js';
import type { VectorStore } from '../../src/providers/vector/port.js';
import { syncEmbeddedIndex } from '../../src/indexing/index-sync.js';
import { chunkSource } from '../../src/indexing/chunker.js';
import { recordChunkSource, type IndexableNode } from '../../src/indexing/record-source.js';
import { makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { countingEmbedder, type CountingEmbedder } from '../helpers/counting-embedder.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

let t: TestDb;
let ws: TestWorkspace;
let embedder: CountingEmbedder;
let store: EmbeddedStore;
const log = makeLog('silent');
const ctx = () => ({ workspaceId: ws.id, principalId: ws.principalId, source: 'api' as const });
const write = () => ({ db: t.db, judge: noJudge });

const drain = (opts: { batchSize?: number; maxBatches?: number } = {}): Promise<DrainReport> =>
  drainOutbox({ sql: t.sql, embedder, store, log }, opts);

async function add(title: string, prose: string): Promise<string> {
  return (await capture(write(), ctx(), { collection: 'constitution', node_type: 'reference', title, prose })).node.id;
}

/** Record ids among the store's dense and BM25 hits for a query. */
async function found(query: string): Promise<string[]> {
  const [vector] = await embedder.embed([query], 'query');
  const { dense, sparse } = await store.search({ tenant: ws.id, vector: vector!, text: query, limit: 10 });
  return [...new Set([...dense.slice(0, 3), ...sparse].map((h) => h.nodeId))];
}

const outboxOf = (nodeId: string) =>
  t.sql<{ attempts: number; last_error: string | null; last_attempt_at: Date | null; next_attempt_at: Date }[]>`
    select attempts, last_error, last_attempt_at, next_attempt_at from doco.outbox where node_id = ${nodeId} order by id`;
const chunksOf = (nodeId: string) =>
  t.sql<{ id: string; ordinal: number; body: string; content_hash: string; embedder: string; seq: string }[]>`
    select id::text, ordinal, body, content_hash, embedder, seq::text from doco.chunks where node_id = ${nodeId} order by ordinal`;
const count = async (table: 'chunks' | 'outbox') =>
  (await t.sql<{ n: number }[]>`select count(*)::int as n from ${t.sql('doco.' + table)}`)[0]!.n;

/** The store holds exactly the chunk rows of doco.chunks. */
async function expectStoreMatchesChunks() {
  const rows = await t.sql<{ id: string }[]>`select id::text from doco.chunks`;
  expect(new Set(store.ids())).toEqual(new Set(rows.map((r) => r.id)));
  expect(await store.count()).toBe(rows.length);
}

/** A point a drain wrote and recorded as pending, for a record, as a drain that died would leave it. */
async function leavePendingPoint(id: string, nodeId: string, vector: Float32Array, text: string): Promise<void> {
  await recordPendingPoints(t.sql, [{ id, nodeId }], embedder.identity);
  await store.upsert([
    { id, tenant: ws.id, collectionId: 'col', nodeId, nodeType: 'reference', shape: '', sourceKind: 'record', text, vector },
  ]);
}

/** Fourteen distinct ~420-character paragraphs: several chunks of 1,600 characters. */
const paragraphs = Array.from({ length: 14 }, (_, i) =>
  Array.from(
    { length: 6 },
    (_, s) => `Section ${i} sentence ${s} explains how ledger shard ${i * 10 + s} reconciles its nightly totals.`,
  ).join(' '),
);

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'drain');
  embedder = countingEmbedder();
  store = embeddedStore();
  await store.init(embedder.identity, embedder.dimensions);
});
afterAll(async () => t.drop());
beforeEach(async () => {
  // Every test starts from an empty outbox, a well-behaved embedder and a zero count.
  embedder.failAll = undefined;
  embedder.failOn = undefined;
  embedder.delayMs = 0;
  await drain();
  await t.sql`delete from doco.outbox`;
  await t.sql`delete from doco.outbox_claims`;
  embedder.reset();
});

describe('the outbox', () => {
  it('is filled in the writing transaction, and a rolled-back write leaves no row', async () => {
    const id = await add('Outbox filler', 'A record the outbox must name.');
    expect(await outboxOf(id)).toMatchObject([{ attempts: 0, last_error: null }]);

    // Inside an open transaction the row is there; rolled back, it is gone with the write.
    await expect(
      t.sql.begin(async (tx) => {
        await tx`update doco.nodes set title = 'Renamed inside a transaction' where id = ${id}`;
        const [row] = await tx<{ n: number }[]>`select count(*)::int as n from doco.outbox where node_id = ${id}`;
        expect(row!.n).toBe(2);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await outboxOf(id)).toHaveLength(1);

    // A changeset that fails part-way (its fourth operation, inside the transaction) writes no record and no outbox row.
    const before = await count('outbox');
    const failing = changeset(write(), ctx(), {
      collection: 'constitution',
      operations: [
        { op: 'create', alias: 'a', node_type: 'reference', title: 'Doomed A', prose: 'never committed' },
        { op: 'create', alias: 'b', node_type: 'reference', title: 'Doomed B', prose: 'never committed' },
        { op: 'relate', from: '$a', to: '$b', edge_type: 'relates_to' },
        { op: 'relate', from: '$a', to: '$b', edge_type: 'relates_to' },
      ],
    });
    await expect(failing).rejects.toThrow(/operations\[3\]/);
    expect(await count('outbox')).toBe(before);
    expect(await t.sql`select 1 from doco.nodes where title like 'Doomed%'`).toHaveLength(0);
  });
});

describe('the drain', () => {
  it('indexes a new record: chunk rows, store points, searchable; then empties the outbox', async () => {
    const id = await add('Quarterly reconciliation of the pelican ledger', 'The pelican ledger is reconciled every quarter by finance.');
    const report = await drain();
    expect(report).toMatchObject({ records: 1, chunksEmbedded: 1, failedRecords: 0 });
    const chunks = await chunksOf(id);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.embedder).toBe(embedder.identity);
    expect(report.maxSeq).toBe(Number(chunks[0]!.seq));
    expect(embedder.documents).toBe(1);
    expect(await found('pelican ledger reconciliation')).toContain(id);
    expect(await outboxOf(id)).toEqual([]);
    await expectStoreMatchesChunks();
  });

  it("stores each chunk's embedding input, though the batch carries the chunk's text once and the row holds it once", async () => {
    const long = await add('Ledger handbook, whole inputs', paragraphs.join('\n\n'));
    const titleOnly = await add('A record that is all title', '');
    await t.sql`update doco.nodes set body = body || '{"heading_path": ["Guide", "Setup"]}'::jsonb where id = ${titleOnly}`;
    await drain();
    for (const id of [long, titleOnly]) {
      const [node] = await t.sql<
        IndexableNode[]
      >`select id, workspace_id, collection_id, node_type, title, prose, body from doco.nodes where id = ${id}`;
      const expected = chunkSource(recordChunkSource(node!), embedder.identity).map((c) => ({ body: c.text, embed_input: c.embedInput }));
      expect(expected.length).toBeGreaterThan(0);
      expect([
        ...(await t.sql`select body, doco.chunk_embed_input(c) as embed_input from doco.chunks c where node_id = ${id} order by ordinal`),
      ]).toEqual(expected);
    }
    // The title-only record's text is its title, and its input the title then its heading path.
    expect(
      (await t.sql`select doco.chunk_embed_input(c) as embed_input from doco.chunks c where node_id = ${titleOnly}`)[0]!.embed_input,
    ).toBe('A record that is all title\nGuide > Setup');
    // The text is not stored twice: only the header before the body, or the path after it.
    const stored = await t.sql<{ node_id: string; embed_input: string | null; embed_before: string; embed_after: string }[]>`
      select node_id, embed_input, embed_before, embed_after from doco.chunks where node_id = any(${[long, titleOnly]}) order by node_id, ordinal`;
    expect(stored.every((c) => c.embed_input === null)).toBe(true);
    expect(stored.filter((c) => c.node_id === long).every((c) => c.embed_before.length > 0 && c.embed_after === '')).toBe(true);
    expect(stored.find((c) => c.node_id === titleOnly)).toMatchObject({ embed_before: '', embed_after: '\nGuide > Setup' });
  });

  it('embeds nothing when re-drained or when an unchanged record is enqueued again', async () => {
    const id = await add('Steady record', paragraphs.slice(0, 6).join('\n\n'));
    await drain();
    const chunks = await chunksOf(id);
    expect(chunks.length).toBeGreaterThan(1);
    embedder.reset();

    expect(await drain()).toMatchObject({ records: 0, chunksEmbedded: 0 });
    await t.sql`insert into doco.outbox (node_id, workspace_id) values (${id}, ${ws.id}), (${id}, ${ws.id})`;
    // One batch, so both rows are claimed together: a drain's two lanes may each claim one of
    // them at once (skip locked), and the second lane then finds the chunks unchanged too.
    expect(await drain({ maxBatches: 1 })).toMatchObject({
      records: 1,
      chunksEmbedded: 0,
      chunksUnchanged: chunks.length,
      chunksRemoved: 0,
    });
    expect(embedder.documents).toBe(0);
    expect(await chunksOf(id)).toEqual(chunks); // same ids, hashes and seqs
    expect(await count('outbox')).toBe(0);
  });

  it('re-embeds only the chunks an edit changed', async () => {
    const id = await add('Ledger handbook', paragraphs.join('\n\n'));
    await drain();
    const before = await chunksOf(id);
    expect(before.length).toBeGreaterThanOrEqual(4);
    embedder.reset();

    // One word of the second-to-last paragraph, same length, so no boundary moves.
    const edited = paragraphs.map((p, i) => (i === 12 ? p.replace('Section 12 sentence 3 explains', 'Section 12 sentence 3 captures') : p));
    await t.sql`update doco.nodes set prose = ${edited.join('\n\n')} where id = ${id}`;
    const report = await drain();
    const after = await chunksOf(id);
    expect(after).toHaveLength(before.length);
    const touched = after.filter((c) => c.body.includes('sentence 3 captures'));
    expect(touched.length).toBeGreaterThanOrEqual(1);
    expect(touched.length).toBeLessThan(before.length);
    expect(report).toMatchObject({
      records: 1,
      chunksEmbedded: touched.length,
      chunksUnchanged: before.length - touched.length,
      chunksRemoved: 0,
    });
    expect(embedder.documents).toBe(touched.length);
    for (const [i, chunk] of after.entries()) {
      const old = before[i]!;
      expect(chunk.id).toBe(old.id); // a changed chunk keeps its id: the store point is replaced
      if (touched.includes(chunk)) {
        expect(chunk.content_hash).not.toBe(old.content_hash);
        expect(Number(chunk.seq)).toBeGreaterThan(Number(old.seq));
      } else {
        expect(chunk).toEqual(old);
      }
    }
    await expectStoreMatchesChunks();
  });

  it('removes a retired record from doco.chunks and the store', async () => {
    const id = await add('Obsolete walrus procedure', 'The walrus procedure covers the archive rotation.');
    const keep = await add('Current archive rotation', 'Archive rotation now happens weekly.');
    await drain();
    const chunkIds = (await chunksOf(id)).map((c) => c.id);
    expect(chunkIds).toHaveLength(1);
    expect(await found('walrus procedure')).toContain(id);

    await changeset(write(), ctx(), { operations: [{ op: 'retire', target: id }] });
    expect(await drain()).toMatchObject({ records: 1, chunksEmbedded: 0, chunksRemoved: 1 });
    expect(await chunksOf(id)).toEqual([]);
    expect(store.ids()).not.toContain(chunkIds[0]);
    expect(await found('walrus procedure')).not.toContain(id);
    expect(await chunksOf(keep)).toHaveLength(1);
    await expectStoreMatchesChunks();
  });

  it('re-embeds everything for a new embedder identity, queued by syncEmbeddedIndex', async () => {
    await add('Identity probe', paragraphs.slice(0, 5).join('\n\n'));
    await drain();
    const total = await count('chunks');
    const nodes = (await t.sql<{ n: number }[]>`select count(distinct node_id)::int as n from doco.chunks`)[0]!.n;
    expect(total).toBeGreaterThan(nodes);

    const previous = embedder.identity;
    embedder.identity = 'counting-v2/256';
    embedder.reset();
    try {
      await store.init(embedder.identity, embedder.dimensions); // a fresh index for the new embedder
      const sync = await syncEmbeddedIndex({ sql: t.sql, embedder, store, log });
      expect(sync).toMatchObject({ requeued: nodes, added: 0 });
      expect(embedder.documents).toBe(0);
      const report = await drain();
      expect(report).toMatchObject({ records: nodes, chunksEmbedded: total, chunksUnchanged: 0 });
      expect(embedder.documents).toBe(total);
      expect(await t.sql`select 1 from doco.chunks where embedder <> ${embedder.identity}`).toHaveLength(0);
      await expectStoreMatchesChunks();
    } finally {
      embedder.identity = previous;
      await store.init(embedder.identity, embedder.dimensions);
      await t.sql`insert into doco.outbox (node_id, workspace_id) select distinct node_id, workspace_id from doco.chunks`;
      await drain();
    }
  });
});

describe('failures', () => {
  it('keep the outbox row with its error, attempt count and a later retry time, and write nothing', async () => {
    const chunksBefore = await count('chunks');
    const pointsBefore = await store.count();
    const id = await add('Unlucky record', 'The embedder is down when this one is drained.');
    embedder.failAll = 'embedding service unavailable (503)';
    expect(await drain()).toMatchObject({ records: 0, chunksEmbedded: 0, failedRecords: 1 });
    const [row] = await outboxOf(id);
    expect(row).toMatchObject({ attempts: 1, last_error: 'embedding service unavailable (503)' });
    expect(row!.next_attempt_at.getTime()).toBeGreaterThan(row!.last_attempt_at!.getTime());
    expect(await count('chunks')).toBe(chunksBefore);
    expect(await store.count()).toBe(pointsBefore);

    // Not due yet: a second drain leaves it alone, even with the embedder back.
    embedder.failAll = undefined;
    expect(await drain()).toMatchObject({ records: 0, failedRecords: 0 });
    expect(await outboxOf(id)).toMatchObject([{ attempts: 1 }]);
    // Once due, it is indexed and leaves the outbox.
    await t.sql`update doco.outbox set next_attempt_at = now() where node_id = ${id}`;
    expect(await drain()).toMatchObject({ records: 1, chunksEmbedded: 1 });
    expect(await outboxOf(id)).toEqual([]);
    await expectStoreMatchesChunks();
  });

  it('are isolated to the failing record: the rest of the batch is indexed', async () => {
    const good1 = await add('Healthy heron record', 'Herons nest by the river.');
    const bad = await add('Poisoned record', 'This text holds POISON-7 and the embedder refuses it.');
    const good2 = await add('Healthy ibis record', 'Ibises feed in the marsh.');
    embedder.failOn = 'POISON-7';
    const report = await drain();
    expect(report).toMatchObject({ records: 2, chunksEmbedded: 2, failedRecords: 1 });
    expect(await chunksOf(good1)).toHaveLength(1);
    expect(await chunksOf(good2)).toHaveLength(1);
    expect(await chunksOf(bad)).toEqual([]);
    expect(await outboxOf(good1)).toEqual([]);
    expect(await outboxOf(good2)).toEqual([]);
    const [row] = await outboxOf(bad);
    expect(row).toMatchObject({ attempts: 1, last_error: 'embedder refused a text containing POISON-7' });
    expect(await count('outbox')).toBe(1);
    expect(await found('heron nest river')).toContain(good1);
    await expectStoreMatchesChunks();
  });
});

describe('a drain that stopped mid-batch', () => {
  // A drain whose process was killed (or whose connection broke) while it indexed a batch leaves
  // the batch's claims counted (doco.outbox_claims) and nothing else: the claiming transaction
  // rolled back. Those counts are written here as such a drain leaves them.
  const stoppedOn = (nodeId: string, claims: number) =>
    t.sql`insert into doco.outbox_claims (outbox_id, claims) select id, ${claims} from doco.outbox where node_id = ${nodeId}`;
  const claimsOf = async (nodeId: string) =>
    (
      await t.sql<
        { claims: number }[]
      >`select c.claims from doco.outbox_claims c join doco.outbox o on o.id = c.outbox_id where o.node_id = ${nodeId}`
    ).map((r) => r.claims);
  const pendingRows = () => t.sql<{ id: string }[]>`select point_id::text as id from doco.index_pending_points`;
  const backlog = async () =>
    (
      await t.sql<{ pending: number; failing: number; stopped_on: number }[]>`
      select pending::int, failing::int, stopped_on::int from doco.outbox_backlog`
    )[0]!;
  const drainLogged = async () => {
    const lines: string[] = [];
    const calls: number[] = [];
    const spy = {
      ...embedder,
      embed: (...args: Parameters<typeof embedder.embed>) => (calls.push(args[0].length), embedder.embed(...args)),
    };
    const report = await drainOutbox({ sql: t.sql, embedder: spy, store, log: makeLog('warn', (l) => lines.push(l)) });
    return { report, lines, calls };
  };

  it('leaves no count behind for what it indexed', async () => {
    await add('Counted heron', 'Herons count their eggs.');
    await add('Counted ibis', 'Ibises count their feathers.');
    await drain();
    expect(await t.sql`select * from doco.outbox_claims`).toEqual([]);
  });

  it('tries the record it stopped on alone, then the rest together', async () => {
    const good1 = await add('Patient heron', 'Herons wait by the river for fish.');
    const suspect = await add('Suspect record', 'The drain was indexing this one when its process was killed.');
    const good2 = await add('Patient ibis', 'Ibises probe the mud for crabs.');
    await stoppedOn(suspect, 1);
    const { report, lines, calls } = await drainLogged();
    expect(report).toMatchObject({ records: 3, failedRecords: 0 });
    expect(lines.filter((l) => l.includes('when a drain stopped'))).toEqual([
      expect.stringContaining(`${suspect} was being indexed when a drain stopped (1 time); trying it alone`),
    ]);
    // Its own embedding call, and the other two records' together (the drain's two lanes run side by side).
    expect(calls.sort()).toEqual([1, 2]);
    for (const id of [good1, suspect, good2]) expect(await chunksOf(id)).toHaveLength(1);
    expect(await count('outbox')).toBe(0);
  });

  it('indexes a whole batch it stopped on, a record at a time', async () => {
    const ids = [];
    for (let i = 0; i < 6; i++) ids.push(await add(`Stopped batch record ${i}`, `Record ${i} was in the batch a killed drain held.`));
    for (const id of ids) await stoppedOn(id, 1);
    const { report, calls } = await drainLogged();
    expect(report).toMatchObject({ records: 6, failedRecords: 0 });
    expect(calls).toEqual([1, 1, 1, 1, 1, 1]);
    expect(await count('outbox')).toBe(0);
  });

  it('sets a record aside once a drain stopped on it three times, and indexes the rest', async () => {
    const good = await add('Sturdy heron', 'Herons stand on one leg for hours.');
    const killer = await add('Killer record', 'Three drains died while indexing this record.');
    await stoppedOn(killer, 2);
    const { lines } = await drainLogged();
    expect(lines.join('\n')).toContain(`${killer} was being indexed when a drain stopped (2 times); trying it alone, a last time`);
    // That last try died too (its count is what a killed drain leaves): set aside from now on.
    await t.sql`delete from doco.outbox_claims`;
    await t.sql`insert into doco.outbox (node_id, workspace_id) values (${killer}, ${ws.id})`;
    const again = await add('Sturdy ibis', 'Ibises fly in long lines.');
    await stoppedOn(killer, 3);
    const next = await drainLogged();
    expect(next.report).toMatchObject({ records: 1, failedRecords: 0 });
    expect(await chunksOf(again)).toHaveLength(1);
    expect(await outboxOf(killer)).toMatchObject([{ attempts: 0 }]);
    expect(await claimsOf(killer)).toEqual([3]);
    expect(await backlog()).toEqual({ pending: 1, failing: 1, stopped_on: 1 });
    // Nothing tries it again until a person does something about it.
    expect((await drainLogged()).report).toMatchObject({ records: 0, failedRecords: 0 });
    expect(await chunksOf(good)).toHaveLength(1);
    await t.sql`delete from doco.outbox_claims`;
  });

  it("sweeps once more at its end after taking up what a drain stopped on: that drain's points may be left after the first sweep", async () => {
    const suspect = await add('Record of a dying drain', 'The drain that held this record died after writing points.');
    await stoppedOn(suspect, 1);
    const orphan = randomUUID();
    // While this drain indexes the record, the dying drain's points land in the store, pending:
    // after this drain's opening sweep, as in the scale suite's kill of a worker mid-batch.
    const spy = {
      ...embedder,
      embed: async (...args: Parameters<typeof embedder.embed>) => {
        const vectors = await embedder.embed(...args);
        if (args[1] === 'document' && !(await pendingRows()).length) {
          await leavePendingPoint(orphan, suspect, vectors[0]!, 'dying drain');
        }
        return vectors;
      },
    };
    const report = await drainOutbox({ sql: t.sql, embedder: spy, store, log });
    expect(report).toMatchObject({ records: 1, orphansRemoved: 1 });
    expect(store.ids()).not.toContain(orphan);
    expect(await pendingRows()).toEqual([]);
  });

  it('does not count a batch that failed with an error as one it stopped on', async () => {
    const good = await add('Plain heron', 'Herons eat frogs.');
    const bad = await add('Refused record', 'The embedder refuses POISON-9 every time.');
    embedder.failOn = 'POISON-9';
    expect((await drainLogged()).report).toMatchObject({ records: 1, failedRecords: 1 });
    expect(await chunksOf(good)).toHaveLength(1);
    expect(await outboxOf(bad)).toMatchObject([{ attempts: 1 }]);
    expect(await claimsOf(bad)).toEqual([1]);
    await t.sql`update doco.outbox set next_attempt_at = now() where node_id = ${bad}`;
    const { lines } = await drainLogged();
    expect(lines.join('\n')).not.toContain('when a drain stopped');
    expect(await outboxOf(bad)).toMatchObject([{ attempts: 2 }]);
    expect(await backlog()).toMatchObject({ failing: 1, stopped_on: 0 });
    await t.sql`delete from doco.outbox_claims`;
  });
});

describe('concurrent drains', () => {
  it('index every record once: no duplicate chunks, the store matches doco.chunks', async () => {
    const chunksBefore = await count('chunks');
    // Each record is written twice in a row, so two outbox rows for one record sit side by side
    // and two drains taking one row at a time claim the same record together.
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const id = await add(`Concurrent record ${i}`, paragraphs.slice(i, i + 5).join('\n\n'));
      await changeset(write(), ctx(), { operations: [{ op: 'append', target: id, prose: `Appendix ${i}: the final word.` }] });
      ids.push(id);
    }
    expect(await count('outbox')).toBe(8);
    embedder.delayMs = 30;
    const reports = await Promise.all([drain({ batchSize: 1 }), drain({ batchSize: 1 })]);
    expect(reports.every((r) => r.records > 0)).toBe(true); // both drains took part

    const dupes = await t.sql`select node_id, ordinal from doco.chunks group by node_id, ordinal having count(*) > 1`;
    expect(dupes).toEqual([]);
    const written = (await count('chunks')) - chunksBefore;
    expect(reports[0]!.chunksEmbedded + reports[1]!.chunksEmbedded).toBe(written);
    expect(embedder.documents).toBe(written);
    for (const id of ids) expect((await chunksOf(id)).at(-1)!.body).toContain('the final word');
    expect(await count('outbox')).toBe(0);
    await expectStoreMatchesChunks();
  });
});

describe('interrupted drains', () => {
  /** The store writes, then the drain fails before its commit, as when its process dies there. */
  const failingAfterWrite = (): VectorStore => ({
    kind: 'embedded',
    init: (identity, dims) => store.init(identity, dims),
    upsert: async (points) => {
      await store.upsert(points);
      throw new Error('connection lost after the store write');
    },
    remove: (ids) => store.remove(ids),
    search: (q) => store.search(q),
    count: () => store.count(),
    close: async () => {},
  });
  const pendingRows = () =>
    t.sql<{ id: string; node_id: string }[]>`select point_id::text as id, node_id from doco.index_pending_points order by point_id`;

  it('leave no orphan point: what a drain wrote before failing to commit is removed by the next drain', async () => {
    const id = await add('Interrupted record', 'Written to the store, never recorded: the drain fails before its commit.');
    expect(await drainOutbox({ sql: t.sql, embedder, store: failingAfterWrite(), log })).toMatchObject({ records: 0, failedRecords: 1 });
    // The point is in the store, no chunk row holds it, and its id is recorded as pending.
    const pending = await pendingRows();
    expect(pending.map((r) => r.node_id)).toEqual([id]);
    const orphan = pending[0]!.id;
    expect(store.ids()).toContain(orphan);
    expect(await chunksOf(id)).toEqual([]);

    await t.sql`update doco.outbox set next_attempt_at = now() where node_id = ${id}`;
    expect(await drain()).toMatchObject({ orphansRemoved: 1, records: 1, chunksEmbedded: 1 });
    expect(store.ids()).not.toContain(orphan);
    expect(await pendingRows()).toEqual([]);
    expect(await chunksOf(id)).toHaveLength(1);
    await expectStoreMatchesChunks();
  });

  it('leave the points of a drain still running alone: a record under its drain lock is not judged', async () => {
    const id = await add('Record being drained elsewhere', 'Another drain holds this record and has not committed yet.');
    const pointId = randomUUID();
    const [vector] = await embedder.embed(['being drained elsewhere'], 'document');
    await leavePendingPoint(pointId, id, vector!, 'being drained elsewhere');
    const deps = { sql: t.sql, embedder, store, log };

    const other = await t.sql.reserve();
    try {
      await other`begin`;
      await other`select pg_advisory_xact_lock(${RECORD_LOCK_CLASS}, hashtext(${id}))`;
      expect(await sweepOrphanPoints(deps)).toBe(0);
      expect(store.ids()).toContain(pointId);
      expect((await pendingRows()).map((r) => r.id)).toEqual([pointId]);
    } finally {
      await other`rollback`;
      other.release();
    }
    // That drain died without committing: its point is an orphan now.
    expect(await sweepOrphanPoints(deps)).toBe(1);
    expect(store.ids()).not.toContain(pointId);
    expect(await pendingRows()).toEqual([]);
    await drain();
    await expectStoreMatchesChunks();
  });

  it('put back a point a failed drain overwrote: the sweep rewrites it from doco.chunks', async () => {
    const id = await add('Overwritten record', 'The committed text speaks of marmots in the archive.');
    await drain();
    const [chunk] = await chunksOf(id);
    await t.sql`update doco.nodes set prose = 'The rolled-back text speaks of pelicans instead.' where id = ${id}`;
    expect(await drainOutbox({ sql: t.sql, embedder, store: failingAfterWrite(), log })).toMatchObject({ failedRecords: 1 });
    // The store now holds the rolled-back text under the committed chunk's id.
    expect(await found('pelicans')).toContain(id);
    expect((await pendingRows()).map((r) => r.id)).toEqual([chunk!.id]);

    expect(await sweepOrphanPoints({ sql: t.sql, embedder, store, log })).toBe(0);
    expect(await found('pelicans')).not.toContain(id);
    expect(await found('marmots archive')).toContain(id);
    expect(await pendingRows()).toEqual([]);
    await t.sql`update doco.outbox set next_attempt_at = now() where node_id = ${id}`;
    await drain();
    expect(await found('pelicans')).toContain(id);
    await expectStoreMatchesChunks();
  });

  it('remove the points of deleted chunks after the commit; a removal that fails stays pending for the next drain', async () => {
    const id = await add('Soon retired record', 'Its chunk rows go with the retire; its point must follow.');
    await drain();
    const [chunk] = await chunksOf(id);
    await changeset(write(), ctx(), { operations: [{ op: 'retire', target: id }] });
    const removeFails: VectorStore = {
      ...failingAfterWrite(),
      upsert: (p) => store.upsert(p),
      remove: async () => {
        throw new Error('store unreachable');
      },
    };
    expect(await drainOutbox({ sql: t.sql, embedder, store: removeFails, log })).toMatchObject({
      records: 1,
      chunksRemoved: 1,
      failedRecords: 0,
    });
    expect(await chunksOf(id)).toEqual([]); // committed
    expect(store.ids()).toContain(chunk!.id); // not yet removed from the store
    expect((await pendingRows()).map((r) => r.id)).toEqual([chunk!.id]);

    expect(await drain()).toMatchObject({ orphansRemoved: 1 });
    expect(store.ids()).not.toContain(chunk!.id);
    expect(await pendingRows()).toEqual([]);
    await expectStoreMatchesChunks();
  });

  it('keep a recorded point a chunk row holds: only points no chunk names are removed', async () => {
    const id = await add('Indexed record', 'Indexed once, then a later drain of it failed after recording its point again.');
    await drain();
    const [chunk] = await chunksOf(id);
    await recordPendingPoints(t.sql, [{ id: chunk!.id, nodeId: id }], embedder.identity);
    expect(await sweepOrphanPoints({ sql: t.sql, embedder, store, log })).toBe(0);
    expect(store.ids()).toContain(chunk!.id);
    expect(await pendingRows()).toEqual([]);
    await expectStoreMatchesChunks();
  });
});
