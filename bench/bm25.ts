// The embedded index's BM25 search alone (EmbeddedIndex.searchSparse), no database: the
// synthetic corpus chunked as the drain does, at 10k and 100k records, searched with the brief
// benchmark's asks at the brief's limit (300 chunks), and the duplicate guard's lookups: a record's
// own words, as the guard sends them (10 hits of its type).
import { chunkSource, embedHeader } from '../src/indexing/chunker.js';
import { EmbeddedIndex } from '../src/providers/vector/embedded/memory-index.js';
import { recordChunkSource } from '../src/indexing/record-source.js';
import { lookupText } from '../src/text/near-duplicate.js';
import type { StoreQuery } from '../src/providers/vector/port.js';
import { generateCorpus } from './synthetic.js';
import { percentile, round } from './stats.js';

/** Wide enough to hold a point, too narrow for sketches: the dense side costs nothing here. */
const DIMS = 8;
const ROUNDS = 5;
const GUARD_LOOKUPS = 60;

interface GuardLookup {
  text: string;
  nodeType: string;
}

function buildIndex(records: number): { index: EmbeddedIndex; asks: string[]; drafts: GuardLookup[]; chunks: number } {
  const corpus = generateCorpus(records);
  const index = new EmbeddedIndex(DIMS, 1024);
  const vector = new Float32Array(DIMS).fill(1 / Math.sqrt(DIMS));
  let chunks = 0;
  for (const rec of corpus.records) {
    const node = {
      id: rec.id,
      workspace_id: 'bench',
      collection_id: rec.collection,
      node_type: rec.node_type,
      title: rec.title,
      prose: rec.prose,
      body: rec.body,
    };
    for (const chunk of chunkSource(recordChunkSource(node), 'bench')) {
      index.upsert({
        id: `${rec.id}#${chunk.ordinal}`,
        nodeId: rec.id,
        tenant: 'bench',
        collectionId: rec.collection,
        nodeType: rec.node_type,
        shape: '',
        sourceKind: 'record',
        text: chunk.embedInput,
        header: embedHeader(chunk.embedInput, chunk.text),
        vector,
      });
      chunks++;
    }
  }
  // Records spread over the corpus, as drafts the guard would check.
  const step = Math.floor(corpus.records.length / GUARD_LOOKUPS);
  const drafts = corpus.records
    .filter((_, i) => i % step === 0)
    .slice(0, GUARD_LOOKUPS)
    .map((r) => ({ text: lookupText(`${r.title}\n${r.prose}`), nodeType: r.node_type }));
  return { index, asks: corpus.asks.map((a) => a.about), drafts, chunks };
}

interface Timing {
  /** Wall-clock milliseconds of one search: median and 95th percentile. */
  median: number;
  p95: number;
  /** The same from the process's CPU time (user + system), less moved by the other work on a shared machine. */
  cpuMedian: number;
  cpuP95: number;
}

/** One search's timing over every ask, ROUNDS times (the first round warms up). */
function timing(index: EmbeddedIndex, queries: StoreQuery[]): Timing {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    for (const q of queries) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      index.searchSparse(q);
      const t1 = performance.now();
      const c1 = process.cpuUsage(c0);
      if (round === 0) continue;
      wall.push(t1 - t0);
      cpu.push((c1.user + c1.system) / 1000);
    }
  }
  return { median: percentile(wall, 50), p95: percentile(wall, 95), cpuMedian: percentile(cpu, 50), cpuP95: percentile(cpu, 95) };
}

function measure(records: number, log: (l: string) => void) {
  const { index, asks, drafts, chunks } = buildIndex(records);
  const brief = asks.map((text) => ({ tenant: 'bench', vector: new Float32Array(DIMS), text, limit: 300 }));
  // As src/graph/duplicate-candidates.ts asks.
  const guard = drafts.map(({ text, nodeType }) => ({
    tenant: 'bench',
    vector: new Float32Array(DIMS),
    text,
    limit: 10,
    sparseOnly: true,
    recordWords: true,
    filter: { nodeTypes: [nodeType] },
  }));
  const out = { chunks, brief: timing(index, brief), guard: timing(index, guard) };
  log(
    `${records} records (${chunks} chunks): BM25 at limit 300 median ${round(out.brief.median, 3)} ms, p95 ${round(out.brief.p95, 3)} ms ` +
      `(CPU ${round(out.brief.cpuMedian, 3)}, ${round(out.brief.cpuP95, 3)}); the duplicate guard's lookups median ${round(out.guard.median, 3)} ms`,
  );
  return out;
}

export async function bm25Suite(log: (line: string) => void): Promise<Record<string, number>> {
  const small = measure(10_000, log);
  const large = measure(100_000, log);
  return {
    bm25_median_ms_10k: round(small.brief.median, 3),
    bm25_median_ms_100k: round(large.brief.median, 3),
    bm25_ratio_100k_10k: round(large.brief.median / small.brief.median),
    bm25_p95_ms_10k: round(small.brief.p95, 3),
    bm25_p95_ms_100k: round(large.brief.p95, 3),
    bm25_cpu_median_ms_10k: round(small.brief.cpuMedian, 3),
    bm25_cpu_median_ms_100k: round(large.brief.cpuMedian, 3),
    bm25_cpu_ratio_100k_10k: round(large.brief.cpuMedian / small.brief.cpuMedian),
    bm25_cpu_p95_ms_10k: round(small.brief.cpuP95, 3),
    bm25_cpu_p95_ms_100k: round(large.brief.cpuP95, 3),
    bm25_guard_median_ms_10k: round(small.guard.median, 3),
    bm25_guard_median_ms_100k: round(large.guard.median, 3),
    chunks_100k: large.chunks,
  };
}
