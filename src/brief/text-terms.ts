// A candidate's BM25 terms, remembered across briefs: the same records (the constitution, a
// team's busiest docs) are candidates brief after brief, and tokenizing their text again was
// the largest share of a brief's own work. Keyed by the text itself, so a record whose text
// changed is read anew, or by a key the caller vouches names one text (a record's id and
// version): a 2,000-character key built anew each brief was hashed and compared whole on every
// lookup (~20 µs each, about half a millisecond a brief). Bounded, the least recently used
// forgotten first. Process-wide rather than in BriefDeps: the terms are a pure function of the
// text, so workspaces and callers share it safely and no brief's answer depends on what it
// holds, only its cost.
//
// A text's terms are kept as numbers into one vocabulary of the words seen, not as arrays and
// sets of strings: ~1 kB a text rather than ~14 kB, so four times the texts fit in less memory
// (docs/eval.md, session 20). The numbers are a string's UTF-16 code units, two bytes each: a
// string lives on V8's heap, where typed arrays' buffers would be thousands of small allocations
// outside it, made and freed as texts are forgotten. So the vocabulary holds at most 65,536
// words; when it is full, it and the texts start again.
import { RecentMap } from '../lib/recent-map.js';
import { tokenize, type TermLookup } from '../text/tokenize.js';

/** Texts remembered: about 4 MB at the brief's 2,000 characters a text. */
export const TEXT_TERMS_MAX = 4096;
/** Distinct words remembered, across every text: one UTF-16 code unit each. */
export const TEXT_WORDS_MAX = 65_536;

interface Vocabulary {
  ids: Map<string, number>;
  words: string[];
}

interface Remembered {
  /** The terms in order, with repeats: a vocabulary id per code unit. */
  seq: string;
  /** The distinct ids, ascending, the same way: made the first time the set is asked for. */
  distinct?: string;
}

/** A string of ids, one per code unit (String.fromCharCode's arguments are bounded: in slices). */
function idString(ids: ArrayLike<number>): string {
  let out = '';
  for (let i = 0; i < ids.length; i += 8192) out += String.fromCharCode(...Array.prototype.slice.call(ids, i, i + 8192));
  return out;
}

/** Marks of the ids seen by the distinctOf running now: all zero between calls. */
const seen = new Uint8Array(TEXT_WORDS_MAX);

/** The distinct ids of `seq`, ascending: marked in a reused array, half the time a Set took. */
function distinctOf(seq: string): string {
  const ids: number[] = [];
  for (let i = 0; i < seq.length; i++) {
    const id = seq.charCodeAt(i);
    if (seen[id]) continue;
    seen[id] = 1;
    ids.push(id);
  }
  for (const id of ids) seen[id] = 0;
  return idString(Uint16Array.from(ids).sort());
}

function holds(sorted: string, id: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted.charCodeAt(mid);
    if (v === id) return true;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

export class TextTerms {
  private vocabulary: Vocabulary = { ids: new Map(), words: [] };
  private texts: RecentMap<string, Remembered>;

  constructor(
    private readonly maxTexts: number,
    private readonly maxWords: number,
  ) {
    this.texts = new RecentMap(maxTexts);
  }

  /** tokenize(text). `key` names this text and no other. */
  terms(text: string, key = text): string[] {
    const e = this.entry(text, key);
    if (!e) return tokenize(text);
    const { seq } = e;
    const { words } = this.vocabulary;
    const out = new Array<string>(seq.length);
    for (let i = 0; i < seq.length; i++) out[i] = words[seq.charCodeAt(i)]!;
    return out;
  }

  /** The set of terms(text), for membership. */
  termSet(text: string, key = text): TermLookup {
    const e = this.entry(text, key);
    if (!e) return new Set(tokenize(text));
    const distinct = (e.distinct ??= distinctOf(e.seq));
    // The vocabulary of this moment: should it start again, this lookup still reads its own.
    const { ids, words } = this.vocabulary;
    return {
      has(term: string) {
        const id = ids.get(term);
        return id !== undefined && holds(distinct, id);
      },
      *[Symbol.iterator]() {
        for (let i = 0; i < distinct.length; i++) yield words[distinct.charCodeAt(i)]!;
      },
    };
  }

  /** Whether the text under `key` is remembered (for tests). */
  remembers(key: string): boolean {
    return this.texts.has(key);
  }

  /** Texts and distinct words remembered now. */
  get size(): { texts: number; words: number } {
    return { texts: this.texts.size, words: this.vocabulary.words.length };
  }

  /** The text's remembered terms; undefined for a text of more terms than the vocabulary could hold. */
  private entry(text: string, key: string): Remembered | undefined {
    const hit = this.texts.get(key);
    if (hit) return hit;
    const terms = tokenize(text);
    if (terms.length > this.maxWords) return undefined;
    if (this.vocabulary.words.length + terms.length > this.maxWords) {
      this.vocabulary = { ids: new Map(), words: [] };
      this.texts = new RecentMap(this.maxTexts);
    }
    const { ids, words } = this.vocabulary;
    const codes = new Array<number>(terms.length);
    for (let i = 0; i < terms.length; i++) {
      const term = terms[i]!;
      let id = ids.get(term);
      if (id === undefined) {
        id = words.length;
        ids.set(term, id);
        words.push(term);
      }
      codes[i] = id;
    }
    const remembered: Remembered = { seq: idString(codes) };
    this.texts.set(key, remembered);
    return remembered;
  }
}

const shared = new TextTerms(TEXT_TERMS_MAX, TEXT_WORDS_MAX);

/** tokenize(text), remembered across briefs. `key` names this text and no other. */
export const termsOfText = (text: string, key = text): string[] => shared.terms(text, key);

/** The set of termsOfText(text). */
export const termSetOfText = (text: string, key = text): TermLookup => shared.termSet(text, key);

/**
 * The key of a record version's text as the brief reads it (its title and its prose as loaded,
 * both fixed by the version); the text's length guards against a caller that cut it otherwise.
 * A key never equals a text: texts hold a newline, keys none.
 */
export const versionKey = (id: string, version: number, text: string) => `${id}@${version}:${text.length}`;
