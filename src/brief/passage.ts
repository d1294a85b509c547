// Which part of a long item the brief sends in full: the run of sentences, at most `max`
// characters, that holds the most of the ask's terms, not merely the first `max` characters. A
// long ADR section often states its context first and what the ask is about further down; the
// agent reads what is sent, and the item's pointer leads to the rest.
import { NOT_A_SENTENCE_STOP } from '../text/readable/sentence-stops.js';
import { tokenize } from '../text/tokenize.js';

/** Pieces a window is built of: sentences, and a sentence longer than this cut at spaces. */
const UNIT_CHARS = 240;
/**
 * How far into a text a passage is looked for: the reranker judged the item on its first 2,000
 * characters, and this bounds the cost (about 0.1 ms an item at 4,000 characters).
 */
export const PASSAGE_SCAN_CHARS = 4000;
/** A passage ends at its last whole sentence when that keeps at least this share of it. */
const SENTENCE_END_FROM = 0.6;
/** A covered ask term counts once; each further occurrence adds this much, so coverage leads. */
export const REPEAT_WEIGHT = 0.1;
/** What holding the anchor adds to a window's score: more than any count of the ask's terms. */
const ANCHOR_WEIGHT = 1000;
/** The anchor's piece counts as naming the ask (no token is empty). */
const ANCHOR = '';

/** `text` (its whitespace already flattened) in sentence-sized pieces, each with its offset. */
export type Piece = { from: number; to: number; cut?: true };

export function units(text: string): Piece[] {
  const out: Piece[] = [];
  // Not after an abbreviation or a list's number (sentence-stops.ts); before a bullet.
  const boundary = new RegExp(`${NOT_A_SENTENCE_STOP}[.!?](?=\\s)|\\s(?=[-*•] )`, 'gi');
  let from = 0;
  const push = (to: number) => {
    // A run-on sentence (a flattened list, a code line) is cut at spaces near UNIT_CHARS.
    while (to - from > UNIT_CHARS) {
      const space = text.lastIndexOf(' ', from + UNIT_CHARS);
      const cut = space > from ? space : from + UNIT_CHARS;
      out.push({ from, to: cut, cut: true });
      from = cut;
    }
    if (to > from) out.push({ from, to });
    from = to;
  };
  for (let m = boundary.exec(text); m; m = boundary.exec(text)) push(m.index + 1);
  push(text.length);
  return out;
}

/**
 * Which pieces may hold one of `askTerms`: those where a term's letters appear (any case), and
 * any holding a character past ASCII. Tokenizing every piece was most of a passage's cost (~1 ms
 * a brief); a piece that is neither cannot hold a term, since an ASCII word's terms are its
 * lowercased self or camelCase parts, or a stem of one: a prefix of it, or ("policies" →
 * "policy") a prefix and a `y`. So a term ending in `y` is looked for without it. A term the
 * tokenizer reads in a piece starts in it, so the search need only find each piece's first.
 */
export function piecesThatMayHold(text: string, pieces: Piece[], askTerms: ReadonlySet<string>): boolean[] {
  const may = new Array<boolean>(pieces.length).fill(false);
  const starts = [...askTerms].map((t) => (t.endsWith('y') ? t.slice(0, -1) : t).replace(/[^a-z0-9]/g, '\\$&')).filter(Boolean);
  const find = new RegExp([...starts, '[^\\x00-\\x7f]'].join('|'), 'gi');
  let piece = 0;
  for (let m = find.exec(text); m; m = find.exec(text)) {
    while (pieces[piece]!.to <= m.index) piece++;
    may[piece] = true;
    // On from the next piece: whatever else starts in this one, it is read already.
    find.lastIndex = pieces[piece]!.to;
  }
  return may;
}

/** A passage: its text as sent (marked "…" where cut), and where its body lies in the flattened text. */
export interface Passage {
  text: string;
  /** The body's offsets in the flattened text, end exclusive. */
  from: number;
  to: number;
  /** Whether the body runs to the end of the text (then no closing mark). */
  toEnd: boolean;
}

/**
 * The best passage of `whole` for an ask whose terms are `askTerms`, at most `max` characters
 * (a cut marked with "…" at either end), or undefined when the text fits whole, the ask names
 * nothing it holds, or the opening is as good as any (the caller then sends its opening): ties
 * go to the earlier passage. `whole` has its whitespace flattened; only its first
 * PASSAGE_SCAN_CHARS are read, so a longer prefix of the text will do. `textEnds`: whether the
 * record's text ends where `whole` does (else a passage reaching its end is marked cut too).
 * `anchor`: an offset in `whole` the passage holds whenever it is read at all (where the item
 * names the identifier or path it is there for), whatever the ask's terms say.
 */
export function bestPassage(
  whole: string,
  askTerms: ReadonlySet<string>,
  max: number,
  textEnds = true,
  anchor?: number,
): Passage | undefined {
  const anchored = anchor !== undefined && anchor >= 0 && anchor < Math.min(whole.length, PASSAGE_SCAN_CHARS);
  if (whole.length <= max || (askTerms.size === 0 && !anchored)) return undefined;
  const text = whole.slice(0, PASSAGE_SCAN_CHARS);
  const pieces = units(text);
  const may = piecesThatMayHold(text, pieces, askTerms);
  const termsOf = pieces.map((p, i) => (may[i] ? tokenize(text.slice(p.from, p.to)).filter((t) => askTerms.has(t)) : []));
  if (anchored) termsOf[pieces.findIndex((p) => anchor < p.to)]!.push(ANCHOR);
  if (!termsOf.some((t) => t.length)) return undefined;
  // A window of pieces slides along: each step adds pieces at its end while they fit, then
  // drops its first; counts of the ask's terms in it are kept as it moves.
  const counts = new Map<string, number>();
  let hits = 0;
  const add = (i: number, by: 1 | -1) => {
    for (const t of termsOf[i]!) {
      const n = (counts.get(t) ?? 0) + by;
      if (n === 0) counts.delete(t);
      else counts.set(t, n);
      hits += by;
    }
  };
  let best = { score: -1, first: 0, last: 0 };
  let last = -1;
  for (let first = 0; first < pieces.length; first++) {
    if (last < first) add((last = first), 1);
    while (last + 1 < pieces.length && pieces[last + 1]!.to - pieces[first]!.from <= max - 2) add(++last, 1);
    const score = counts.size + REPEAT_WEIGHT * (hits - counts.size) + (counts.has(ANCHOR) ? ANCHOR_WEIGHT : 0);
    if (score > best.score) best = { score, first, last };
    add(first, -1);
  }
  if (best.first === 0) return undefined;
  // The earliest best window ends where the ask's words are, often cut there: it starts instead
  // at its first piece naming them, and runs on as far as it fits.
  let { first: head, last: tail } = best;
  while (head < tail && termsOf[head]!.length === 0) head++;
  // A window opening inside a sentence cut for its length reads as starting mid-thought
  // ("…customer-facing events). Customers pin…"): it opens at that sentence's start instead, ending
  // sooner, when it then still holds every term (and the anchor) it held.
  let opening = head;
  while (opening > 0 && pieces[opening - 1]!.cut) opening--;
  if (opening < head) {
    let last = head;
    while (last + 1 < pieces.length && pieces[last + 1]!.to - pieces[opening]!.from <= max - 2) last++;
    const held = (a: number, b: number) => new Set(termsOf.slice(a, b + 1).flat());
    const wanted = held(head, tail);
    const kept = held(opening, last);
    if (pieces[last]!.to - pieces[opening]!.from <= max - 2 && [...wanted].every((t) => kept.has(t))) {
      head = opening;
      tail = last;
    }
  }
  while (tail + 1 < pieces.length && pieces[tail + 1]!.to - pieces[head]!.from <= max - 2) tail++;
  // It ends where a sentence (or a list item) does, when one ends late enough: a window whose
  // last piece is the head of a long sentence read as cut mid-thought ("…already in the…").
  let end = tail;
  while (end > head && pieces[end]!.cut) end--;
  if (!pieces[end]!.cut && pieces[end]!.to - pieces[head]!.from >= SENTENCE_END_FROM * (pieces[tail]!.to - pieces[head]!.from)) tail = end;
  const start = pieces[head]!.from;
  const raw = text.slice(start, pieces[tail]!.to);
  const from = start + raw.length - raw.trimStart().length;
  let body = raw.trim().slice(0, max - 2);
  // What was read of the record may stop inside a word (its first 2,000 characters, or the scan's
  // first PASSAGE_SCAN_CHARS): a passage reaching that end stops at the word before, never
  // "…burst are lo…".
  const textGoesOn = !textEnds || whole.length > text.length;
  if (textGoesOn && from + body.length >= text.length && /[\p{L}\p{N}]$/u.test(body)) {
    const space = body.search(/\s\S*$/);
    if (space > 0) body = body.slice(0, space).trimEnd();
  }
  const to = from + body.length;
  const toEnd = textEnds && to >= whole.length;
  return { text: `…${body}${toEnd ? '' : '…'}`, from, to, toEnd };
}
