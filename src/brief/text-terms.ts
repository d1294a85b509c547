// A candidate's BM25 terms, remembered across briefs: the same records (the constitution, a
// team's busiest docs) are candidates brief after brief, and tokenizing their text again was
// the largest share of a brief's own work. Keyed by the text itself, so a record whose text
// changed is read anew, or by a key the caller vouches names one text (a record's id and
// version): a 2,000-character key built anew each brief was hashed and compared whole on every
// lookup (~20 µs each, about half a millisecond a brief). Bounded, the least recently used
// forgotten first. Process-wide rather than in BriefDeps: the terms are a pure function of the
// text, so workspaces and callers share it safely and no brief's answer depends on what it
// holds, only its cost.
import { RecentMap } from '../lib/recent-map.js';
import { tokenize } from '../text/tokenize.js';

/** Texts remembered: about 6 MB at the brief's 2,000 characters a text. */
export const TEXT_TERMS_MAX = 1024;

interface Remembered {
  terms: readonly string[];
  set?: ReadonlySet<string>;
}

const remembered = new RecentMap<string, Remembered>(TEXT_TERMS_MAX);

function entry(text: string, key: string): Remembered {
  let hit = remembered.get(key);
  if (!hit) remembered.set(key, (hit = { terms: tokenize(text) }));
  return hit;
}

/** tokenize(text), shared: never change what it returns. `key` names this text and no other. */
export const termsOfText = (text: string, key = text): readonly string[] => entry(text, key).terms;

/** The set of termsOfText(text). */
export function termSetOfText(text: string, key = text): ReadonlySet<string> {
  const e = entry(text, key);
  return (e.set ??= new Set(e.terms));
}

/**
 * The key of a record version's text as the brief reads it (its title and its prose as loaded,
 * both fixed by the version); the text's length guards against a caller that cut it otherwise.
 * A key never equals a text: texts hold a newline, keys none.
 */
export const versionKey = (id: string, version: number, text: string) => `${id}@${version}:${text.length}`;
