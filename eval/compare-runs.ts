// Two runs of `npm run eval -- --json` side by side, per query set and kind, and whether the
// variant meets the keep rule every retrieval change here is held to (docs/eval.md): it raises
// the all-queries recall@10 or sent in full on at least one set, and lowers no kind's recall@10
// on any set. Sets are matched by their label (`corpus`, `… (set B)`), so runs with different
// sets compare on the ones they share. eval/compare.ts is its command line.
import { QUERY_KINDS } from './systems.js';

const KINDS = ['all', ...QUERY_KINDS] as const;
type Kind = (typeof KINDS)[number];

/** What compare reads of one set in an eval run's JSON. */
export interface RunSet {
  corpus: string;
  kinds: Partial<Record<Kind, Record<string, { recall_at_10: number; mrr: number; sent_in_full: number }>>>;
}

export interface Cell {
  set: string;
  kind: Kind;
  base: { recall: number; mrr: number; sent: number };
  variant: { recall: number; mrr: number; sent: number };
}

export interface Comparison {
  cells: Cell[];
  /** Sets only one run holds (not compared). */
  unmatched: string[];
  /** Cells whose all-queries recall@10 or sent in full rose. */
  gains: Cell[];
  /** Per-kind cells whose recall@10 fell ('all' is their mean, so it can only fall with one of them). */
  losses: Cell[];
  met: boolean;
}

// The JSON rounds to three decimals; anything smaller is the same figure.
const EPS = 1e-6;

export function compareRuns(base: RunSet[], variant: RunSet[], system = 'brief'): Comparison {
  const other = new Map(variant.map((s) => [s.corpus, s]));
  const cells: Cell[] = [];
  for (const b of base) {
    const v = other.get(b.corpus);
    if (!v) continue;
    for (const kind of KINDS) {
      const mb = b.kinds[kind]?.[system];
      const mv = v.kinds[kind]?.[system];
      if (!mb || !mv) continue;
      cells.push({
        set: b.corpus,
        kind,
        base: { recall: mb.recall_at_10, mrr: mb.mrr, sent: mb.sent_in_full ?? 0 },
        variant: { recall: mv.recall_at_10, mrr: mv.mrr, sent: mv.sent_in_full ?? 0 },
      });
    }
  }
  const shared = new Set(cells.map((c) => c.set));
  const unmatched = [...base, ...variant].map((s) => s.corpus).filter((name) => !shared.has(name));
  const gains = cells.filter((c) => c.kind === 'all' && (c.variant.recall > c.base.recall + EPS || c.variant.sent > c.base.sent + EPS));
  const losses = cells.filter((c) => c.kind !== 'all' && c.variant.recall < c.base.recall - EPS);
  return { cells, unmatched: [...new Set(unmatched)], gains, losses, met: gains.length > 0 && losses.length === 0 };
}

const f = (x: number) => x.toFixed(3);
const triple = (m: Cell['base']) => `${f(m.recall)} / ${f(m.mrr)} / ${f(m.sent)}`;

export function formatComparison(c: Comparison, system = 'brief'): string {
  const lines = [`${system}: recall@10 / MRR / sent in full, base → variant (* recall@10 moved, + another figure moved)`];
  let set = '';
  for (const cell of c.cells) {
    if (cell.set !== set) lines.push((set = cell.set));
    const moved =
      Math.abs(cell.variant.recall - cell.base.recall) > EPS
        ? '*'
        : Math.abs(cell.variant.mrr - cell.base.mrr) > EPS || Math.abs(cell.variant.sent - cell.base.sent) > EPS
          ? '+'
          : ' ';
    lines.push(`  ${moved} ${cell.kind.padEnd(10)} ${triple(cell.base)}  →  ${triple(cell.variant)}`);
  }
  if (c.unmatched.length) lines.push(`not compared (in one run only): ${c.unmatched.join(', ')}`);
  const describe = (cell: Cell, what: 'recall' | 'sent') =>
    `${cell.set} ${cell.kind} ${what === 'recall' ? 'recall@10' : 'sent in full'} ${f(cell.base[what])} → ${f(cell.variant[what])}`;
  const gains = c.gains.map((cell) => describe(cell, cell.variant.recall > cell.base.recall + EPS ? 'recall' : 'sent'));
  if (c.met) lines.push(`keep rule: met (${gains.join('; ')})`);
  else if (c.losses.length) lines.push(`keep rule: not met, lowered ${c.losses.map((cell) => describe(cell, 'recall')).join('; ')}`);
  else lines.push("keep rule: not met, nothing rose (no set's all-queries recall@10 or sent in full)");
  return lines.join('\n');
}
