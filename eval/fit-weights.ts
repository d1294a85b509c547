// `node dist/eval/fit-weights.js FEATURES.json [--model NAME]… [--fitter NAME]…`: does a
// jointly fitted linear blend of the evidence the brief already computes rank its rerank pool
// better than the hand weights, on query sets it was not fitted on? FEATURES.json is the eval's feature dump (`npm run eval --
// --shared DIR --features FILE`, eval/features.ts). Offline and deterministic: no Doco boots.
//
// Each query's pool is re-ranked the way the brief ranks it (src/brief/compose.ts): a relevance
// for the reranked head scaled so its best is 1, the rest below the head's least relevant by
// their fused score, the touch floor and clause coverage (the real functions), the relevance
// floor; then recall@10 against the fixed labels, over all of a query's targets (one outside the
// pool is a miss for every weighting). With the hand weights this reproduces the brief's own
// relevance (checked and printed first). Learned weightings are fitted by
//   - `ranknet`: pairwise logistic loss on (target, non-target) pairs of the head, each query
//     weighing the same, L2-regularised, weights kept non-negative; λ chosen by an inner
//     leave-one-set-out over the training sets only;
//   - `lambdarank`: the same pairs, but each epoch only those whose swap would change recall@10
//     under the current weights (LambdaRank's idea), λ chosen the same way;
//   - `ascent`: coordinate ascent on the training sets' mean recall@10 (plus a tenth of MRR to
//     break ties), from the hand weights, the reranker's weight held at 1 (the scale is free).
// and scored on held-out folds: leave one set out (fit on the others, test on it) and leave one
// corpus out (a corpus's sets A, B and C share one index, so they leave together). The whole run
// (four models, three fitters) takes about ten minutes on one core; --model and --fitter pick.
import { readFileSync } from 'node:fs';
import { coverClauses } from '../src/brief/clause-cover.js';
import { PRIOR_WEIGHT } from '../src/brief/rerank.js';
import { RELEVANCE_FLOOR } from '../src/brief/tiers.js';
import { liftExactTouches } from '../src/brief/touch-floor.js';
import { blendLexical } from '../src/providers/local-reranker.js';
import { SEED_WEIGHTS } from '../src/retrieval/retrieve.js';
import type { SeedList } from '../src/retrieval/retrievers.js';
import type { FeatureDump, FeatureQuery } from './features.js';
import { QUERY_KINDS } from './systems.js';

const LISTS = ['bm25', 'vector', 'fulltext', 'touches', 'glossary', 'clauses', 'code_terms'] as const satisfies readonly SeedList['name'][];
/** Every feature a head candidate has; a model reads a subset. */
const FEATURES = [
  'rerank',
  'prior',
  ...LISTS,
  'graph',
  'coverage',
  'saturated',
  'adjacency',
  'lead',
  'clause_rerank',
  'pagerank',
  'exact_touch',
  'record',
] as const;
type Feature = (typeof FEATURES)[number];

/** The models compared: which features each may weigh. */
const MODELS: Record<string, Feature[]> = {
  // PRIOR_WEIGHT alone: the reranker against the fused score as the brief blends it.
  blend: ['rerank', 'prior'],
  // The reranker beside each seed list and the hop, each with its own weight.
  lists: ['rerank', ...LISTS, 'graph'],
  // The reranker's own signals re-weighted beside the fused score as one.
  reranker: ['rerank', 'prior', 'coverage', 'saturated', 'adjacency', 'lead', 'clause_rerank'],
  // Every signal on its own.
  full: ['rerank', ...LISTS, 'graph', 'coverage', 'saturated', 'adjacency', 'lead', 'clause_rerank', 'pagerank', 'exact_touch', 'record'],
};

interface Candidate {
  id: string;
  head: boolean;
  constitution: boolean;
  target: boolean;
  /** The fused score as a share of the head's best (the tail's relevance reads it). */
  prior: number;
  x: Float64Array;
  touch?: { score: number; at: number };
  relevance: number;
}

interface Query {
  set: string;
  corpus: string;
  id: string;
  kind: string;
  targets: number;
  candidates: Candidate[];
  byClause: Map<string, number>[];
  touches: SeedList | undefined;
  /** The brief's own recall@10 (what the eval reported). */
  briefRecall: number;
}

type Weights = Float64Array;

const index = (f: Feature) => FEATURES.indexOf(f);

/** The brief's blend as a weight vector: the reranker at 1, the prior at PRIOR_WEIGHT. */
function handWeights(model: Feature[]): Weights {
  const w = new Float64Array(FEATURES.length);
  w[index('rerank')] = 1;
  if (model.includes('prior')) w[index('prior')] = PRIOR_WEIGHT;
  else {
    for (const l of LISTS) w[index(l)] = PRIOR_WEIGHT * SEED_WEIGHTS[l];
    w[index('graph')] = PRIOR_WEIGHT;
  }
  return w;
}

function toQuery(q: FeatureQuery): Query {
  const targets = new Set(q.relevant);
  const all = q.pool.candidates;
  const head = all.filter((c) => c.head);
  const headPrior = Math.max(1e-9, ...head.map((c) => c.prior));
  const maxPagerank = Math.max(1e-9, ...head.map((c) => c.pagerank));
  // The reranker's blend per query (the ask, then each clause), scaled as rerank.ts scales it.
  const queries = q.pool.queries.length;
  const blends = Array.from({ length: queries }, (_, k) => head.map((c) => blendLexical(c.lexical[k]!)));
  const tops = blends.map((b) => Math.max(...b.map((s) => Math.abs(s)), 1e-9));
  const candidates = all.map((c): Candidate => {
    const x = new Float64Array(FEATURES.length);
    const h = head.indexOf(c);
    if (h >= 0) {
      const scaled = blends.map((b, k) => b[h]! / tops[k]!);
      x[index('rerank')] = Math.max(...scaled);
      x[index('clause_rerank')] = scaled.length > 1 ? Math.max(...scaled.slice(1)) : 0;
      const ask = c.lexical[0]!;
      x[index('coverage')] = ask.coverage / tops[0]!;
      x[index('saturated')] = ask.saturated / tops[0]!;
      x[index('adjacency')] = ask.adjacency / tops[0]!;
      x[index('lead')] = ask.lead / tops[0]!;
      for (const l of LISTS) x[index(l)] = (c.shares[l] ?? 0) / headPrior;
      x[index('graph')] = c.graph / headPrior;
      x[index('prior')] = c.prior / headPrior;
      x[index('pagerank')] = c.pagerank / maxPagerank;
      x[index('exact_touch')] = c.touch && c.touch.score >= 1 ? 1 : 0;
      x[index('record')] = c.node_type === 'reference' ? 0 : 1;
    }
    return {
      id: c.id,
      head: h >= 0,
      constitution: c.constitution,
      target: targets.has(c.id),
      prior: c.prior / headPrior,
      x,
      ...(c.touch ? { touch: c.touch } : {}),
      relevance: c.relevance,
    };
  });
  const touched = all.filter((c) => c.touch).sort((a, b) => a.touch!.at - b.touch!.at);
  const touches: SeedList | undefined = touched.length
    ? { name: 'touches', ids: touched.map((c) => c.id), scores: touched.map((c) => c.touch!.score), because: new Map() }
    : undefined;
  const byClause = Array.from(
    { length: Math.max(0, ...all.map((c) => c.by_clause.length)) },
    (_, k) => new Map(all.filter((c) => c.head).map((c) => [c.id, c.by_clause[k]!])),
  );
  const briefTop = new Set(q.brief.slice(0, 10));
  return {
    set: q.set,
    corpus: q.set.replace(/ \(.*\)$/, ''),
    id: q.id,
    kind: q.kind ?? 'other',
    targets: targets.size,
    candidates,
    byClause,
    touches,
    briefRecall: targets.size ? [...targets].filter((t) => briefTop.has(t)).length / targets.size : 0,
  };
}

const dot = (w: Weights, x: Float64Array) => {
  let s = 0;
  for (let j = 0; j < w.length; j++) s += w[j]! * x[j]!;
  return s;
};

/** The pool's relevance under weights `w`, as compose.ts builds it (the touch floor and clause coverage included). */
function relevanceOf(q: Query, w: Weights): Map<string, number> {
  const head = q.candidates.filter((c) => c.head);
  const raw = head.map((c) => dot(w, c.x));
  const top = Math.max(...raw, 1e-9);
  const relevance = new Map<string, number>();
  if (head.length < 2) head.forEach((c) => relevance.set(c.id, c.prior));
  else head.forEach((c, i) => relevance.set(c.id, Math.max(0, raw[i]!) / top));
  const headFloor = Math.min(1, ...relevance.values());
  for (const c of q.candidates) if (!c.head) relevance.set(c.id, headFloor * Math.min(1, c.prior));
  liftExactTouches(relevance, q.touches);
  coverClauses(relevance, q.byClause);
  return relevance;
}

/** The ranking the brief would send: what clears the floor (and the constitution), most relevant first. */
function rankingOf(q: Query, w: Weights): Candidate[] {
  const relevance = relevanceOf(q, w);
  const score = (c: Candidate) => Number(relevance.get(c.id)!.toFixed(6));
  return q.candidates.filter((c) => c.constitution || relevance.get(c.id)! >= RELEVANCE_FLOOR).sort((a, b) => score(b) - score(a));
}

function scoreQuery(q: Query, w: Weights): { recall: number; rr: number } {
  const ranked = rankingOf(q, w);
  const found = ranked.slice(0, 10).filter((c) => c.target).length;
  const first = ranked.findIndex((c) => c.target);
  return { recall: q.targets ? found / q.targets : 0, rr: first >= 0 ? 1 / (first + 1) : 0 };
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const recallOf = (qs: Query[], w: Weights) => mean(qs.map((q) => scoreQuery(q, w).recall));

/** Each query's (target, non-target) head pairs as feature differences over `active`, weighted so every query weighs the same. */
function pairsOf(qs: Query[], active: number[]): { d: Float64Array; weight: number }[] {
  const withPairs = qs.filter((q) => q.candidates.some((c) => c.head && c.target) && q.candidates.some((c) => c.head && !c.target));
  return withPairs.flatMap((q) => {
    const head = q.candidates.filter((c) => c.head);
    const pos = head.filter((c) => c.target);
    const neg = head.filter((c) => !c.target);
    const weight = 1 / (pos.length * neg.length * withPairs.length);
    return pos.flatMap((p) => neg.map((m) => ({ d: Float64Array.from(active, (j) => p.x[j]! - m.x[j]!), weight })));
  });
}

/** The mean pairwise logistic loss of `w` (over `active`), plus λ‖w‖². */
function pairLoss(pairs: { d: Float64Array; weight: number }[], w: Float64Array, lambda: number): number {
  let loss = 0;
  for (const p of pairs) loss += p.weight * Math.log1p(Math.exp(-dot(w, p.d)));
  return loss + lambda * dot(w, w);
}

/** RankNet: the pairwise logistic loss over every (target, non-target) pair of the head. */
function fitRankNet(qs: Query[], model: Feature[], lambda: number, epochs = 300): Weights {
  const active = model.map(index);
  const pairs = pairsOf(qs, active);
  return descend(active, lambda, epochs, (w, grad) => {
    for (const p of pairs) {
      const g = -p.weight / (1 + Math.exp(dot(w, p.d)));
      for (let k = 0; k < active.length; k++) grad[k] = grad[k]! + g * p.d[k]!;
    }
  });
}

/**
 * LambdaRank-style: the same logistic pairs, but each epoch only those whose swap would change
 * recall@10 under the current weights (one of the two inside the head's first ten, the other
 * not), each weighing 1 / the query's targets: the loss then looks where the metric does.
 */
function fitLambdaRank(qs: Query[], model: Feature[], lambda: number, epochs = 300): Weights {
  const active = model.map(index);
  const queries = qs
    .map((q) => {
      const head = q.candidates.filter((c) => c.head);
      return { x: head.map((c) => Float64Array.from(active, (j) => c.x[j]!)), target: head.map((c) => c.target), targets: q.targets };
    })
    .filter((q) => q.target.some(Boolean) && q.target.some((t) => !t));
  return descend(active, lambda, epochs, (w, grad) => {
    for (const q of queries) {
      const score = q.x.map((x) => dot(w, x));
      const order = score.map((_, i) => i).sort((a, b) => score[b]! - score[a]!);
      const inTop = new Array<boolean>(score.length).fill(false);
      for (const i of order.slice(0, 10)) inTop[i] = true;
      for (let p = 0; p < score.length; p++) {
        if (!q.target[p]) continue;
        for (let n = 0; n < score.length; n++) {
          if (q.target[n] || inTop[p] === inTop[n]) continue;
          const g = -1 / (q.targets * queries.length * (1 + Math.exp(score[p]! - score[n]!)));
          for (let k = 0; k < active.length; k++) grad[k] = grad[k]! + g * (q.x[p]![k]! - q.x[n]![k]!);
        }
      }
    }
  });
}

/**
 * Projected Adam over the `active` features from equal weights (not the hand's, so a fit owes
 * them nothing): `addGradient` adds the loss's gradient at w, the L2 penalty λ‖w‖² is added
 * here, and every step is clipped to w ≥ 0. Returns the weights over every feature.
 */
function descend(active: number[], lambda: number, epochs: number, addGradient: (w: Float64Array, grad: Float64Array) => void): Weights {
  const w = new Float64Array(active.length).fill(1);
  const grad = new Float64Array(active.length);
  const m = new Float64Array(active.length);
  const v = new Float64Array(active.length);
  const rate = 0.05;
  for (let t = 1; t <= epochs; t++) {
    grad.fill(0);
    addGradient(w, grad);
    for (let k = 0; k < active.length; k++) {
      const gk = grad[k]! + 2 * lambda * w[k]!;
      m[k] = 0.9 * m[k]! + 0.1 * gk;
      v[k] = 0.999 * v[k]! + 0.001 * gk ** 2;
      const step = (rate * (m[k]! / (1 - 0.9 ** t))) / (Math.sqrt(v[k]! / (1 - 0.999 ** t)) + 1e-8);
      w[k] = Math.max(0, w[k]! - step);
    }
  }
  const full = new Float64Array(FEATURES.length);
  active.forEach((j, k) => (full[j] = w[k]!));
  return full;
}

const LAMBDAS = [1e-4, 1e-3, 1e-2];

type PairFit = (qs: Query[], model: Feature[], lambda: number) => Weights;

/** A pairwise fit with λ picked by leave-one-set-out inside the training sets. */
function withInnerCV(fitPairs: PairFit, qs: Query[], model: Feature[]): { w: Weights; lambda: number } {
  const sets = [...new Set(qs.map((q) => q.set))];
  let best = { lambda: LAMBDAS[0]!, score: -1 };
  for (const lambda of LAMBDAS) {
    const score = mean(
      sets.map((s) =>
        recallOf(
          qs.filter((q) => q.set === s),
          fitPairs(
            qs.filter((q) => q.set !== s),
            model,
            lambda,
          ),
        ),
      ),
    );
    if (score > best.score + 1e-9) best = { lambda, score };
  }
  return { w: fitPairs(qs, model, best.lambda), lambda: best.lambda };
}

/** Coordinate ascent on mean recall@10 (+ MRR / 10), from the hand weights, the reranker's weight fixed at 1. */
function fitAscent(qs: Query[], model: Feature[], passes = 3): Weights {
  const objective = (w: Weights) =>
    mean(
      qs.map((q) => {
        const s = scoreQuery(q, w);
        return s.recall + s.rr / 10;
      }),
    );
  const w = handWeights(model);
  let best = objective(w);
  const free = model.filter((f) => f !== 'rerank').map(index);
  for (let pass = 0; pass < passes; pass++) {
    let moved = false;
    for (const j of free) {
      const now = w[j]!;
      const tries = [0, ...[0.25, 0.5, 0.75, 1.25, 1.5, 2, 3].map((k) => now * k), ...[0.1, 0.25, 0.5, 1].map((d) => now + d)].filter(
        (x) => x >= 0 && Math.abs(x - now) > 1e-9,
      );
      let kept = now;
      for (const value of tries) {
        w[j] = value;
        const got = objective(w);
        if (got > best + 1e-6) {
          best = got;
          kept = value;
          moved = true;
        }
      }
      w[j] = kept;
    }
    if (!moved) break;
  }
  return w;
}

type Fitter = (qs: Query[], model: Feature[]) => Weights;
const FITTERS: Record<string, Fitter> = {
  ranknet: (qs, model) => withInnerCV(fitRankNet, qs, model).w,
  lambdarank: (qs, model) => withInnerCV(fitLambdaRank, qs, model).w,
  ascent: (qs, model) => fitAscent(qs, model),
};

interface FoldResult {
  fold: string;
  weights: Weights;
  /** Per held-out set, per kind (and 'all'): [hand, learned] recall@10 and MRR. */
  cells: Map<string, Map<string, { hand: number; learned: number; handMrr: number; learnedMrr: number; n: number }>>;
}

function evaluate(test: Query[], hand: Weights, learned: Weights): FoldResult['cells'] {
  const cells: FoldResult['cells'] = new Map();
  for (const set of [...new Set(test.map((q) => q.set))]) {
    const kinds = new Map<string, { hand: number; learned: number; handMrr: number; learnedMrr: number; n: number }>();
    const own = test.filter((q) => q.set === set);
    for (const kind of ['all', ...QUERY_KINDS]) {
      const qs = kind === 'all' ? own : own.filter((q) => q.kind === kind);
      if (!qs.length) continue;
      const h = qs.map((q) => scoreQuery(q, hand));
      const l = qs.map((q) => scoreQuery(q, learned));
      kinds.set(kind, {
        hand: mean(h.map((s) => s.recall)),
        learned: mean(l.map((s) => s.recall)),
        handMrr: mean(h.map((s) => s.rr)),
        learnedMrr: mean(l.map((s) => s.rr)),
        n: qs.length,
      });
    }
    cells.set(set, kinds);
  }
  return cells;
}

function crossValidate(qs: Query[], groupOf: (q: Query) => string, model: Feature[], fit: Fitter): FoldResult[] {
  const hand = handWeights(model);
  return [...new Set(qs.map(groupOf))].map((fold) => {
    const weights = fit(
      qs.filter((q) => groupOf(q) !== fold),
      model,
    );
    return {
      fold,
      weights,
      cells: evaluate(
        qs.filter((q) => groupOf(q) === fold),
        hand,
        weights,
      ),
    };
  });
}

const f3 = (x: number) => x.toFixed(3);
const shortSet = (s: string) => s.replace(/^.*\//, '').replace('fixtures/ledger', 'ledger');

function weightLine(model: Feature[], w: Weights): string {
  return model.map((f) => `${f} ${w[index(f)]!.toFixed(2)}`).join(', ');
}

function formatFolds(title: string, model: Feature[], folds: FoldResult[]): string {
  const lines = [
    `### ${title}`,
    '',
    '| held-out set | kind (n) | hand R@10 | learned R@10 | hand MRR | learned MRR |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const f of folds) {
    for (const [set, kinds] of f.cells) {
      for (const [kind, c] of kinds) {
        const mark = c.learned > c.hand + 1e-9 ? ' ▲' : c.learned < c.hand - 1e-9 ? ' ▼' : '';
        lines.push(
          `| ${kind === 'all' ? shortSet(set) : ''} | ${kind} (${c.n}) | ${f3(c.hand)} | ${f3(c.learned)}${mark} | ${f3(c.handMrr)} | ${f3(c.learnedMrr)} |`,
        );
      }
    }
  }
  lines.push('', 'Weights per fold (fitted without the held-out fold):', '');
  for (const f of folds) lines.push(`- without ${shortSet(f.fold)}: ${weightLine(model, f.weights)}`);
  return lines.join('\n');
}

/** Does the learned weighting beat the hand one on every held-out set, and lower no kind? */
function verdict(folds: FoldResult[]): { everySetUp: boolean; anySetUp: boolean; kindsDown: string[] } {
  const all = folds.flatMap((f) => [...f.cells]);
  const kindsDown = all.flatMap(([set, kinds]) =>
    [...kinds]
      .filter(([k, c]) => k !== 'all' && c.learned < c.hand - 1e-9)
      .map(([k, c]) => `${shortSet(set)} ${k} ${f3(c.hand)} → ${f3(c.learned)}`),
  );
  const ups = all.map(([, kinds]) => kinds.get('all')!).map((c) => c.learned - c.hand);
  return { everySetUp: ups.every((d) => d > 1e-9), anySetUp: ups.some((d) => d > 1e-9), kindsDown };
}

const FIT_USAGE = `usage: node dist/eval/fit-weights.js FEATURES.json [--model ${Object.keys(MODELS).join('|')}]… [--fitter ${Object.keys(FITTERS).join('|')}]…`;

function parseFitArgs(argv: string[]): { file: string | undefined; models: string[]; fitters: string[] } {
  const parsed = { file: undefined as string | undefined, models: [] as string[], fitters: [] as string[] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = argv[i + 1];
    if (a === '--model' && value && value in MODELS) parsed.models.push(argv[++i]!);
    else if (a === '--fitter' && value && value in FITTERS) parsed.fitters.push(argv[++i]!);
    else if (!a.startsWith('--') && !parsed.file) parsed.file = a;
    else throw new Error(`${a}${value ? ` ${value}` : ''}: not understood\n${FIT_USAGE}`);
  }
  return parsed;
}

function main() {
  const { file, models, fitters } = parseFitArgs(process.argv.slice(2));
  if (!file) {
    process.stderr.write(`${FIT_USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  const dump = JSON.parse(readFileSync(file, 'utf8')) as FeatureDump;
  if (dump.version !== 1) throw new Error(`${file}: not a version 1 feature dump`);
  const other = dump.queries.find((q) => q.pool.reranker !== 'local-lexical-v1');
  if (other)
    throw new Error(`${file}: ${other.set} ${other.id} was reranked by ${other.pool.reranker}; the features are the local reranker's`);
  const qs = dump.queries.map(toQuery);
  const out: string[] = [];

  // The simulation must reproduce the brief before any weighting is compared with it.
  const hand = handWeights(MODELS.full!);
  let worst = 0;
  let sameTop = 0;
  for (const q of qs) {
    const rel = relevanceOf(q, hand);
    for (const c of q.candidates) worst = Math.max(worst, Math.abs(rel.get(c.id)! - c.relevance));
    if (Math.abs(scoreQuery(q, hand).recall - q.briefRecall) < 1e-9) sameTop++;
  }
  out.push(
    `Reproduction of the brief with the hand weights: largest relevance difference ${worst.toExponential(1)}; recall@10 equal to the brief's on ${sameTop} of ${qs.length} queries.`,
    '',
  );
  const sets = [...new Set(qs.map((q) => q.set))];
  out.push(
    '| set | queries | brief R@10 (eval) | hand R@10 (pool, simulated) | ceiling R@10 (head targets first) | targets in the pool | in the reranked head |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const s of sets) {
    const own = qs.filter((q) => q.set === s);
    const targets = own.reduce((n, q) => n + q.targets, 0);
    const inPool = own.reduce((n, q) => n + q.candidates.filter((c) => c.target).length, 0);
    const inHead = own.reduce((n, q) => n + q.candidates.filter((c) => c.target && c.head).length, 0);
    // What any weighting of the head could reach: its targets all in the first ten.
    const ceiling = mean(own.map((q) => (q.targets ? Math.min(10, q.candidates.filter((c) => c.target && c.head).length) / q.targets : 0)));
    out.push(
      `| ${shortSet(s)} | ${own.length} | ${f3(mean(own.map((q) => q.briefRecall)))} | ${f3(recallOf(own, hand))} | ${f3(ceiling)} | ${inPool} / ${targets} | ${inHead} / ${targets} |`,
    );
  }
  out.push('');

  const summary: string[] = [
    '| model | fitter | CV | held-out R@10 per set (hand → learned) | every set up | kinds down |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const [name, model] of Object.entries(MODELS).filter(([n]) => !models.length || models.includes(n))) {
    for (const [fitterName, fit] of Object.entries(FITTERS).filter(([n]) => !fitters.length || fitters.includes(n))) {
      for (const [cv, groupOf] of [
        ['leave one set out', (q: Query) => q.set],
        ['leave one corpus out', (q: Query) => q.corpus],
      ] as const) {
        const folds = crossValidate(qs, groupOf, model, fit);
        out.push(formatFolds(`${name} (${model.length} features), ${fitterName}, ${cv}`, model, folds), '');
        const v = verdict(folds);
        const perSet = folds
          .flatMap((f) => [...f.cells].map(([s, k]) => `${shortSet(s)} ${f3(k.get('all')!.hand)} → ${f3(k.get('all')!.learned)}`))
          .join('; ');
        summary.push(
          `| ${name} | ${fitterName} | ${cv} | ${perSet} | ${v.everySetUp ? 'yes' : 'no'} | ${v.kindsDown.length ? v.kindsDown.join('; ') : '—'} |`,
        );
      }
      const all = fit(qs, model);
      const active = model.map(index);
      const pairs = pairsOf(qs, active);
      const loss = (w: Weights) =>
        f3(
          pairLoss(
            pairs,
            Float64Array.from(active, (j) => w[j]!),
            0,
          ),
        );
      out.push(
        `${name}, ${fitterName}, fitted on all ${qs.length} queries: ${weightLine(model, all)} (in-sample R@10 ${sets
          .map(
            (s) =>
              `${shortSet(s)} ${f3(
                recallOf(
                  qs.filter((q) => q.set === s),
                  all,
                ),
              )}`,
          )
          .join(', ')}; pairwise loss ${loss(handWeights(model))} by hand, ${loss(all)} fitted)`,
        '',
      );
    }
  }
  process.stdout.write(`${out.join('\n')}\n## Summary (held-out folds)\n\n${summary.join('\n')}\n`);
}

// A bad argument or file is a message and exit code 2, not a stack trace.
try {
  main();
} catch (err) {
  process.stderr.write(`fit-weights: ${(err as Error).message}\n`);
  process.exitCode = 2;
}
