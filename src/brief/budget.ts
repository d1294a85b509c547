// Fitting the brief to the token budget (DESIGN §4 step 6): 60% of it for expanded items (up to
// 1,200 characters each), the rest for one-line items; what fits in neither is held back.
import type { Item, TierName } from './types.js';
import { TIER_ORDER } from './types.js';

export const EXPANDED_SHARE = 0.6;
export const EXPANDED_CHARS = 1200;
export const ONE_LINE_CHARS = 160;

/** A rough, tokenizer-free token count: about four characters a token in English prose. */
export const estimateTokens = (text: string) => Math.ceil(text.length / 4);

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), max * 0.6))}…`;
}

/** The per-item overhead of rendering: id, tier heading share, the because line. */
const itemOverhead = (item: { id: string; because: string; title: string }) => estimateTokens(`${item.id} ${item.title}\n  because: ${item.because}\n`);

export interface BudgetResult {
  tiers: Record<TierName, Item[]>;
  heldBack: number;
  sentTokens: number;
}

/** Items arrive ranked within each tier; tiers are spent in order, best items expanded first. */
export function fitToBudget(ranked: Record<TierName, (Omit<Item, 'text' | 'expanded'> & { fullText: string })[]>, budget: number): BudgetResult {
  let expandedLeft = Math.floor(budget * EXPANDED_SHARE);
  let lineLeft = budget - expandedLeft;
  const tiers = { must_obey: [], already_decided: [], in_motion: [], background: [] } as Record<TierName, Item[]>;
  let heldBack = 0;
  let sent = 0;
  for (const tier of TIER_ORDER) {
    for (const { fullText, ...item } of ranked[tier]) {
      const expanded = clip(fullText, EXPANDED_CHARS);
      const expandedCost = itemOverhead(item) + estimateTokens(expanded);
      if (expandedCost <= expandedLeft) {
        expandedLeft -= expandedCost;
        sent += expandedCost;
        tiers[tier].push({ ...item, text: expanded, expanded: true });
        continue;
      }
      const line = clip(fullText, ONE_LINE_CHARS);
      const lineCost = itemOverhead(item) + estimateTokens(line);
      if (lineCost <= lineLeft) {
        lineLeft -= lineCost;
        sent += lineCost;
        tiers[tier].push({ ...item, text: line, expanded: false });
        continue;
      }
      heldBack++;
    }
  }
  return { tiers, heldBack, sentTokens: sent };
}
