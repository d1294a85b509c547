// A candidate's BM25 terms, remembered across briefs: the same records (the constitution, a
// team's busiest docs) are candidates brief after brief, and tokenizing their text again was
// the largest share of a brief's own work. Keyed by the text itself, so a record whose text
// changed is read anew; bounded, the least recently used forgotten first. Process-wide rather
// than in BriefDeps: the terms are a pure function of the text, so workspaces and callers share
// it safely and no brief's answer depends on what it holds, only its cost.
import { tokenize } from '../text/tokenize.js';

/** Texts remembered: about 6 MB at the brief's 2,000 characters a text. */
export const TEXT_TERMS_MAX = 1024;

interface Remembered {
  terms: readonly string[];
  set?: ReadonlySet<string>;
}

const remembered = new Map<string, Remembered>();

function entry(text: string): Remembered {
  let hit = remembered.get(text);
  if (hit) {
    remembered.delete(text);
  } else {
    hit = { terms: tokenize(text) };
    if (remembered.size >= TEXT_TERMS_MAX) remembered.delete(remembered.keys().next().value!);
  }
  remembered.set(text, hit);
  return hit;
}

/** tokenize(text), shared: never change what it returns. */
export const termsOfText = (text: string): readonly string[] => entry(text).terms;

/** The set of termsOfText(text). */
export function termSetOfText(text: string): ReadonlySet<string> {
  const e = entry(text);
  return (e.set ??= new Set(e.terms));
}
