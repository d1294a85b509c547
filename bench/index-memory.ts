// The embedded index's memory alone, no database: the synthetic corpus chunked as the drain does
// (recordChunkSource, chunkSource, lexicalFields), embedded by the local embedder, with chunk
// ids from randomUUID as the drain makes them, upserted into the embedded store in the drain's
// batches of 500. Reports the process's RSS, V8 heap and ArrayBuffer memory after a full GC
// before and after, and their growth: what `npm run bench -- brief` reports as
// index_rss_mb_100k, in about a minute and a half instead of nine (the corpus's own records
// are generated before the first reading and held to the end, so they are not counted). RSS is
// read twice: right after the GC, and a second later, once V8's background threads have handed
// back the pages the GC freed (10–30 MB of the first reading at 100k; docs/eval.md, "Issue 29:
// the index in memory").
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chunkSource, lexicalFields } from '../src/indexing/chunker.js';
import { recordChunkSource } from '../src/indexing/record-source.js';
import type { ChunkPoint } from '../src/providers/vector/port.js';
import { benchProviders } from './harness.js';
import { generateCorpus } from './synthetic.js';
import { allocatorTuned } from './stats.js';
import { BenchUsageError } from './usage-error.js';

const BATCH = 500;

const SETTLE_MS = 1000;

async function memory() {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new BenchUsageError('run with node --expose-gc (npm run bench does)');
  gc();
  gc();
  const m = process.memoryUsage();
  const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const settled = mb(process.memoryUsage.rss());
  return { rss: mb(m.rss), settled, heap: mb(m.heapUsed), heapTotal: mb(m.heapTotal), arrayBuffers: mb(m.arrayBuffers) };
}

/** `--records N` (default 100,000). */
export async function indexMemorySuite(log: (line: string) => void, args: string[]): Promise<Record<string, number>> {
  const at = args.indexOf('--records');
  const records = at >= 0 ? Number(args[at + 1]) : 100_000;
  if (!Number.isInteger(records) || records < 1)
    throw new BenchUsageError(`--records takes a whole number of records, got ${args[at + 1] ?? 'nothing'}`);
  const home = await mkdtemp(path.join(os.tmpdir(), 'doco-bench-memory-'));
  try {
    const corpus = generateCorpus(records);
    const { embedder, store } = await benchProviders(home);
    await store.init(embedder.identity, embedder.dimensions);
    const before = await memory();
    log(`${records} records generated: RSS ${before.rss} MB, heap ${before.heap} MB; indexing…`);
    let batch: { rec: (typeof corpus.records)[number]; chunk: ReturnType<typeof chunkSource>[number] }[] = [];
    let chunks = 0;
    const flush = async () => {
      const vectors = await embedder.embed(
        batch.map((b) => b.chunk.embedInput),
        'document',
      );
      const points: ChunkPoint[] = batch.map(({ rec, chunk }, i) => ({
        id: randomUUID(),
        tenant: 'bench',
        collectionId: rec.collection,
        nodeId: rec.id,
        nodeType: rec.node_type,
        shape: '',
        sourceKind: 'record',
        ...lexicalFields(chunk.embedInput, chunk.text, chunk.context),
        vector: vectors[i]!,
      }));
      await store.upsert(points);
      chunks += batch.length;
      batch = [];
    };
    for (const rec of corpus.records) {
      const source = recordChunkSource({ ...rec, workspace_id: 'bench', collection_id: rec.collection });
      for (const chunk of chunkSource(source, embedder.identity)) {
        batch.push({ rec, chunk });
        if (batch.length === BATCH) await flush();
      }
    }
    if (batch.length) await flush();
    const after = await memory();
    log(
      `${chunks} chunks: RSS ${after.rss} MB (${after.settled} a second later), heap ${after.heap} MB, ArrayBuffers ${after.arrayBuffers} MB`,
    );
    return {
      // Read after the last reading, so the corpus is held until then and its collection is not
      // counted as the index shrinking.
      records: corpus.records.length,
      chunks,
      index_rss_mb: after.rss - before.rss,
      index_rss_settled_mb: after.settled - before.settled,
      index_heap_mb: after.heap - before.heap,
      index_array_buffers_mb: after.arrayBuffers - before.arrayBuffers,
      index_heap_total_mb: after.heapTotal - before.heapTotal,
      allocator_tuned: allocatorTuned(),
    };
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
