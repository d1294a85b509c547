// An exact touch is strong evidence (docs/brief.md, "Touches"): a section naming the very file being edited must
// reach the brief even when the ask is too vague for the lexical lists and the reranker to agree.
// The best few records touching a path exactly are lifted to a relevance floor near the top; the
// cap keeps a file every doc names (a config file) from filling the brief by itself. A touch
// only among a record's links, where stronger evidence exists or the ask has several concerns,
// is not exact: its score is under 1 (LINKS_ONLY_SHARE, src/retrieval/retrievers.ts).
// Measured (docs/eval.md): floor 0.85 lifts Cortex set B path recall@10 0.917 → 0.958 and moves
// no other kind of any set; 0.7 gives the same recall with a lower MRR; 0.95 reads as 0.85; 1
// trades path MRR between sets (CometBFT B 0.86 → 0.92, Ledgerly 0.97 → 0.93); a cap of 2, 4 or
// 8 reads the same.
import type { SeedList } from '../retrieval/retrievers.js';

export const EXACT_TOUCH_RELEVANCE = 0.85;
export const EXACT_TOUCH_MAX = 4;

/** Lifts, in place, the relevance of the best `EXACT_TOUCH_MAX` exact touches to the floor. */
export function liftExactTouches(relevance: Map<string, number>, touches: SeedList | undefined): void {
  if (!touches || EXACT_TOUCH_RELEVANCE <= 0) return;
  const exact = touches.ids.filter((id, i) => touches.scores[i]! >= 1 && relevance.has(id));
  const best = exact.sort((a, b) => relevance.get(b)! - relevance.get(a)!).slice(0, EXACT_TOUCH_MAX);
  for (const id of best) relevance.set(id, Math.max(relevance.get(id)!, EXACT_TOUCH_RELEVANCE));
}
