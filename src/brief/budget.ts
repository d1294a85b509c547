// Fitting the brief to the token budget (docs/brief.md, step 6), by relevance, not by tier: the
// standing orders go first as one line each, then items in order of relevance are sent in full
// (up to 1,200 characters, 800 after the first five) while the expanded share lasts, then as one
// line while the rest lasts; what fits in neither is held back. Tiers only order what was sent.
// A proposal (the `proposed` group) is sent as one line at most: the full-text share is for
// approved knowledge.
import { bestPassage, PASSAGE_SCAN_CHARS } from './passage.js';
import type { Group, Item, TierName } from './types.js';

/**
 * The share of the budget items sent in full may use; the rest is for one-line items. The
 * design began at 60%. Recall@10 does not move with it (the one-line items it gives up are the least
 * relevant sent), and every step up sends more targets in full on the eval's five sets
 * (docs/eval.md, session 7: 75% / 80% / 85% / 90% read 0.733 / 0.737 / 0.750 / 0.761 on CometBFT
 * A; session 3 found 60% below 75% on all three corpora). 85% still leaves about ten one-line
 * items in a 4,000-token brief, pointers to the next records; 90% left six.
 */
export const EXPANDED_SHARE = 0.85;
export const EXPANDED_CHARS = 1200;
/**
 * Items sent in full at EXPANDED_CHARS; those after them get LATER_EXPANDED_CHARS. The agent
 * reads the most relevant items at length and more of the next ones than a line: on the eval's
 * real docs (sections of 2–5k characters) 13–14 items are sent in full instead of 10–11.
 */
export const FULL_LENGTH_ITEMS = 5;
export const LATER_EXPANDED_CHARS = 800;
export const ONE_LINE_CHARS = 160;

/** A rough, tokenizer-free token count: about four characters a token in English prose. */
export const estimateTokens = (text: string) => Math.ceil(text.length / 4);

/** Whether a UTF-16 unit is whitespace as `\s` and trim() read it (WhiteSpace and LineTerminator). */
function isSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/**
 * `text.replace(/\s+/g, ' ').trim()`, or, once more than `limit` characters are out, a prefix of
 * it longer than `limit`: a cut reads no further. One pass that copies only around the
 * whitespace it changes, where the regex rebuilt every text in full.
 */
export function flattenWhitespace(text: string, limit = Infinity): string {
  const n = text.length;
  let i = 0;
  while (i < n && isSpace(text.charCodeAt(i))) i++;
  let out = '';
  let from = i;
  while (i < n) {
    const c = text.charCodeAt(i);
    if ((c > 32 && c < 128) || !isSpace(c)) {
      i++;
      continue;
    }
    if (out.length + (i - from) > limit) return out + text.slice(from, i);
    let end = i + 1;
    while (end < n && isSpace(text.charCodeAt(end))) end++;
    if (end === n) return out + text.slice(from, i);
    if (c !== 32 || end > i + 1) {
      out += `${text.slice(from, i)} `;
      from = end;
    }
    i = end;
  }
  return out + text.slice(from);
}

function clip(text: string, max: number): string {
  const flat = flattenWhitespace(text, max);
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), max * 0.6))}…`;
}

/** The per-item overhead of rendering: id, tier heading share, the because line. */
const itemOverhead = (item: { id: string; because: string; title: string }) =>
  estimateTokens(`${item.id} ${item.title}\n  because: ${item.because}\n`);

export type Candidate = Omit<Item, 'text' | 'expanded'> & { fullText: string; tier: Group; standing: boolean };

export interface BudgetResult {
  tiers: Record<TierName, Item[]>;
  proposed: Item[];
  heldBack: number;
  sentTokens: number;
}

/**
 * `candidates` arrive best first (standing orders wherever their relevance put them). `askTerms`
 * (the ask's BM25 terms) choose which passage of a long item is sent in full.
 */
export function fitToBudget(candidates: Candidate[], budget: number, askTerms: ReadonlySet<string> = new Set()): BudgetResult {
  let expandedLeft = Math.floor(budget * EXPANDED_SHARE);
  let lineLeft = budget - expandedLeft;
  const sent: { item: Item; tier: Group; rank: number }[] = [];
  let heldBack = 0;
  let spent = 0;
  let expandedCount = 0;
  const spend = (c: Candidate, rank: number, expanded: boolean): boolean => {
    const { fullText, tier, standing: _s, ...item } = c;
    const max = !expanded ? ONE_LINE_CHARS : expandedCount < FULL_LENGTH_ITEMS ? EXPANDED_CHARS : LATER_EXPANDED_CHARS;
    let text = clip(fullText, max);
    let cost = itemOverhead(item) + estimateTokens(text);
    // A one-line item may use what the expanded share left over; an expanded one never eats the lines'.
    if (expanded ? cost > expandedLeft : cost > lineLeft + expandedLeft) return false;
    // What fits is decided on the opening; a long item sent in full then sends, instead, the
    // passage holding most of the ask's terms (passage.ts) when that fits too. Only items that
    // are sent in full are read for one.
    if (expanded && askTerms.size && fullText.length > max) {
      const passage = bestPassage(flattenWhitespace(fullText, PASSAGE_SCAN_CHARS), askTerms, max);
      const passageCost = passage === undefined ? Infinity : itemOverhead(item) + estimateTokens(passage);
      if (passageCost <= expandedLeft) {
        text = passage!;
        cost = passageCost;
      }
    }
    if (expanded) {
      expandedLeft -= cost;
      expandedCount++;
    } else if (cost <= lineLeft) lineLeft -= cost;
    else {
      expandedLeft -= cost - lineLeft;
      lineLeft = 0;
    }
    spent += cost;
    sent.push({ item: { ...item, text, expanded }, tier, rank });
    return true;
  };
  // Standing orders first, compactly: they are carried whatever the ask.
  const standing = candidates.filter((c) => c.standing);
  const rest = candidates.filter((c) => !c.standing);
  standing.forEach((c, i) => spend(c, i, false) || heldBack++);
  rest.forEach(
    (c, i) => (c.tier !== 'proposed' && spend(c, standing.length + i, true)) || spend(c, standing.length + i, false) || heldBack++,
  );
  const groups = { must_obey: [], already_decided: [], in_motion: [], background: [], proposed: [] } as Record<Group, Item[]>;
  for (const s of sent.sort((a, b) => b.item.score - a.item.score || a.rank - b.rank)) groups[s.tier].push(s.item);
  const { proposed, ...tiers } = groups;
  return { tiers, proposed, heldBack, sentTokens: spent };
}
