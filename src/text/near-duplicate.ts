// How alike two record texts are, for the duplicate guard: the Jaccard similarity of their
// word shingles (runs of SHINGLE_WORDS words) after the same normalisation as the SQL
// fingerprint (lowercase, anything but letters and digits a separator). Exact and cheap on a
// few candidates; chosen over the dense cosine by `npm run bench -- duplicates`.

/** Words per shingle, and the similarity from which two texts count as near-identical (bench/duplicates.ts). */
export const SHINGLE_WORDS = 2;
export const NEAR_DUPLICATE_SIMILARITY = 0.6;

export function normalisedWords(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

export function shingles(text: string, k = SHINGLE_WORDS): Set<string> {
  const words = normalisedWords(text);
  // A text shorter than a shingle is its own single shingle.
  if (words.length <= k) return new Set([words.join(' ')]);
  const out = new Set<string>();
  for (let i = 0; i + k <= words.length; i++) out.add(words.slice(i, i + k).join(' '));
  return out;
}

/**
 * The same shingles as `shingles`, as numbers: words are numbered in `dictionary` (shared by
 * every text compared together), so a pair costs no string. Equal texts give equal sets, and
 * two texts' sets meet exactly where their string shingles do.
 */
export function shingleKeys(text: string, dictionary: Map<string, number>, k = SHINGLE_WORDS): Set<number | string> {
  const ids = normalisedWords(text).map((w) => {
    let id = dictionary.get(w);
    if (id === undefined) dictionary.set(w, (id = dictionary.size));
    return id;
  });
  // Shorter than a shingle: its own single shingle, a string, so it never meets a pair's number.
  if (ids.length < k) return new Set([`${ids.join(' ')}`]);
  const out = new Set<number | string>();
  // Two word numbers fit one exactly (below 2^26 words a dictionary, far more than any changeset's texts hold); longer shingles stay strings.
  if (k === 2) for (let i = 0; i + 1 < ids.length; i++) out.add(ids[i]! * 2 ** 26 + ids[i + 1]!);
  else for (let i = 0; i + k <= ids.length; i++) out.add(ids.slice(i, i + k).join(' '));
  return out;
}

export function jaccard<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let both = 0;
  for (const s of small) if (large.has(s)) both++;
  return both / (a.size + b.size - both);
}

/** A record's text as the guard compares it: title and prose. */
export const recordText = (r: { title: string; prose: string }) => `${r.title}\n${r.prose}`;

/** Distinct words a lookup sends at most: a long record's first ones. */
export const LOOKUP_WORDS_MAX = 512;

/**
 * The draft's words for the index lookup: its distinct words of three letters or more, in the
 * order they first appear. The embedded index looks up the rarest of them (StoreQuery.recordWords):
 * a near-identical record shares them, where a draft's longest words were often the common ones.
 */
export function lookupText(text: string, words = LOOKUP_WORDS_MAX): string {
  return [...new Set(normalisedWords(text).filter((w) => w.length >= 3))].slice(0, words).join(' ');
}
