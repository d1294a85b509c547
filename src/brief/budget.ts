// Fitting the brief to the token budget (docs/brief.md, step 6), by relevance, not by tier: the
// standing orders go first as one line each, then items in order of relevance are sent in full
// (a passage whose length follows the budget) while the expanded share lasts, then as one line
// while the rest lasts; what fits in neither is held back. The budget is a ceiling, not a target:
// at most MAX_FULL_ITEMS are sent in full and MAX_LINE_ITEMS as one line, however much is left.
// Tiers only order what was sent. A proposal (the `proposed` group) is sent as one line at most:
// the full-text share is for approved knowledge.
import { excerpt, hasShape, plainCut, sliceInPlace, tableBodyAt, withoutTitleLine } from '../text/readable/excerpt.js';
import { tokenize } from '../text/tokenize.js';
import { bestPassage, PASSAGE_SCAN_CHARS, REPEAT_WEIGHT, type Passage } from './passage.js';
import { flattenWhitespace, originalIndex } from '../text/readable/whitespace.js';
import { CANDIDATE_TEXT_CHARS } from '../retrieval/candidates.js';
import type { Group, Item, TierName } from './types.js';

/**
 * The share of the budget items sent in full may use; the rest is for one-line items. The
 * design began at 60%. Recall@10 does not move with it (the one-line items it gives up are the least
 * relevant sent), and every step up sends more targets in full on the eval's five sets
 * (docs/eval.md, session 7: 75% / 80% / 85% / 90% read 0.733 / 0.737 / 0.750 / 0.761 on CometBFT
 * A; session 3 found 60% below 75% on all three corpora).
 */
export const EXPANDED_SHARE = 0.85;
/**
 * The first FULL_LENGTH_ITEMS items sent in full get `fullChars(budget)`, the next ones
 * `laterChars(budget)`: long sections send the passage that holds the ask's words (passage.ts).
 * The length follows the budget so that a small brief sends many relevant passages instead of a
 * few whole sections (docs/eval.md, "A brief that stops"): at the hooks' 1,500 tokens 450 and 350
 * characters send about 10 items in full where 1,200 and 800 sent 4–5, and the share of targets
 * sent in full rose on every set (CometBFT A 0.50 → 0.73); at 4,000, 600 and 360.
 */
export const FULL_LENGTH_ITEMS = 3;
export const fullChars = (budget: number) => clamp(Math.round(budget * 0.15), 450, 1200);
export const laterChars = (budget: number) => clamp(Math.round(budget * 0.09), 350, 800);
export const ONE_LINE_CHARS = 160;
/**
 * Where the brief stops: it sends at most this many items in full and this many as one line
 * (standing orders aside, which are always sent), and holds back the rest however much budget is
 * left. Relevance is too flat to stop on (docs/eval.md: a relative floor that lost no target
 * saved 1–4% of the tokens); rank is what separates: on the eval's real docs 96% of the targets a
 * 4,000-token brief sent in full ranked in its first 13, and with these caps it sends about 2,400
 * tokens instead of 3,900 with more targets in full on every real-docs set.
 */
export const MAX_FULL_ITEMS = 18;
export const MAX_LINE_ITEMS = 4;

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

/** A rough, tokenizer-free token count: about four characters a token in English prose. */
export const estimateTokens = (text: string) => Math.ceil(text.length / 4);
/** The characters `tokens` tokens hold, as estimateTokens counts them. */
const charsWithin = (tokens: number) => tokens * 4;

/** The per-item overhead of rendering: id, tier heading share, the because line. */
const itemOverhead = (item: { id: string; because: string; title: string }) =>
  estimateTokens(`${item.id} ${item.title}\n  because: ${item.because}\n`);

export type Candidate = Omit<Item, 'text' | 'expanded'> & {
  fullText: string;
  tier: Group;
  standing: boolean;
  /** Where the item names what it is there for (an identifier of the code being written, a touched path): a passage sent holds it. */
  anchor?: RegExp;
};

export interface BudgetResult {
  tiers: Record<TierName, Item[]>;
  proposed: Item[];
  heldBack: number;
  sentTokens: number;
}

/**
 * The shaped text (excerpt.ts) in at most `room` characters, the plain cut's length. Code keeps
 * its lines and indentation, where the plain cut collapsed them to single spaces: when the shaped
 * text comes out longer, it is cut again shorter (a few code lines fewer) rather than sent
 * flattened: the longest shaped text within `room`, found by halving, since it grows with the
 * cut but by whole lines of code (cutting by the overflow alone kept the same lines: seen on
 * a section whose command line was 150 characters). When that keeps under half the room, the
 * text with its code and tables elided ("… hashes: [code]"), never a flattened block.
 */
function shapedWithin(fullText: string, max: number, expanded: boolean, room: number): string {
  const shaped = excerpt(fullText, max, expanded);
  if (shaped.length <= room) return shaped;
  let best = '';
  for (let lo = 1, hi = max - 1; lo <= hi;) {
    const cut = (lo + hi) >> 1;
    const s = excerpt(fullText, cut, expanded);
    if (s.length <= room) [best, lo] = [s, cut + 1];
    else hi = cut - 1;
  }
  return best.length * 2 >= room ? best : excerpt(fullText, room, false);
}

/**
 * A passage starting among a table's rows starts at the row (up to the passage's end) naming the
 * most of the ask's terms (a repeat counting a little), the first of them on a tie, and runs on
 * to the table's end; the table's header rows are sent before it all the same (sliceInPlace). A
 * passage is chosen on sentences, and a table has none: the rows the room kept were the ones
 * before the row the ask is about (an endpoint table sent down to "… table cut" above the
 * endpoint asked for). Else as chosen.
 */
function fromTheRowNamingTheAsk(
  text: string,
  chosen: { from: number; to: number },
  askTerms: ReadonlySet<string>,
): { from: number; to: number } {
  const table = askTerms.size ? tableBodyAt(text, chosen.from) : undefined;
  if (!table) return chosen;
  let best = { at: chosen.from, terms: 0 };
  for (let at = text.lastIndexOf('\n', chosen.from - 1) + 1; at < Math.min(chosen.to, table.end);) {
    const newline = text.indexOf('\n', at);
    const end = newline < 0 ? text.length : newline;
    // Scored as passage.ts scores a window: each ask term once, a repeat a little more.
    const hits = tokenize(text.slice(at, end)).filter((t) => askTerms.has(t));
    const distinct = new Set(hits).size;
    const terms = distinct + REPEAT_WEIGHT * (hits.length - distinct);
    if (terms > best.terms) best = { at, terms };
    at = end + 1;
  }
  return best.at > chosen.from ? { from: best.at, to: Math.max(chosen.to, table.end) } : chosen;
}

/**
 * A passage (chosen on the flattened text) cut from the text as written, so that code in it keeps
 * its lines and a table its rows, as the opening does, in no more characters than the flattened
 * passage reserved (shapedWithin). Where it begins or ends with code or a table,
 * its "…" mark is on a line of its own: a fence must start its line.
 */
function shapedPassage(fullText: string, passage: Passage, ceiling: number, askTerms: ReadonlySet<string>, anchor?: RegExp): string {
  const chosen = { from: originalIndex(fullText, passage.from), to: originalIndex(fullText, passage.to) };
  const moved = fromTheRowNamingTheAsk(fullText, chosen, askTerms);
  const asMoved = shapedSlice(fullText, moved, passage, ceiling);
  // A row too wide to keep beside the header rows: the rows as chosen, which may fit.
  const shaped = moved === chosen || saysSomething(asMoved) ? asMoved : shapedSlice(fullText, chosen, passage, ceiling);
  // Code keeps its lines, so the shaped text holds fewer characters of it than the flattened
  // passage did and may end before the anchor's line: it then starts at that line instead.
  const at = anchor && !anchor.test(shaped) ? fullText.search(anchor) : -1;
  if (at < 0 || at >= chosen.to) return shaped;
  const fromAnchorLine = shapedSlice(fullText, { from: fullText.lastIndexOf('\n', at - 1) + 1, to: chosen.to }, passage, ceiling);
  return anchor!.test(fromAnchorLine) && saysSomething(fromAnchorLine) ? fromAnchorLine : shaped;
}

/** The text from `from` to `to` as written (see shapedPassage), in at most `ceiling` characters. */
function shapedSlice(fullText: string, { from, to }: { from: number; to: number }, passage: Passage, ceiling: number): string {
  const { toEnd } = passage;
  const source = sliceInPlace(fullText, from, to);
  if (!hasShape(source)) return passage.text;
  const startsShaped = /^[ \t]*(?:`{3}|~{3})|^[ \t]{0,3}[|#]/.test(source);
  // A passage starting mid-line is prose there, whatever its first characters: out of place they could read as a fence.
  if (startsShaped && source === fullText.slice(from, from + source.length) && !/(?:^|\n)[ \t]*$/.test(fullText.slice(0, from)))
    return passage.text;
  const lead = startsShaped ? '…\n' : '…';
  // All the room the tokens reserved for it hold (`ceiling` characters): with the flattened
  // passage's characters alone, its "…" on a line of its own before a heading cost the last
  // sentence, and the text was cut inside the sentence before it ("…to gossip and to…").
  const within = (room: number) => {
    const shaped = shapedWithin(source, room, true, room);
    if (toEnd || /…$|… (?:code|table) cut$/.test(shaped)) return `${lead}${shaped}`;
    // The closing mark needs a line of its own after a closing fence or a table row.
    return `${lead}${shaped}${/(?:^|\n)[ \t]{0,3}(?:`{3}|~{3}|\|)[^\n]*$/.test(shaped) ? '\n…' : '…'}`;
  };
  const room = ceiling - lead.length - (toEnd ? 0 : 1);
  const text = within(room);
  return text.length <= ceiling ? text : within(room - 1);
}

/** Where `anchor` first matches `flat`, if it does. */
const anchorIn = (flat: string, anchor: RegExp | undefined): number | undefined => {
  const at = anchor ? flat.search(anchor) : -1;
  return at >= 0 ? at : undefined;
};

/** Whether a text sent holds any word, "[code]" and "[table]" aside. */
const saysSomething = (text: string) => /[\p{L}\p{N}]/u.test(text.replace(/\[(?:code|table)\]/g, ''));

/**
 * The passage of `text` holding the most of `askTerms` (passage.ts), on one line, or undefined
 * when the opening holds as many or the passage holds code or a table (which a one-line item
 * names as "[code]" or "[table]" from its opening instead). A passage cut inside a word ends at
 * the word before. `textEnds`: whether the record's text ends where `text` does.
 */
function linePassage(text: string, askTerms: ReadonlySet<string>, max: number, textEnds: boolean, anchor?: RegExp): string | undefined {
  const flat = flattenWhitespace(text, PASSAGE_SCAN_CHARS);
  const passage = bestPassage(flat, askTerms, max, textEnds && flat.length <= PASSAGE_SCAN_CHARS, anchorIn(flat, anchor));
  if (!passage || hasShape(sliceInPlace(text, originalIndex(text, passage.from), originalIndex(text, passage.to)))) return undefined;
  if (passage.toEnd || !/[\p{L}\p{N}]$/u.test(passage.text.slice(0, -1)) || !/^[\p{L}\p{N}]/u.test(flat.slice(passage.to)))
    return passage.text;
  const body = passage.text.slice(1, -1);
  const space = body.lastIndexOf(' ');
  return space > 0 ? `…${body.slice(0, space)}…` : passage.text;
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
  let lineCount = 0;
  const full = fullChars(budget);
  const later = laterChars(budget);
  const spend = (c: Candidate, rank: number, expanded: boolean): boolean => {
    const { fullText, tier, standing, anchor, ...item } = c;
    if (expanded ? expandedCount >= MAX_FULL_ITEMS : !standing && lineCount >= MAX_LINE_ITEMS) return false;
    const max = !expanded ? ONE_LINE_CHARS : expandedCount < FULL_LENGTH_ITEMS ? full : later;
    // What fits is decided on the plain cut; the shaped text goes out when it is no longer (excerpt.ts).
    const opening = withoutTitleLine(fullText, item.title);
    const plain = plainCut(opening, max);
    let cost = itemOverhead(item) + estimateTokens(plain);
    // A one-line item may use what the expanded share left over; an expanded one never eats the lines'.
    if (expanded ? cost > expandedLeft : cost > lineLeft + expandedLeft) return false;
    // Shaped only once it is sure to be sent: most candidates a brief weighs are not.
    let text = shapedWithin(opening, max, expanded, charsWithin(estimateTokens(plain)));
    // A one-line item shows the stretch of its text that holds the ask's words, when its opening
    // holds fewer of them: else the line that says why it is there may show none of what matched.
    // Never longer than the opening's cut, so what the budget decided stands. A standing order
    // keeps its opening: it is there whatever the ask.
    if (!expanded && !standing && (askTerms.size || anchor) && opening.length > max) {
      const line = linePassage(opening, askTerms, max, fullText.length < CANDIDATE_TEXT_CHARS, anchor);
      if (line && estimateTokens(line) <= estimateTokens(plain)) text = line;
    }
    // What fits is decided on the opening; a long item sent in full then sends, instead, the
    // passage holding most of the ask's terms (passage.ts) when that fits too. Only items that
    // are sent in full are read for one.
    if (expanded && (askTerms.size || anchor) && fullText.length > max) {
      const flat = flattenWhitespace(fullText, PASSAGE_SCAN_CHARS);
      // The text loaded may be the record's first CANDIDATE_TEXT_CHARS only, or `flat` a prefix of it.
      const ends = fullText.length < CANDIDATE_TEXT_CHARS && flat.length <= PASSAGE_SCAN_CHARS;
      const passage = bestPassage(flat, askTerms, max, ends, anchorIn(flat, anchor));
      // A character more than the flattened passage: its "…" may need a line of its own.
      const reserved = passage === undefined ? Infinity : estimateTokens(`${passage.text}\n`);
      const passageCost = itemOverhead(item) + reserved;
      const shaped = passageCost <= expandedLeft ? shapedPassage(fullText, passage!, charsWithin(reserved), askTerms, anchor) : undefined;
      // A passage that is all one table or block too wide to keep a row of is sent as "…\n[table]":
      // nothing to read. The opening goes instead.
      if (shaped !== undefined && saysSomething(shaped)) {
        text = shaped;
        cost = passageCost;
      }
    }
    if (expanded) {
      expandedLeft -= cost;
      expandedCount++;
    } else {
      if (!standing) lineCount++;
      if (cost <= lineLeft) lineLeft -= cost;
      else {
        expandedLeft -= cost - lineLeft;
        lineLeft = 0;
      }
    }
    // What the agent receives (the shaped text may be shorter than what was reserved for it).
    spent += itemOverhead(item) + estimateTokens(text);
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
