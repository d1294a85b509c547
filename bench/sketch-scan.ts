// The embedded index's sketch scan alone (scanSketchRange in this thread), no database: the
// synthetic corpus chunked as the drain does and embedded by the local embedder, at 10k and
// 100k records, scanned with the brief's asks. Reports the median milliseconds of one scan of
// every row with the WebAssembly kernel and with the JavaScript one (same sitting, same rows),
// and how many of each ask's exact top 10 (float cosine over the float vectors) the 400-row
// shortlist holds: with the int8 sketches the index keeps, and with float32 sketches scored in
// float64 (what the index kept before), so the cost of int8 shows beside it.
import { localEmbedder } from '../src/providers/local-embedder.js';
import { chunkSource } from '../src/indexing/chunker.js';
import { EmbeddedIndex } from '../src/providers/vector/embedded/memory-index.js';
import { recordChunkSource } from '../src/indexing/record-source.js';
import { SKETCH_DIMS, sketchInto, sketchPlan } from '../src/providers/vector/embedded/sketch.js';
import { jsSketchKernel, scanSketchRange, type SketchKernel } from '../src/providers/vector/embedded/sketch-scan.js';
import { TopK } from '../src/providers/vector/embedded/top-k.js';
import { generateCorpus } from './synthetic.js';
import { percentile, round } from './stats.js';

/** Timed rounds over every ask, after one to warm up; three of them per kernel, alternated. */
const ROUNDS = 2;
const SHORTLIST = 400;

async function buildIndex(records: number) {
  const corpus = generateCorpus(records);
  const embedder = localEmbedder();
  const index = new EmbeddedIndex(embedder.dimensions, 1024);
  const dims = embedder.dimensions;
  const texts: string[] = [];
  const metas: { id: string; nodeId: string; collectionId: string; nodeType: string }[] = [];
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
      texts.push(chunk.embedInput);
      metas.push({ id: `${rec.id}#${chunk.ordinal}`, nodeId: rec.id, collectionId: rec.collection, nodeType: rec.node_type });
    }
  }
  // The float vectors and float sketches stay here too, for the exact top 10 and the float32 shortlist.
  const vectors = new Float32Array(texts.length * dims);
  const sketches = new Float32Array(texts.length * SKETCH_DIMS);
  const plan = sketchPlan(dims);
  for (let from = 0; from < texts.length; from += 2000) {
    const batch = await embedder.embed(texts.slice(from, from + 2000), 'document');
    batch.forEach((v, i) => {
      const m = metas[from + i]!;
      index.addPoint({ ...m, tenant: 'bench', shape: '', sourceKind: 'record' }, v, { indices: [], values: [] });
      vectors.set(v, (from + i) * dims);
      sketchInto(v, plan, sketches, (from + i) * SKETCH_DIMS);
    });
  }
  const queries = await embedder.embed(
    corpus.asks.map((a) => a.about),
    'query',
  );
  return { index, vectors, sketches, plan, queries, dims, rows: texts.length };
}

/** The `n` best rows by a score (ties: lower slot first). */
function topBy(rows: number, n: number, score: (slot: number) => number): number[] {
  const top = new TopK(n);
  for (let slot = 0; slot < rows; slot++) top.push(slot, score(slot));
  return top.sorted().map((e) => e.slot);
}

const dot = (a: Float32Array, aAt: number, b: Float32Array, bAt: number, n: number) => {
  let s = 0;
  for (let i = 0; i < n; i++) s += a[aAt + i]! * b[bAt + i]!;
  return s;
};

async function measure(records: number, log: (l: string) => void) {
  const { index, vectors, sketches, plan, queries, dims, rows } = await buildIndex(records);
  const scans = queries.map((vector) => index.denseScan({ tenant: 'bench', vector, text: '', limit: 10 }));
  const jobs = scans.map((s) => {
    if (s.kind !== 'sketch') throw new Error('the bench index keeps no sketches');
    return s;
  });
  const timeScans = (kernel: (rowsRef: (typeof jobs)[number]) => SketchKernel) => {
    const samples: number[] = [];
    for (let r = 0; r <= ROUNDS; r++) {
      for (const s of jobs) {
        const k = kernel(s);
        const t0 = performance.now();
        scanSketchRange({ ...s.job, from: 0, to: s.size, thread: 0 }, k);
        if (r > 0) samples.push(performance.now() - t0);
      }
    }
    return percentile(samples, 50);
  };
  // Alternated, so neither kernel has the machine to itself while the other waits.
  const js = new Map(jobs.map((s) => [s, jsSketchKernel(s.job.rows)]));
  const wasmMs: number[] = [];
  const jsMs: number[] = [];
  for (let i = 0; i < 3; i++) {
    wasmMs.push(timeScans((s) => s.kernel));
    jsMs.push(timeScans((s) => js.get(s)!));
  }
  let int8Found = 0;
  let floatFound = 0;
  /** Rows of an exact top 10 that one shortlist holds and the other does not. */
  let int8Only = 0;
  let floatOnly = 0;
  const q = new Float32Array(SKETCH_DIMS);
  queries.forEach((vector, i) => {
    const exact = topBy(rows, 10, (slot) => dot(vector, 0, vectors, slot * dims, dims));
    const shortlist = new Set(scanSketchRange({ ...jobs[i]!.job, from: 0, to: rows, thread: 0 }, jobs[i]!.kernel).slots);
    sketchInto(vector, plan, q, 0);
    const floatList = new Set(topBy(rows, SHORTLIST, (slot) => dot(q, 0, sketches, slot * SKETCH_DIMS, SKETCH_DIMS)));
    int8Found += exact.filter((s) => shortlist.has(s)).length;
    floatFound += exact.filter((s) => floatList.has(s)).length;
    int8Only += exact.filter((s) => shortlist.has(s) && !floatList.has(s)).length;
    floatOnly += exact.filter((s) => floatList.has(s) && !shortlist.has(s)).length;
  });
  const out = {
    rows,
    wasmMs: percentile(wasmMs, 50),
    jsMs: percentile(jsMs, 50),
    int8Recall: int8Found / (queries.length * 10),
    floatRecall: floatFound / (queries.length * 10),
    int8Only,
    floatOnly,
  };
  log(
    `${records} records (${rows} rows): scan median ${round(out.wasmMs, 3)} ms WebAssembly, ${round(out.jsMs, 3)} ms JavaScript; exact top 10 in the shortlist: ${round(out.int8Recall * 100, 2)}% int8, ${round(out.floatRecall * 100, 2)}% float32 (${int8Only} only in the int8 one, ${floatOnly} only in the float32 one)`,
  );
  return out;
}

export async function sketchScanSuite(log: (line: string) => void): Promise<Record<string, number>> {
  const small = await measure(10_000, log);
  const large = await measure(100_000, log);
  return {
    sketch_scan_wasm_ms_10k: round(small.wasmMs, 3),
    sketch_scan_js_ms_10k: round(small.jsMs, 3),
    sketch_scan_wasm_ms_100k: round(large.wasmMs, 3),
    sketch_scan_js_ms_100k: round(large.jsMs, 3),
    sketch_rows_100k: large.rows,
    shortlist_recall_int8_10k: round(small.int8Recall, 4),
    shortlist_recall_float32_10k: round(small.floatRecall, 4),
    shortlist_recall_int8_100k: round(large.int8Recall, 4),
    shortlist_recall_float32_100k: round(large.floatRecall, 4),
    shortlist_top10_missed_by_int8_only: small.floatOnly + large.floatOnly,
    shortlist_top10_missed_by_float32_only: small.int8Only + large.int8Only,
  };
}
