// Gaps (docs/brief.md, step 4): the parts of the ask that nothing in the brief covers. An ask word
// no item mentions is a gap, reported with the word it qualifies ("partial refunds"), since a
// gap reads as a phrase, not a lone adjective.
import { EDIT_TOOL_WORDS } from '../text/ask-words.js';
import { GENERIC_WORDS } from '../text/generic-words.js';
import { stem, tokenize } from '../text/tokenize.js';

interface Word {
  raw: string;
  stem: string;
  content: boolean;
}

function words(text: string): Word[] {
  return (text.match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? []).map((raw) => {
    const lower = raw.toLowerCase();
    const content = lower.length > 2 && !GENERIC_WORDS.has(lower) && !EDIT_TOOL_WORDS.has(lower) && !/^\d+$/.test(lower);
    return { raw, stem: stem(lower), content };
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
export function findGaps(about: string, covered: ReadonlySet<string>[], max = 5): string[] {
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
    // Pair the word with the content word it most likely qualifies: the next, else the previous.
    const next = ask[i + 1]?.content ? i + 1 : undefined;
    const prev = ask[i - 1]?.content && !used.has(i - 1) ? i - 1 : undefined;
    const span = next !== undefined ? [i, next] : prev !== undefined ? [prev, i] : [i];
    span.forEach((j) => used.add(j));
    gaps.add(span.map((j) => ask[j]!.raw.toLowerCase()).join(' '));
  });
  return [...gaps];
}
