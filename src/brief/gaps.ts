// Gaps (docs/brief.md, step 4): the parts of the ask that nothing in the brief covers. An ask word
// no item mentions is a gap, reported with the word it qualifies ("partial refunds"), since a
// gap reads as a phrase, not a lone adjective.
import { CODE_ONLY_WORDS, EDIT_TOOL_WORDS } from '../text/ask-words.js';
import { GENERIC_WORDS, namesNothing } from '../text/generic-words.js';
import { stem, tokenize, type TermLookup } from '../text/tokenize.js';

interface Word {
  raw: string;
  stem: string;
  content: boolean;
  /** Where it starts and ends in the ask. */
  at: number;
  end: number;
}

/**
 * Whether the word at `at` in `text` is code rather than prose, which the docs need not name (an
 * edit hook's ask quotes its first line of code): a name in camelCase, or one a `.`, `&` or `*`
 * joins to the code around it (`cfg.ShardingEnabled`, `util.DynamicShardSize(`), or a call's
 * parenthesis follows. Code's own short words are text/ask-words.ts CODE_ONLY_WORDS.
 */
function isCode(text: string, raw: string, at: number): boolean {
  if (/\p{Ll}\p{Lu}/u.test(raw)) return true;
  const before = text[at - 1] ?? ' ';
  const after = text.slice(at + raw.length, at + raw.length + 2);
  return before === '.' || before === '&' || before === '*' || /^(\.\p{L}|\()/u.test(after);
}

/** A contraction of a word that names nothing ("we've", "shouldn't"). */
const isContraction = (lower: string) => {
  const [head, tail] = lower.split("'", 2) as [string, string | undefined];
  return tail !== undefined && (GENERIC_WORDS.has(head) || (tail === 't' && head.endsWith('n')));
};

function words(text: string): Word[] {
  return [...text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu)].map(({ 0: raw, index }) => {
    const lower = raw.toLowerCase();
    const content =
      lower.length > 2 &&
      !namesNothing(lower) &&
      !EDIT_TOOL_WORDS.has(lower) &&
      !CODE_ONLY_WORDS.has(lower) &&
      !/^\d+$/.test(lower) &&
      !isContraction(lower) &&
      !isCode(text, raw, index);
    return { raw, stem: stem(lower), content, at: index, end: index + raw.length };
  });
}

/**
 * The light stemmer keeps "logging" apart from "log" and "testing" from "test": a word one of
 * whose forms the brief holds (one a prefix of the other, a few letters apart) is no gap.
 */
function sameWord(a: string, b: string): boolean {
  const short = a.length <= b.length ? a : b;
  const long = short === a ? b : a;
  return short.length >= 3 && long.length - short.length <= 4 && long.startsWith(short);
}

/**
 * `covered` holds the terms (termSet) of every text the brief carries. `about` is the ask without
 * the paths it touches (ask-words.ts `withoutPaths`): "routes billing" is no part of the work.
 */
export function findGaps(about: string, covered: TermLookup[], max = 5): string[] {
  // Exact terms are looked up set by set; only a word not covered as written walks the terms
  // for its other forms, without copying any set (that copy per word and set once cost more
  // than the rest of the brief's last step).
  const holds = (term: string) => covered.some((set) => set.has(term));
  const holdsAForm = (p: string) => {
    if (p.length < 3) return false;
    for (const set of covered) for (const term of set) if (term.charCodeAt(0) === p.charCodeAt(0) && sameWord(p, term)) return true;
    return false;
  };
  const isCovered = (w: Word) => {
    const parts = w.stem.includes('-') || w.stem.includes("'") ? tokenize(w.raw) : [w.stem];
    return parts.length > 0 && parts.every((p) => holds(p) || holdsAForm(p));
  };
  const ask = words(about);
  const gaps = new Set<string>();
  const used = new Set<number>();
  ask.forEach((w, i) => {
    if (gaps.size >= max || !w.content || used.has(i) || isCovered(w)) return;
    // Pair the word with the content word it most likely qualifies: the next, else the previous,
    // only across spaces: "production: put" or "series; erase" reads as no phrase.
    const joined = (a: Word, b: Word) => /^\s+$/.test(about.slice(a.end, b.at));
    const next = ask[i + 1]?.content && joined(w, ask[i + 1]!) ? i + 1 : undefined;
    const prev = ask[i - 1]?.content && !used.has(i - 1) && joined(ask[i - 1]!, w) ? i - 1 : undefined;
    const span = next !== undefined ? [i, next] : prev !== undefined ? [prev, i] : [i];
    span.forEach((j) => used.add(j));
    gaps.add(span.map((j) => ask[j]!.raw.toLowerCase()).join(' '));
  });
  return [...gaps];
}
