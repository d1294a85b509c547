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

/** The median milliseconds of one search, over every ask, ROUNDS times (the first round warms up). */
function medianMs(index: EmbeddedIndex, queries: StoreQuery[]): number {
  const samples: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    for (const q of queries) {
      const t0 = performance.now();
      index.searchSparse(q);
      if (round > 0) samples.push(performance.now() - t0);
    }
  }
  return percentile(samples, 50);
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
  const out = { chunks, briefMs: medianMs(index, brief), guardMs: medianMs(index, guard) };
  log(
    `${records} records (${chunks} chunks): BM25 median ${round(out.briefMs, 3)} ms at limit 300, ${round(out.guardMs, 3)} ms for the duplicate guard's lookups`,
  );
  return out;
}

export async function bm25Suite(log: (line: string) => void): Promise<Record<string, number>> {
  const small = measure(10_000, log);
  const large = measure(100_000, log);
  return {
    bm25_median_ms_10k: round(small.briefMs, 3),
    bm25_median_ms_100k: round(large.briefMs, 3),
    bm25_ratio_100k_10k: round(large.briefMs / small.briefMs),
    bm25_guard_median_ms_10k: round(small.guardMs, 3),
    bm25_guard_median_ms_100k: round(large.guardMs, 3),
    chunks_100k: large.chunks,
  };
}
