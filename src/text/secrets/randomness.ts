// Whether a string that has a credential's shape also has a credential's randomness. A prefix
// and a length are not enough on their own: docs are full of `ghp_xxxx…`, `T00000000/B00000000`
// and `abcdef0123456789` stand-ins, and those must pass.

/** Shannon entropy in bits per character of the string's own character distribution. */
export function shannonEntropy(s: string): number {
  if (!s.length) return 0;
  const counts = new Map<number, number>();
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

export interface CharClasses {
  lower: boolean;
  upper: boolean;
  digit: boolean;
  other: boolean;
  count: number;
}

export function charClasses(s: string): CharClasses {
  const lower = /[a-z]/.test(s);
  const upper = /[A-Z]/.test(s);
  const digit = /[0-9]/.test(s);
  const other = /[^A-Za-z0-9]/.test(s);
  return { lower, upper, digit, other, count: +lower + +upper + +digit + +other };
}

/** Most neighbours one code point apart (abcdef…, 0123…, zyx…): typed, not generated. */
export function isSequential(s: string): boolean {
  if (s.length < 8) return false;
  let steps = 0;
  for (let i = 1; i < s.length; i++) {
    const d = s.charCodeAt(i) - s.charCodeAt(i - 1);
    if (d === 1 || d === -1) steps++;
  }
  return steps / (s.length - 1) > 0.5;
}

/** Runs and words that mark a stand-in rather than an issued credential. */
const STAND_IN = /(.)\1{5,}|example|placeholder|redacted|dummy/i;
/** Case-sensitive: a random token holds `XXxx` now and then, a masked one holds `xxxx` or `XXXX`. */
const MASK = /x{4,}|X{4,}|\*{4,}/;
const MARKER_WORDS = new Set(['your', 'here', 'replace', 'insert', 'fake', 'sample', 'test', 'changeme']);

/** Words of a token: split at punctuation, case changes and digits (`YourKeyHere` → your, key, here; `MD5Password` → md, 5, password). */
export const wordsOf = (s: string) =>
  s
    .replace(/(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[0-9])(?=[A-Za-z])|(?<=[A-Za-z])(?=[0-9])/g, ' ')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/** The alphabet a string draws on, as far as its characters show: hex, digits, base32, base62, base64… */
function alphabetSize(s: string, classes: CharClasses): number {
  if (/^[0-9a-f]+$/.test(s) || /^[0-9A-F]+$/.test(s)) return classes.count === 1 && classes.digit ? 10 : 16;
  return (classes.lower ? 26 : 0) + (classes.upper ? 26 : 0) + (classes.digit ? 10 : 0) + (classes.other ? 2 : 0);
}

export interface RandomnessRule {
  /** How many of lower, upper, digit, other must occur (default 2). */
  minClasses?: number;
  /** Both letters and digits must occur (default false): for tokens no prefix vouches for. */
  lettersAndDigits?: boolean;
  /** Bits per character to reach; default: 70% of the most the string's length and alphabet allow. */
  minEntropy?: number;
}

/**
 * The random part of a token: not a stand-in (xxxx, a run, an example word), not a typed
 * sequence, and as varied as a random draw from its alphabet would be. The entropy bar is
 * relative, so a 32-character hex secret (at most 4 bits a character) passes as readily as a
 * base62 one (at most ~5.2 bits for 36 characters).
 */
export function looksRandom(s: string, rule: RandomnessRule = {}): boolean {
  if (STAND_IN.test(s) || MASK.test(s) || isSequential(s) || wordsOf(s).some((w) => MARKER_WORDS.has(w))) return false;
  const classes = charClasses(s);
  if (classes.count < (rule.minClasses ?? 2)) return false;
  if (rule.lettersAndDigits && !(classes.digit && (classes.lower || classes.upper))) return false;
  const bar = rule.minEntropy ?? 0.7 * Math.log2(Math.min(alphabetSize(s, classes), s.length));
  return shannonEntropy(s) >= bar;
}
