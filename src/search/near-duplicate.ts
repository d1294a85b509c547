// How alike two record texts are, for the duplicate guard: the Jaccard similarity of their
// word shingles (runs of SHINGLE_WORDS words) after the same normalisation as the SQL
// fingerprint (lowercase, anything but letters and digits a separator). Exact and cheap on a
// few candidates; chosen over the dense cosine by `npm run bench -- duplicates`.

/** Words per shingle, and the similarity from which two texts count as near-identical (bench/duplicates.ts). */
export const SHINGLE_WORDS = 2;
export const NEAR_DUPLICATE_SIMILARITY = 0.6;

export function normalisedWords(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

export function shingles(text: string, k = SHINGLE_WORDS): Set<string> {
  const words = normalisedWords(text);
  // A text shorter than a shingle is its own single shingle.
  if (words.length <= k) return new Set([words.join(' ')]);
  const out = new Set<string>();
  for (let i = 0; i + k <= words.length; i++) out.add(words.slice(i, i + k).join(' '));
  return out;
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let both = 0;
  for (const s of small) if (large.has(s)) both++;
  return both / (a.size + b.size - both);
}

/** A record's text as the guard compares it: title and prose. */
export const recordText = (r: { title: string; prose: string }) => `${r.title}\n${r.prose}`;

/**
 * The draft's rarest-looking words for the index lookup: its longest distinct words. A
 * near-identical record shares them, and BM25's cost grows with each common word's postings.
 */
export function lookupText(text: string, words = 16): string {
  const distinct = [...new Set(normalisedWords(text).filter((w) => w.length >= 3))];
  return distinct.sort((a, b) => b.length - a.length || a.localeCompare(b)).slice(0, words).join(' ');
}
