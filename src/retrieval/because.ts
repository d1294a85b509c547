// "because: matched 'refund'": the ask's words a record's text contains, in the ask's order (the
// most distinctive of them when more matched than are named).
import { writtenWords } from '../text/ask-words.js';
import { stem, tokenize, type TermLookup } from '../text/tokenize.js';

const STOP = new Set(
  (
    'the and for with from into that this these those what when where which will would should could about over under add make use new all any its our your their ' +
    // Words that join an ask's parts and name nothing in it: "matched 'give'" tells the agent nothing.
    'give gives take takes keep still even only then than such while way out own without never rather after before become becomes one each every some also just more most other same ' +
    'through between within across during upon via ' +
    // "How X works" asks how, and names nothing.
    'works'
  ).split(' '),
);

/** The terms of a text as the index reads them, to test the ask's words against. */
export const termSet = (text: string): ReadonlySet<string> => new Set(tokenize(text));

/** One word an item's because line may name, with the index's term for each of its parts. */
interface NamableWord {
  word: string;
  terms: readonly string[];
}

/**
 * An ask's words that may be named, each once ("chunk", "chunks" name one thing). A hyphenated
 * word ("long-term", "read-after-write") is named as written when the item holds every part of
 * it that may be named, and else by the parts it holds: "matched 'term'" for "long-term" read as
 * a fragment of the ask.
 */
export interface AskWords {
  words: readonly (NamableWord & { parts?: readonly NamableWord[] })[];
}

/** The ask's words a because line may name, read once for every item of a brief. `skip`: more words never named. */
export function matchableWords(about: string, skip: ReadonlySet<string> = new Set()): AskWords {
  const words: AskWords['words'][number][] = [];
  const seen = new Set<string>();
  for (const { written, parts: pieces, name } of writtenWords(about)) {
    const parts: NamableWord[] = [];
    for (const w of pieces) {
      if (w.length < 3 || STOP.has(w) || skip.has(w)) continue;
      const term = stem(w);
      // Another form of a word never named is not named either: 'keeps' as 'keep', 'updates' as 'update'.
      if (STOP.has(term) || skip.has(term) || parts.some((p) => p.terms[0] === term)) continue;
      parts.push({ word: w, terms: [term] });
    }
    const fresh = parts.filter((p) => !seen.has(p.terms[0]!));
    for (const p of fresh) seen.add(p.terms[0]!);
    // A hyphenated word one of whose parts the ask already named alone goes by its other parts.
    if (parts.length > 1 && fresh.length === parts.length)
      words.push({ word: written, terms: name ? [stem(written.toLowerCase())] : parts.map((p) => p.terms[0]!), parts: fresh });
    else words.push(...fresh);
  }
  return { words };
}

/**
 * `text` may be given as its termSet when the caller holds one already, and the ask as its
 * matchableWords; `skip`: more words never named. `heldBy` (a term → how many of the items shown
 * beside this one hold it) picks, when more than `max` words matched, those fewest other items
 * hold: "matched 'state', 'sync', 'snapshots'" on every item of a brief about state sync told the
 * agent nothing of why this one. They are named in the ask's order.
 */
export function explainMatch(
  about: string | AskWords,
  text: string | TermLookup,
  max = 3,
  skip: ReadonlySet<string> = new Set(),
  heldBy?: (term: string) => number,
): string | undefined {
  const named = namedWords(typeof about === 'string' ? matchableWords(about, skip) : about, text, max, heldBy);
  return named.length ? `matched ${quoted(named)}` : undefined;
}

/** A touched path and the words of its names (retrieve.ts's touchedNames) a because line may name. */
export interface PathWords {
  path: string;
  words: AskWords;
}

/**
 * "shares 'ruler', 'frontend' with pkg/ruler/frontend_client.go": why an item that holds none of
 * the ask's own words is there, when it holds the names of a path the work touches (the search
 * reads them as part of the ask). Undefined when it holds none of those either.
 */
export function explainPathShare(paths: readonly PathWords[], text: string | TermLookup, max = 3): string | undefined {
  for (const { path, words } of paths) {
    const named = namedWords(words, text, max);
    if (named.length) return `shares ${quoted(named)} with ${path}`;
  }
  return undefined;
}

const quoted = (words: readonly string[]) => words.map((w) => `'${w}'`).join(', ');

/** The words of `ask` that `text` holds, at most `max`, in the ask's order (see explainMatch). */
function namedWords(ask: AskWords, text: string | TermLookup, max: number, heldBy?: (term: string) => number): string[] {
  const present = typeof text === 'string' ? termSet(text) : text;
  const matched: (NamableWord & { at: number })[] = [];
  const holds = (w: NamableWord) => w.terms.every((t) => present.has(t));
  for (const w of ask.words) {
    const found = holds(w) ? [w] : (w.parts ?? []).filter(holds);
    for (const f of found) matched.push({ ...f, at: matched.length });
    if (!heldBy && matched.length >= max) break;
  }
  const rarity = (w: NamableWord) => Math.min(...w.terms.map((t) => heldBy!(t)));
  const named =
    heldBy && matched.length > max
      ? [...matched].sort((a, b) => rarity(a) - rarity(b) || a.at - b.at).slice(0, max)
      : matched.slice(0, max);
  named.sort((a, b) => a.at - b.at);
  return named.map((m) => m.word);
}
