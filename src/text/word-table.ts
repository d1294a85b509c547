// The terms each ASCII word of a text gives, looked up by the word's characters where they stand
// in the text: a word seen before costs its hash and one comparison, and no string is made for
// it. Tokenizing was a fifth of what a brief allocated, a string for every word (then hashed
// again as a Map's key); over the eval corpora's text, looking words up in place tokenizes about
// 15% faster (docs/eval.md, "Session 17"). Open addressing over a table of a power of two,
// emptied when three quarters full rather than evicting (any bound keeps it cheap). A lookup
// looks at most MAX_PROBE slots, and a word that finds no free slot within them is not
// remembered: words a record's writer chose to share slots cost a bounded time each, never a walk
// that grows with the table. Process-wide: a word's terms are a pure function of the word, so
// every caller may share them and no answer depends on what the table holds.

const SIZE = 1 << 17;
const MASK = SIZE - 1;
const FULL = (SIZE * 3) >> 2;
const MAX_PROBE = 32;

const hashes = new Int32Array(SIZE);
let words = new Array<string | undefined>(SIZE);
let termsAt = new Array<readonly string[] | undefined>(SIZE);
let count = 0;

/** FNV-1a over char codes, one step: start from WORD_HASH_SEED and feed each char code of the word. */
export const WORD_HASH_SEED = 0x811c9dc5 | 0;
export const hashStep = (hash: number, charCode: number) => Math.imul(hash ^ charCode, 0x01000193);

function sameChars(word: string, text: string, start: number): boolean {
  for (let k = 0; k < word.length; k++) if (word.charCodeAt(k) !== text.charCodeAt(start + k)) return false;
  return true;
}

/** The terms remembered for text[start, end), whose hash is `hash`; undefined when it was never seen. */
export function termsOfWordAt(text: string, start: number, end: number, hash: number): readonly string[] | undefined {
  const length = end - start;
  for (let probe = 0, slot = hash & MASK; probe < MAX_PROBE; probe++, slot = (slot + 1) & MASK) {
    const word = words[slot];
    if (word === undefined) return undefined;
    if (hashes[slot] === hash && word.length === length && sameChars(word, text, start)) return termsAt[slot];
  }
  return undefined;
}

/** Remembers a word's terms (`hash` as termsOfWordAt was given it). */
export function rememberWord(word: string, hash: number, terms: readonly string[]): void {
  if (count >= FULL) {
    words = new Array<string | undefined>(SIZE);
    termsAt = new Array<readonly string[] | undefined>(SIZE);
    count = 0;
  }
  let slot = hash & MASK;
  for (let probe = 1; words[slot] !== undefined; probe++, slot = (slot + 1) & MASK) if (probe === MAX_PROBE) return;
  hashes[slot] = hash;
  words[slot] = word;
  termsAt[slot] = terms;
  count++;
}
