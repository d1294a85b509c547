// Every concern of a multi-part ask gets places at the top (docs/brief.md, "Multi-part asks"): relevance to the whole ask
// favours what answers the concern most of its words are about, so the docs for a short trailing
// clause ("…, and document it") can sit at #12 behind a fourth section on the first concern.
// Where the first `slots` by relevance hold fewer than two candidates close to a clause's own
// best (relevance to that clause alone), its best missing ones are lifted in, just below the last
// candidate kept there on its own merit. The budget and the floor read the same relevance, so a
// lifted item is also among those sent in full. A clause already covered lifts nothing.
import { RELEVANCE_FLOOR } from './tiers.js';

/** The first places an agent reads (the eval's recall@10). */
export const COVER_SLOTS = 10;
/** How many candidates covering each clause the first slots should hold. */
export const COVER_PER_CLAUSE = 2;

/**
 * A candidate at least this relevant to a clause (its best is 1) covers it. Measured
 * (docs/eval.md): 0.8–0.9 lift the same targets on Cortex A, 0.9 one more on Ledgerly, 0.95
 * costs a target on Ledgerly and CometBFT A; only the best (1) gains less.
 */
export const COVER_LEVEL = 0.85;

/**
 * Lifts, in place, candidates into the first `slots` of `relevance` until each clause is covered
 * there by `perClause` candidates at `level` or above of that clause's own relevance
 * (`byClause`), taking each clause's best missing ones. Only candidates relevant to the whole
 * ask (at the floor or above) are lifted; at most half the slots are given this way, the rest
 * keep the order the whole ask gave.
 */
export function coverClauses(
  relevance: Map<string, number>,
  byClause: Map<string, number>[],
  slots = COVER_SLOTS,
  perClause = COVER_PER_CLAUSE,
  level = COVER_LEVEL,
): void {
  if (byClause.length < 2 || slots < 2 || perClause < 1) return;
  const order = [...relevance.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([id]) => id);
  const maxPicks = Math.floor(slots / 2);
  const picks: string[] = [];
  const top = () => new Set([...order.filter((id) => !picks.includes(id)).slice(0, slots - picks.length), ...picks]);
  for (const clause of byClause) {
    const shown = top();
    const covers = (id: string) => (clause.get(id) ?? 0) >= level - 1e-9;
    let needed = perClause - [...shown].filter(covers).length;
    const missing = [...clause.entries()]
      .filter(([id]) => !shown.has(id) && covers(id) && (relevance.get(id) ?? 0) >= RELEVANCE_FLOOR)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    for (const [id] of missing) {
      if (needed-- <= 0 || picks.length >= maxPicks) break;
      picks.push(id);
    }
  }
  if (!picks.length) return;
  const others = order.filter((id) => !picks.includes(id));
  const free = slots - picks.length;
  const bar = relevance.get(others[free - 1] ?? '') ?? 1;
  const next = relevance.get(others[free] ?? '') ?? 0;
  // The picks go between the last candidate kept on its own merit and the first one they displace, in their own order.
  const lifted = picks.filter((id) => relevance.get(id)! <= next).sort((a, b) => relevance.get(b)! - relevance.get(a)!);
  lifted.forEach((id, i) => relevance.set(id, bar - ((bar - next) * (i + 1)) / (lifted.length + 1)));
}
