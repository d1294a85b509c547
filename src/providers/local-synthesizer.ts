// The local synthesis: no model. It does not repeat the items (the agent reads them right below
// it); it says what they do not: which of them answer the ask, which of those bind, which of the
// ask's words each holds (so how they split the ask between them: the words that set each apart,
// rarest among the items first chosen; two or more words all of them hold are said once, after
// them), and which are sections of one document (named under it once). An item not in force (a
// rejected or proposed ADR) carries its note where it is named.
// An item there for naming an identifier of the code being written (an edit's code terms) holds
// that name as the ask's heaviest word: on an edit, the ask's own words are the code's first line
// (`500 * time.Millisecond`), and the name is what the item answers.
// What none of them holds is the brief's `gaps`, not repeated here. Each item it names is
// cited once by id in square brackets, the form the Anthropic synthesizer asks its model for:
//
//   Must obey: Refund approvals [rule_01…] (refund, approver). Already decided: Partial refunds
//   through Stripe [decision_01…] (partial, refund).
//
// At most 70 words, counted as whitespace-separated words with the citations included. No items
// gives { text: '', cites: [] }.
import { CODE_KEYWORDS, EDIT_TOOL_WORDS, isEditAsk, withoutPaths, writtenWords } from '../text/ask-words.js';
import { namesNothing } from '../text/generic-words.js';
import { bm25Idf, tokenize } from '../text/tokenize.js';
import type { Synthesis, SynthesisItem, Synthesizer } from './synthesizer.js';

export const MAX_WORDS = 70;
/** Items named as answering the ask: more reads as a list, not a synthesis. */
const MAX_ANSWERS = 3;
/** An item answers when it holds at least this share of the best item's weight of ask words. */
const ANSWER_SHARE = 0.5;
/** A title is named by at most this many words. */
const TITLE_WORDS = 8;
/** Ask words listed per item. */
const MAX_WORDS_LISTED = 3;
/** The weight of a name of the code being written an item holds: above any ask word's (at most 2). */
const CODE_NAME_WEIGHT = 3;

/** The brief's tiers, and `architecture`: a principle, which may or may not stand under must obey. */
const TIER_ORDER = ['must_obey', 'already_decided', 'architecture', 'in_motion', 'background'];
const TIER_LABEL: Record<string, string> = {
  must_obey: 'Must obey',
  already_decided: 'Already decided',
  architecture: 'Architecture',
  in_motion: 'In motion',
  background: 'Background',
};
const tierRank = (tier: string) => (TIER_ORDER.includes(tier) ? TIER_ORDER.indexOf(tier) : TIER_ORDER.length);
const wordCount = (text: string) => (text.match(/\S+/g) ?? []).length;

interface AskWord {
  /** As the ask wrote it (lower case). */
  word: string;
  /** As the index reads it. */
  term: string;
  /** 1, and up to 1 more the rarer it is among the items: how much of the ask leads, rarity breaks ties. */
  weight: number;
  /** The hyphenated word or camelCase name it is a part of ("long" of "long-term"), with the terms an item must hold to be named by it. */
  of?: { written: string; terms: string[] };
}

/** The ask's content words, once per term, each weighted by its rarity among the items. `edit`: the ask is an edit's line of code. */
function askWordsOf(about: string, itemTerms: Set<string>[], edit = false): AskWord[] {
  const seen = new Set<string>();
  const out: AskWord[] = [];
  for (const { written, parts, name } of writtenWords(about)) {
    const counted: { word: string; term: string }[] = [];
    for (const word of parts) {
      if (word.length < 3 || namesNothing(word) || EDIT_TOOL_WORDS.has(word) || (edit && CODE_KEYWORDS.has(word)) || /^\d+$/.test(word))
        continue;
      const [term] = tokenize(word);
      if (term) counted.push({ word, term });
    }
    // A camelCase name is named as written only where an item holds the name itself.
    const of = counted.length > 1 ? { written, terms: name ? tokenize(written).slice(0, 1) : counted.map((c) => c.term) } : undefined;
    for (const { word, term } of counted) {
      if (seen.has(term)) continue;
      seen.add(term);
      const df = itemTerms.filter((t) => t.has(term)).length;
      out.push({ word, term, weight: bm25Idf(itemTerms.length, df), ...(of ? { of } : {}) });
    }
  }
  const rarest = Math.max(0, ...out.map((w) => w.weight));
  for (const w of out) w.weight = 1 + w.weight / (1 + rarest);
  return out;
}

/** At most `max` words of `text`, marked "…" when cut. */
function firstWords(text: string, max: number): string {
  const words = text.split(/\s+/).filter(Boolean);
  const kept = words
    .slice(0, max)
    .join(' ')
    .replace(/[\s,;:.!?]+$/, '');
  return words.length > max ? `${kept}…` : kept;
}

/**
 * The item's title in at most TITLE_WORDS words (its text's opening when it has no title). A
 * section's title ("Document — Section") keeps both ends, so two sections of one document stay
 * apart.
 */
function nameOf(item: SynthesisItem): string {
  const { doc, section } = titleParts(item);
  const name = section === undefined ? firstWords(doc, TITLE_WORDS) : `${firstWords(doc, TITLE_WORDS - 4)} — ${firstWords(section, 4)}`;
  // Square brackets are the synthesis's citations: a title's own (an issue titled "Must obey:
  // [rule_…] skip the tests") would read as one, of a rule no item is.
  return name.replace(/\[/g, '(').replace(/\]/g, ')');
}

/** A title's document and section ("Document — Section"); a title with no section is all document. */
function titleParts(item: SynthesisItem): { doc: string; section?: string } {
  const source = (item.title.trim() || item.text.trim()).replace(/^\s*(?:#{1,6}|[-*+>]|\d+[.)])\s+/, '');
  const [doc, section] = source.split(' — ', 2);
  return section === undefined ? { doc: source } : { doc: doc!, section };
}

/** Adds sentences in order while they fit in `max` words; the first always goes (cut if it must). */
function fitWords(sentences: { text: string; cites: string[] }[], max = MAX_WORDS): Synthesis {
  const kept: string[] = [];
  const cites: string[] = [];
  let used = 0;
  for (const s of sentences) {
    const n = wordCount(s.text);
    if (used + n > max) {
      if (kept.length) continue;
      // Only a first sentence longer than the limit: keep its head, and the citations it kept.
      const head = `${s.text
        .split(/\s+/)
        .slice(0, max)
        .join(' ')
        .replace(/[\s,;:.!?]+$/, '')}…`;
      kept.push(head);
      cites.push(...s.cites.filter((id) => head.includes(`[${id}]`)));
      break;
    }
    kept.push(s.text);
    cites.push(...s.cites);
    used += n;
  }
  return { text: kept.join(' '), cites };
}

/**
 * `touching`: the paths the work touches. An edit hook's ask names the file and the tool
 * ("Edit app/routes/billing.tsx: …"); neither is a word the ask is about (the items' because
 * lines say "touches …" for that), so neither is listed as what an item holds.
 */
export function synthesizeLocally(about: string, items: SynthesisItem[], touching: readonly string[] = []): Synthesis {
  if (items.length === 0) return { text: '', cites: [] };
  const itemTerms = items.map((i) => new Set(tokenize(`${i.title}\n${i.text}`)));
  const ask = askWordsOf(withoutPaths(about, touching), itemTerms, isEditAsk(about));
  // An ask word weighs at most 2 (askWordsOf); a name of the code being written outweighs any.
  const held = itemTerms.map((terms, i) => {
    const own = ask.filter((w) => terms.has(w.term));
    const name = items[i]!.names;
    return name ? [{ word: name, term: `\0${name}`, weight: CODE_NAME_WEIGHT }, ...own.filter((w) => !w.of || w.of.written !== name)] : own;
  });
  const weightOf = (i: number) => held[i]!.reduce((sum, w) => sum + w.weight, 0);
  const best = Math.max(0, ...items.map((_, i) => weightOf(i)));

  if (best === 0) {
    // Nothing holds the ask's words: the brief found these by meaning or by what they touch.
    const nearest = items
      .map((_, i) => i)
      .sort((a, b) => tierRank(items[a]!.tier) - tierRank(items[b]!.tier) || a - b)
      .slice(0, 2);
    const named = nearest.map((i) => `${nameOf(items[i]!)} [${items[i]!.id}]`);
    return fitWords([
      {
        text: `No item uses the ask's words; nearest by meaning or by what they touch: ${named.join('; ')}.`,
        cites: nearest.map((i) => items[i]!.id),
      },
    ]);
  }

  // Which answer: of the items holding enough of the ask's words, the binding first, then the
  // most relevant (items come most relevant first). The heaviest holders were picked before: a
  // long item low in the brief holding many of the ask's words was named and the brief's first
  // item left out (7 of 22 prompt briefs read over real docs).
  const answers = items
    .map((_, i) => i)
    .filter((i) => weightOf(i) > 0 && weightOf(i) >= ANSWER_SHARE * best)
    .sort((a, b) => tierRank(items[a]!.tier) - tierRank(items[b]!.tier) || a - b)
    .slice(0, MAX_ANSWERS)
    .sort((a, b) => tierRank(items[a]!.tier) - tierRank(items[b]!.tier) || a - b);
  // A part of a hyphenated word the item holds all of is said as that word, once ("long-term").
  const said = (i: number, w: AskWord) => (w.of?.terms.every((t) => itemTerms[i]!.has(t)) ? w.of.written : w.word);
  /** The ask's words item `i` holds, said as written, at most `max` of the rarest among the items, in the ask's order. */
  const listedWords = (i: number, leaveOut: ReadonlySet<string>, max: number) => {
    const own = held[i]!.filter((w) => !leaveOut.has(said(i, w)));
    const heaviest = new Set([...own].sort((a, b) => b.weight - a.weight).slice(0, max));
    return [...new Set(own.filter((w) => heaviest.has(w)).map((w) => said(i, w)))];
  };
  /** One sentence a tier: its answers, each cited with the words that set it apart (none in `shared`). */
  const tierSentences = (shared: ReadonlySet<string>) => {
    const cited = (i: number) => {
      // An item not in force (a rejected or proposed ADR) says so where it is named: under
      // "Architecture" it would otherwise read as a design the team follows.
      const words = listedWords(i, shared, MAX_WORDS_LISTED);
      const listed = [...(words.length ? [words.join(', ')] : []), ...(items[i]!.note ? [items[i]!.note] : [])];
      return listed.length ? `[${items[i]!.id}] (${listed.join('; ')})` : `[${items[i]!.id}]`;
    };
    return [...groupBy(answers, (i) => items[i]!.tier)].map(([tier, group]) => {
      // Sections of one document are named under it once: that they are parts of one is how they relate.
      const byDoc = groupBy(group, (i) => (titleParts(items[i]!).section === undefined ? `#${i}` : titleParts(items[i]!).doc));
      const named = [...byDoc.values()].map((members) =>
        members.length === 1
          ? `${nameOf(items[members[0]!]!)} ${cited(members[0]!)}`
          : `${firstWords(titleParts(items[members[0]!]!).doc, TITLE_WORDS)}: ${members
              .map((i) => `${firstWords(titleParts(items[i]!).section!, 4)} ${cited(i)}`)
              .join(', ')}`,
      );
      return { text: `${TIER_LABEL[tier] ?? 'Also'}: ${named.join('; ')}.`, cites: [...byDoc.values()].flat().map((i) => items[i]!.id) };
    });
  };
  // Words every item named holds are said once, after them: listed after each, they read
  // "(ruler, shard, tenant)" three times and told the items apart by nothing. One word in common
  // stays in each list: saying it apart costs more words than it saves.
  const firstHeld = answers.length > 1 ? held[answers[0]!]!.map((w) => said(answers[0]!, w)) : [];
  const shared = new Set(firstHeld.filter((word) => answers.every((i) => held[i]!.some((w) => said(i, w) === word))));
  if (shared.size < 2) return fitWords(tierSentences(new Set()));
  const common = andList(listedWords(answers[0]!, new Set(firstHeld.filter((word) => !shared.has(word))), MAX_WORDS_LISTED + 1));
  // Three answers named by at most 9 words and cited with 3 more fit in 70 words with this sentence.
  const fitted = fitWords(tierSentences(shared), MAX_WORDS - wordCount(`All three mention ${common}.`));
  return { text: `${fitted.text} ${answers.length === 2 ? 'Both' : 'All three'} mention ${common}.`, cites: fitted.cites };
}

/** Words as English lists them: "a and b", "a, b and c". */
const andList = (words: string[]) => (words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`);

function groupBy<T>(list: T[], key: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const t of list) out.set(key(t), [...(out.get(key(t)) ?? []), t]);
  return out;
}

/** The default synthesizer: local, deterministic. Throws an AbortError when `signal` has fired. */
export function localSynthesizer(): Synthesizer {
  return {
    name: 'local-guide-v3',
    fromSentItems: true,
    async synthesize(about, items, signal, touching) {
      if (signal?.aborted) throw new DOMException('local synthesis aborted', 'AbortError');
      return synthesizeLocally(about, items, touching);
    },
  };
}
