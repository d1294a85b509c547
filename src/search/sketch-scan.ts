// The dense search's first pass: the best `k` slots of a row range by sketch inner product. The
// same function runs in this thread and, as source text, in the scan workers (scan-pool.ts), so
// it must stay self-contained: no imports, no outside names, plain JavaScript once types are
// stripped. Ties rank the lower slot first, so the best k of the whole index is exactly the best k
// of the union of each range's best k, however the rows are split between workers.

export interface SketchScan {
  /** The query's sketch (SKETCH_DIMS floats). */
  q: Float32Array;
  /** Every row's sketch, row after row. */
  sketches: Float32Array;
  alive: Uint8Array;
  tenants: Int32Array;
  tenant: number;
  /** Constraints beyond the tenant: a row matches when its code for each attribute is allowed. */
  filters: { codes: Int32Array; allowed: Int32Array }[];
  from: number;
  to: number;
  k: number;
}

/** Slots and their sketch scores, best first (ties: lower slot first). */
export interface Shortlist {
  slots: Int32Array;
  scores: Float64Array;
}

export function scanSketchRange(job: SketchScan): Shortlist {
  const { q, sketches: sk, alive, tenants, tenant, filters, from, to, k } = job;
  const dims = q.length;
  // A min-heap on (score, then higher slot): its root is the worst row kept.
  const hs = new Int32Array(k);
  const hv = new Float64Array(k);
  let n = 0;
  const worse = (a: number, b: number) => hv[a]! < hv[b]! || (hv[a] === hv[b] && hs[a]! > hs[b]!);
  const swap = (a: number, b: number) => {
    const s = hs[a]!;
    hs[a] = hs[b]!;
    hs[b] = s;
    const v = hv[a]!;
    hv[a] = hv[b]!;
    hv[b] = v;
  };
  const keep = (slot: number, score: number) => {
    if (n < k) {
      hs[n] = slot;
      hv[n] = score;
      for (let i = n++; i > 0; ) {
        const p = (i - 1) >> 1;
        if (!worse(i, p)) break;
        swap(i, p);
        i = p;
      }
      return;
    }
    // Rows come in slot order, so an equal score never displaces the root (it has the lower slot).
    if (!(score > hv[0]!)) return;
    hs[0] = slot;
    hv[0] = score;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && worse(l, m)) m = l;
      if (r < n && worse(r, m)) m = r;
      if (m === i) break;
      swap(i, m);
      i = m;
    }
  };
  const matches = (slot: number) => {
    for (const f of filters) if (!f.allowed.includes(f.codes[slot]!)) return false;
    return true;
  };
  const plain = filters.length === 0;
  if (k > 0) {
    for (let slot = from; slot < to; slot++) {
      if (alive[slot] !== 1 || tenants[slot] !== tenant || (!plain && !matches(slot))) continue;
      const base = slot * dims;
      let dot = 0;
      for (let i = 0; i < dims; i += 4) dot += q[i]! * sk[base + i]! + q[i + 1]! * sk[base + i + 1]! + q[i + 2]! * sk[base + i + 2]! + q[i + 3]! * sk[base + i + 3]!;
      if (n < k || dot > hv[0]!) keep(slot, dot);
    }
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => hv[b]! - hv[a]! || hs[a]! - hs[b]!);
  const slots = new Int32Array(n);
  const scores = new Float64Array(n);
  order.forEach((h, i) => {
    slots[i] = hs[h]!;
    scores[i] = hv[h]!;
  });
  return { slots, scores };
}

/** The best `k` of several ranges' shortlists: the shortlist a single scan of all of them would give. */
export function mergeShortlists(parts: Shortlist[], k: number): Shortlist {
  if (parts.length === 1) return parts[0]!;
  const all: [number, number][] = [];
  for (const p of parts) for (let i = 0; i < p.slots.length; i++) all.push([p.slots[i]!, p.scores[i]!]);
  all.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const best = all.slice(0, k);
  return { slots: Int32Array.from(best, (e) => e[0]), scores: Float64Array.from(best, (e) => e[1]) };
}
