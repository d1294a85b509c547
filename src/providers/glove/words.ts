// A text's words as GloVe spells them, as table rows. The split follows src/text/tokenize.ts
// (folded, lowercased, split on anything not a letter or digit, stop words and lone letters
// dropped) but nothing is stemmed: GloVe's vocabulary is unstemmed lowercase words, and
// "refunds" has a vector of its own.

import { fold, isStopWord } from '../../text/tokenize.js';
import type { WordIndex } from './word-index.js';

const NOT_WORD = /[^\p{L}\p{N}]+/u;
const CAMEL = /(?<=\p{Ll})(?=\p{Lu})/u;
const DIGIT = /\d/;

function pushWord(lower: string, rowOf: WordIndex, rows: number[]): boolean {
  if ((lower.length < 2 && !DIGIT.test(lower)) || isStopWord(lower)) return true;
  const row = rowOf.get(lower);
  if (row === undefined) return false;
  rows.push(row);
  return true;
}

/**
 * Appends the row of each known word of `text` to `rows` (repeats kept, unknown words
 * skipped) and returns it. A camelCase word is taken whole when GloVe knows it
 * ("JavaScript"), else by its parts ("getUser" → get, user), never both.
 */
export function wordRows(text: string, rowOf: WordIndex, rows: number[] = []): number[] {
  for (const raw of fold(text).split(NOT_WORD)) {
    if (!raw) continue;
    const lower = raw.toLowerCase();
    if (pushWord(lower, rowOf, rows) || lower === raw) continue; // no capital: nothing to split
    const parts = raw.split(CAMEL);
    if (parts.length > 1) for (const part of parts) pushWord(part.toLowerCase(), rowOf, rows);
  }
  return rows;
}
