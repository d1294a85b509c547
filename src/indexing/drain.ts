// The outbox drain: turns queued records into chunks, embeds only chunks whose content hash
// changed, writes them to the vector store and to doco.chunks, and removes what is gone —
// idempotently, at least once, leaving no orphan point when it dies between the two
// (pending-points.ts). A failing batch is retried record by record so one bad record
// cannot hold back the rest; its outbox rows keep the error and attempt count, with backoff.
// Each claim is counted before the work, apart from it (doco.outbox_claims): a record the drain
// stopped on (the process killed, its connection broken) is tried alone, then set aside.
import { randomUUID } from 'node:crypto';
import type { TransactionSql } from 'postgres';
import type { Sql } from '../db/connect.js';
import { isBrokenConnection } from '../db/read-replica.js';
import type { Embedder } from '../providers/embedder.js';
import { CRASH_MARK, type CrashHook } from '../lib/crash-point.js';
import type { Log } from '../lib/log.js';
import { chunkSource, type Chunk } from './chunker.js';
import { embedPoints, type ChunkToEmbed } from './chunk-points.js';
import { lockRecords } from './drain-locks.js';
import { mapYielding } from '../lib/yield-often.js';
import { clearPendingPoints, recordPendingPoints, sweepOrphanPoints } from './pending-points.js';
import { describeSource, recordChunkSource, type IndexableNode } from './record-source.js';
import { TOKENIZER_VERSION } from '../text/tokenize.js';
import type { ChunkPoint, VectorStore } from '../providers/vector/port.js';

export interface DrainDeps {
  sql: Sql;
  embedder: Embedder;
  store: VectorStore;
  log: Log;
  /** The crash suite's hook (src/lib/crash-point.ts). */
  crash?: CrashHook;
}

export interface DrainReport {
  records: number;
  chunksEmbedded: number;
  chunksUnchanged: number;
  chunksRemoved: number;
  failedRecords: number;
  /** The highest chunk seq written. */
  maxSeq: number;
  /** Points interrupted drains had left in the store, removed first. */
  orphansRemoved: number;
}

/** Attempts after which a record stays in the outbox, visible in doco.outbox_backlog, untried. */
export const MAX_ATTEMPTS = 10;
/**
 * Claims with no outcome (the drain stopped while indexing the row: the process died, or its
 * connection broke) after which a row is set aside, visible in doco.outbox_backlog. Each such
 * claim cost a restart, and one record that kills the process would cost one at every start.
 */
export const MAX_UNFINISHED_CLAIMS = 3;

type Tx = TransactionSql;

interface OutboxRow {
  id: string;
  node_id: string;
  /** Earlier claims of the row that ended in neither an index nor a recorded failure. */
  unfinished: number;
}

interface ExistingChunk {
  id: string;
  node_id: string;
  ordinal: number;
  content_hash: string;
}

const emptyReport = (): DrainReport => ({
  records: 0,
  chunksEmbedded: 0,
  chunksUnchanged: 0,
  chunksRemoved: 0,
  failedRecords: 0,
  maxSeq: 0,
  orphansRemoved: 0,
});

function addTo(total: DrainReport, part: DrainReport) {
  total.records += part.records;
  total.chunksEmbedded += part.chunksEmbedded;
  total.chunksUnchanged += part.chunksUnchanged;
  total.chunksRemoved += part.chunksRemoved;
  total.failedRecords += part.failedRecords;
  total.maxSeq = Math.max(total.maxSeq, part.maxSeq);
  total.orphansRemoved += part.orphansRemoved;
}

/**
 * Which rows a transaction claims: a batch of due rows a drain never stopped on; the rows of one
 * record (a batch's record tried alone); or the rows of the oldest record a drain stopped on.
 */
type ClaimOf = { batch: true } | { nodeId: string } | { stoppedOn: true };

/** Locks up to `limit` due rows, oldest first, of `of`; rows another drain holds are skipped. */
async function claim(tx: Tx, limit: number, of: ClaimOf): Promise<OutboxRow[]> {
  const due = tx`o.next_attempt_at <= now() and o.attempts < ${MAX_ATTEMPTS} and coalesce(c.claims, 0) - o.attempts < ${MAX_UNFINISHED_CLAIMS}`;
  let nodeId = 'nodeId' in of ? of.nodeId : undefined;
  if ('stoppedOn' in of) {
    const [stoppedOn] = await tx<{ node_id: string }[]>`
      select o.node_id from doco.outbox_claims c join doco.outbox o on o.id = c.outbox_id
       where c.claims > o.attempts and ${due}
       order by o.id limit 1
         for update of o skip locked`;
    if (!stoppedOn) return [];
    nodeId = stoppedOn.node_id;
  }
  return tx<OutboxRow[]>`
    select o.id::text, o.node_id, greatest(coalesce(c.claims, 0) - o.attempts, 0)::int as unfinished
      from doco.outbox o left join doco.outbox_claims c on c.outbox_id = o.id
     where ${due} and ${nodeId ? tx`o.node_id = ${nodeId}` : tx`coalesce(c.claims, 0) <= o.attempts`}
     order by o.id limit ${limit}
       for update of o skip locked`; // o.id: a bare "id" would sort by the text column above, not oldest first
}

/** Takes back one claim of each of `rows`: one that ended in an error this drain saw. */
async function uncountClaims(sql: Sql, rows: OutboxRow[]): Promise<void> {
  await sql`update doco.outbox_claims set claims = claims - 1 where outbox_id = any(${rows.map((r) => r.id)}::bigint[])`;
}

/**
 * Counts the claim of `rows`, committed before they are indexed (on a connection of the pool, not
 * the claiming transaction, whose rollback would take the count with it). The counts are rows of
 * their own, so this never waits on the claim's locks.
 */
async function countClaims(sql: Sql, rows: OutboxRow[]): Promise<void> {
  await sql`
    insert into doco.outbox_claims (outbox_id)
    select id from unnest(${rows.map((r) => r.id)}::bigint[]) as id order by id
    on conflict (outbox_id) do update set claims = doco.outbox_claims.claims + 1, last_claimed_at = now()`;
}

interface Indexed {
  report: DrainReport;
  /** Points of the chunks the transaction deleted: they leave the store once it has committed. */
  deletedPoints: string[];
}

/**
 * Indexes the records named by the claimed rows, inside the claiming transaction. New and
 * changed points go to the store before the commit (recorded as pending first); points of
 * deleted chunks leave it after the commit (recorded as pending by it), so a drain dying at any
 * moment leaves nothing the next drain's sweep cannot put right (pending-points.ts).
 */
async function indexRecords(tx: Tx, deps: DrainDeps, rows: OutboxRow[]): Promise<Indexed> {
  const report = emptyReport();
  const nodeIds = [...new Set(rows.map((r) => r.node_id))];
  // Each statement below reads or writes rows by key. A workspace's first drain runs on
  // statistics taken before its chunks existed, and on them Postgres priced a scan of all of
  // doco.chunks as cheapest for a batch's existing chunks: every batch read every chunk written
  // so far (test/indexing/drain-plan.test.ts; docs/eval.md, "Session 26"). For this transaction.
  await tx`set local enable_seqscan = off`;
  // Two drains can claim different outbox rows of one record. Holding the record until commit
  // (locks taken in one order, so drains never deadlock) makes the second read the first's
  // chunks, and embed nothing, rather than write a second set of points for the same chunks.
  await lockRecords(tx, nodeIds);
  const nodes = await tx<(IndexableNode & { lifecycle: string })[]>`
    select id, workspace_id, collection_id, node_type, lifecycle, title, prose, body from doco.nodes where id = any(${nodeIds})`;
  if (deps.crash && nodes.some((n) => n.title.includes(CRASH_MARK))) deps.crash('index-marked-record');
  const existing = await tx<
    ExistingChunk[]
  >`select id::text, node_id, ordinal, content_hash from doco.chunks where node_id = any(${nodeIds})`;
  const existingOf = new Map<string, ExistingChunk[]>();
  for (const c of existing) existingOf.set(c.node_id, [...(existingOf.get(c.node_id) ?? []), c]);

  const toEmbed: ToEmbed[] = [];
  const removed: ExistingChunk[] = [];
  const live = new Map(nodes.map((n) => [n.id, n]));
  // A record at a time, handing the event loop back between them: a batch of 200 records of
  // 400 KB each is seconds of chunking, and `doco serve` answers briefs meanwhile.
  await mapYielding(nodeIds, (nodeId) => {
    const node = live.get(nodeId);
    const old = existingOf.get(nodeId) ?? [];
    // Retired records leave the index: a brief reaching one is handed its replacement instead.
    if (!node || node.lifecycle === 'retired') {
      removed.push(...old);
      return;
    }
    const chunks = chunkSource(recordChunkSource(node), deps.embedder.identity);
    const byOrdinal = new Map(old.map((c) => [c.ordinal, c]));
    for (const chunk of chunks) {
      const prev = byOrdinal.get(chunk.ordinal);
      if (prev && prev.content_hash === chunk.contentHash) report.chunksUnchanged++;
      else toEmbed.push({ node, chunk, id: prev?.id ?? randomUUID() });
    }
    removed.push(...old.filter((c) => c.ordinal >= chunks.length));
  });

  // The chunk rows go to Postgres while this process embeds them: the insert is most of
  // Postgres's part of a batch, the embedding most of this process's. Neither is visible before
  // the commit, so their order within the transaction is free.
  // Settled into a value at once: a failure must not go unhandled while the embedding runs.
  const writing: Promise<{ seq: number } | { error: unknown }> = toEmbed.length
    ? writeChunkRows(tx, deps, toEmbed).then(
        (seq) => ({ seq }),
        (error: unknown) => ({ error }),
      )
    : Promise.resolve({ seq: 0 });
  let points: ChunkPoint[] = [];
  try {
    if (toEmbed.length) points = await embedPoints(deps.embedder, toEmbed.map(chunkToEmbed));
    if (points.length) {
      // Recorded (and committed at once) before the store sees them: a drain dying before its
      // commit leaves these rows, and the next drain's sweep puts the points right.
      await recordPendingPoints(deps.sql, points, deps.embedder.identity);
      await deps.store.upsert(points);
      deps.crash?.('index-after-store-write');
    }
  } catch (err) {
    // The insert ends before the transaction does; this failure came first.
    await writing;
    throw err;
  }
  const written = await writing;
  if ('error' in written) throw written.error;
  report.maxSeq = written.seq;
  if (removed.length) {
    await tx`delete from doco.chunks where id = any(${removed.map((c) => c.id)}::uuid[])`;
    await recordPendingPoints(
      tx,
      removed.map((c) => ({ id: c.id, nodeId: c.node_id })),
      deps.embedder.identity,
    );
  }
  await clearPendingPoints(
    tx,
    points.map((p) => p.id),
  );
  await tx`delete from doco.outbox where id = any(${rows.map((r) => r.id)}::bigint[])`;
  await tx`delete from doco.outbox_claims where outbox_id = any(${rows.map((r) => r.id)}::bigint[])`;
  report.records = nodeIds.length;
  report.chunksEmbedded = points.length;
  report.chunksRemoved = removed.length;
  return { report, deletedPoints: removed.map((c) => c.id) };
}

type ToEmbed = { node: IndexableNode; chunk: Chunk; id: string };

function chunkToEmbed({ node, chunk, id }: ToEmbed): ChunkToEmbed {
  return {
    payload: {
      id,
      tenant: node.workspace_id,
      collectionId: node.collection_id,
      nodeId: node.id,
      nodeType: node.node_type,
      ...describeSource(node),
    },
    embedInput: chunk.embedInput,
    text: chunk.text,
    context: chunk.context,
  };
}

/**
 * Chunk rows per insert statement: the rows go as one JSON parameter, and Postgres refuses a jsonb
 * array past 256 MB (a batch of 30 records of 5,956 chunks each failed there, after embedding them all).
 */
const CHUNK_ROWS_PER_INSERT = 2000;

/** Upserts the chunks' rows in the drain's transaction, a slice a statement; resolves to the highest seq written. */
async function writeChunkRows(tx: Tx, deps: DrainDeps, toEmbed: ToEmbed[]): Promise<number> {
  let seq = 0;
  for (let at = 0; at < toEmbed.length; at += CHUNK_ROWS_PER_INSERT)
    seq = Math.max(seq, await insertChunkRows(tx, deps, toEmbed.slice(at, at + CHUNK_ROWS_PER_INSERT)));
  return seq;
}

async function insertChunkRows(tx: Tx, deps: DrainDeps, toEmbed: ToEmbed[]): Promise<number> {
  const rowsToWrite = toEmbed.map(({ node, chunk, id }) => ({
    id,
    workspace_id: node.workspace_id,
    collection_id: node.collection_id,
    node_id: node.id,
    ordinal: chunk.ordinal,
    node_type: node.node_type,
    shape: describeSource(node).shape,
    source_kind: describeSource(node).sourceKind,
    heading_path: chunk.headingPath,
    body: chunk.text,
    ...aroundBody(chunk.embedInput, chunk.text),
    content_hash: chunk.contentHash,
    embedder: deps.embedder.identity,
    tokenizer: TOKENIZER_VERSION,
  }));
  // One JSON parameter rather than 14 per chunk: binding 7,000 parameters cost the client
  // and the server more than the insert itself (docs/eval.md, "Writes and upkeep"). The body
  // goes once, and is stored once: the embedding input as the text around it
  // (migrations/0034_chunk_embed_parts.sql).
  const written = await tx<{ seq: string }[]>`
    insert into doco.chunks (id, workspace_id, collection_id, node_id, ordinal, node_type, shape, source_kind, heading_path,
                             body, embed_input, embed_before, embed_after, content_hash, embedder, tokenizer)
    select r.id, r.workspace_id, r.collection_id, r.node_id, r.ordinal, r.node_type, r.shape, r.source_kind, r.heading_path,
           r.body, r.embed_input, coalesce(r.embed_before, ''), coalesce(r.embed_after, ''), r.content_hash, r.embedder, r.tokenizer
      from rows from (jsonb_to_recordset(${tx.json(rowsToWrite as never)}::jsonb) as (
             id uuid, workspace_id text, collection_id text, node_id text, ordinal integer, node_type text, shape text,
             source_kind text, heading_path text, body text, embed_input text, embed_before text, embed_after text,
             content_hash text, embedder text, tokenizer smallint))
           with ordinality as r(id, workspace_id, collection_id, node_id, ordinal, node_type, shape, source_kind, heading_path,
                                body, embed_input, embed_before, embed_after, content_hash, embedder, tokenizer, ord)
     order by r.ord
    on conflict (node_id, ordinal) do update set
      id = excluded.id, workspace_id = excluded.workspace_id, collection_id = excluded.collection_id, node_type = excluded.node_type,
      shape = excluded.shape, source_kind = excluded.source_kind, heading_path = excluded.heading_path, body = excluded.body,
      embed_input = excluded.embed_input, embed_before = excluded.embed_before, embed_after = excluded.embed_after,
      content_hash = excluded.content_hash, embedder = excluded.embedder, tokenizer = excluded.tokenizer,
      seq = nextval('doco.chunk_seq'), updated_at = now()
    returning seq::text`;
  // A loop, not Math.max(...): a spread of thousands of arguments can pass the call stack's limit.
  let max = 0;
  for (const w of written) max = Math.max(max, Number(w.seq));
  return max;
}

/**
 * A chunk's embedding input as the text before and after its body (a header before it, or a
 * heading path after a title that is all the chunk's text), so the insert's JSON carries the body
 * once and the row holds it once; the input itself when it does not hold the body.
 */
function aroundBody(embedInput: string, body: string): { embed_before: string; embed_after: string } | { embed_input: string } {
  if (embedInput.endsWith(body)) return { embed_before: embedInput.slice(0, embedInput.length - body.length), embed_after: '' };
  if (embedInput.startsWith(body)) return { embed_before: '', embed_after: embedInput.slice(body.length) };
  return { embed_input: embedInput };
}

/** After the commit: the deleted chunks' points leave the store. If that fails, they stay pending for the next sweep. */
async function removeDeletedPoints(deps: DrainDeps, ids: string[]): Promise<void> {
  if (!ids.length) return;
  try {
    await deps.store.remove(ids);
    await clearPendingPoints(deps.sql, ids);
  } catch (err) {
    deps.log.warn(
      `index drain: removing ${ids.length} point(s) of deleted chunks failed, the next drain removes them: ${(err as Error).message}`,
    );
  }
}

/** One transaction claiming up to `limit` rows of `of`, then the post-commit removals. */
async function indexClaimed(
  deps: DrainDeps,
  limit: number,
  onClaim: (rows: OutboxRow[]) => void,
  of: ClaimOf,
): Promise<DrainReport | undefined> {
  const outcome = await deps.sql.begin(async (tx): Promise<{ indexed: Indexed } | { failed: Error; nodeId: string } | undefined> => {
    const rows = await claim(tx, limit, of);
    onClaim(rows);
    if (!rows.length) return undefined;
    const unfinished = Math.max(...rows.map((r) => r.unfinished));
    if (unfinished > 0)
      deps.log.warn(
        `index drain: ${rows[0]!.node_id} was being indexed when a drain stopped (${unfinished} time${unfinished === 1 ? '' : 's'}); trying it alone` +
          (unfinished + 1 >= MAX_UNFINISHED_CLAIMS ? ', a last time: if this drain stops too, it is set aside (doco.outbox_backlog)' : ''),
      );
    await countClaims(deps.sql, rows);
    if (new Set(rows.map((r) => r.node_id)).size > 1) return { indexed: await indexRecords(tx, deps, rows) };
    // One record: its failure is recorded in this transaction, under the claim's row locks. After
    // a rollback the rows would be free and still due until the failure was written, and the
    // drain's other lane (or another drain) could claim and try the record a second time.
    try {
      return { indexed: await tx.savepoint((sp) => indexRecords(sp, deps, rows)) };
    } catch (err) {
      if (isBrokenConnection(err)) throw err;
      await markFailed(tx, rows, err);
      return { failed: err as Error, nodeId: rows[0]!.node_id };
    }
  });
  if (!outcome) return undefined;
  if ('failed' in outcome) {
    deps.log.warn(`index drain: ${outcome.nodeId} failed: ${outcome.failed?.message ?? String(outcome.failed)}`);
    return { ...emptyReport(), failedRecords: 1 };
  }
  await removeDeletedPoints(deps, outcome.indexed.deletedPoints);
  return outcome.indexed.report;
}

async function markFailed(sql: Sql | Tx, rows: OutboxRow[], err: unknown): Promise<void> {
  const message = (err as Error)?.message ?? String(err);
  await sql`
    update doco.outbox set attempts = attempts + 1, last_error = ${message.slice(0, 2000)}, last_attempt_at = now(),
           next_attempt_at = now() + make_interval(secs => least(300, power(2, attempts + 1)))
     where id = any(${rows.map((r) => r.id)}::bigint[])`;
}

/** One batch: claim, index, commit. On failure, each record of the batch is tried alone. */
async function drainBatch(deps: DrainDeps, limit: number, of: ClaimOf = { batch: true }): Promise<DrainReport | undefined> {
  let claimed: OutboxRow[] = [];
  try {
    return await indexClaimed(deps, limit, (rows) => (claimed = rows), of);
  } catch (err) {
    if (claimed.length === 0) throw err;
    const nodeIds = [...new Set(claimed.map((r) => r.node_id))];
    if (nodeIds.length === 1) {
      await markFailed(deps.sql, claimed, err);
      deps.log.warn(`index drain: ${nodeIds[0]} failed: ${(err as Error).message}`);
      return { ...emptyReport(), failedRecords: 1 };
    }
    // Said once: the batch's own failure, before its records are tried alone (it left no line, a review found).
    deps.log.warn(`index drain: a batch of ${nodeIds.length} records failed (${(err as Error).message}); trying each alone`);
    // The batch's claim ended in an error, not a stop: it is not counted as one the drain stopped on.
    await uncountClaims(deps.sql, claimed).catch(() => undefined);
    const total = emptyReport();
    for (const nodeId of nodeIds) {
      let rows: OutboxRow[] = [];
      try {
        addTo(total, (await indexClaimed(deps, limit, (claimedOne) => (rows = claimedOne), { nodeId })) ?? emptyReport());
      } catch (one) {
        if (rows.length) await markFailed(deps.sql, rows, one);
        deps.log.warn(`index drain: ${nodeId} failed: ${(one as Error).message}`);
        total.failedRecords++;
      }
    }
    return total;
  }
}

/**
 * Batches in flight at once. A batch waits on Postgres for about half its time (the chunk insert,
 * the claim, the commit) and works in this process for the rest (chunking, embedding, the
 * store); two overlap the one with the other. They claim different outbox rows (skip locked) and
 * meet on a record's drain lock, as two drains always could.
 */
const LANES = 2;

/** Sweeps what interrupted drains left in the store, then drains due outbox rows in batches until none are left (or maxBatches). */
export async function drainOutbox(deps: DrainDeps, opts: { batchSize?: number; maxBatches?: number } = {}): Promise<DrainReport> {
  const total = emptyReport();
  total.orphansRemoved = await sweepOrphanPoints(deps);
  let started = 0;
  // First the records a drain stopped on, one at a time with nothing beside them: whatever is in
  // flight when a record kills the process is counted as stopped on too, and a record that only
  // ever ran beside the killer would be set aside with it.
  let tookStoppedOn = false;
  while (started < (opts.maxBatches ?? Infinity)) {
    const report = await drainBatch(deps, opts.batchSize ?? 200, { stoppedOn: true });
    if (!report) break;
    started++;
    tookStoppedOn = true;
    addTo(total, report);
  }
  let done = false;
  const lane = async () => {
    while (!done && started < (opts.maxBatches ?? Infinity)) {
      started++;
      const report = await drainBatch(deps, opts.batchSize ?? 200);
      if (!report) break;
      addTo(total, report);
      if (report.records === 0 && report.failedRecords === 0) break;
    }
    // Nothing left to claim (or the last batch failed to index anything): the other lane stops after its batch.
    done = true;
  };
  const lanes = Array.from({ length: Math.min(LANES, opts.maxBatches ?? LANES) }, lane);
  // Every lane runs to its end before a failure is raised: no batch outlives the drain.
  const ended = await Promise.allSettled(lanes);
  const failed = ended.find((e) => e.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  // Once more at the end when this drain took up records another drain stopped on: that drain
  // (killed, or its connection broken) may have left points pending after this one's first sweep,
  // and with its records indexed here the outbox is empty and no drain comes to remove them (the
  // scale suite found 30 such points). A sweep that fails here leaves them for the next drain.
  if (tookStoppedOn)
    total.orphansRemoved += await sweepOrphanPoints(deps).catch((err: Error) => {
      deps.log.warn(`index drain: the closing sweep of orphan points failed, the next drain sweeps: ${err.message}`);
      return 0;
    });
  return total;
}
