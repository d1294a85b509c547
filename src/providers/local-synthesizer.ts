// The local synthesis: extractive, no model. It lifts the items' sentences that best answer the
// ask, binding tiers first, and cites each item it quotes; it writes nothing of its own.
//
// Form: sentences grouped by item, each group followed by its item's id in square brackets
// ("Refunds go through Stripe. [decision_01…] Never store card numbers. [rule_01…]"), the same
// form the Anthropic synthesizer asks its model for. At most 70 words, counted as whitespace-
// separated words with the citations included. No items gives { text: '', cites: [] }: the
// brief's `gaps` already say what nothing matched, and an empty synthesis is simply not shown.
import { bm25Idf, tokenize } from '../text/tokenize.js';
import type { Synthesis, SynthesisItem, Synthesizer } from './synthesizer.js';

export const MAX_WORDS = 70;

/** Binding tiers first: a rule the agent must obey outweighs background of equal relevance. */
const TIER_WEIGHT: Record<string, number> = { must_obey: 1, already_decided: 0.85, in_motion: 0.7, background: 0.55 };
const OTHER_TIER_WEIGHT = 0.5;
const TIER_ORDER = ['must_obey', 'already_decided', 'in_motion', 'background'];
/** Enough to answer; more reads as a list, not a synthesis. */
const MAX_SENTENCES = 4;

interface Sentence {
  item: number;
  position: number;
  text: string;
  words: number;
  terms: Set<string>;
  score: number;
}

const wordCount = (text: string) => (text.match(/\S+/g) ?? []).length;
const tierRank = (tier: string) => (TIER_ORDER.includes(tier) ? TIER_ORDER.indexOf(tier) : TIER_ORDER.length);

/** Sentences of an item, markdown list and heading marks stripped; the title stands in for empty text. */
function sentencesOf(item: SynthesisItem): string[] {
  const body = item.text.trim() !== '' ? item.text : item.title;
  const out: string[] = [];
  for (const line of body.split(/\n+/)) {
    const cleaned = line
      .replace(/^\s*(?:#{1,6}|[-*+>]|\d+[.)])\s+/, '')
      .replace(/\s+/g, ' ')
      .trim();
    if (!cleaned) continue;
    for (const s of cleaned.split(/(?<=[.!?])\s+(?=["'(\[]?[\p{Lu}\p{N}])/u)) if (s.trim()) out.push(s.trim());
  }
  return out;
}

/** Light joining only: a sentence without closing punctuation gets a full stop. */
const closed = (s: string) => (/[.!?…:;]["')\]]?$/.test(s) ? s : `${s}.`);

/** Cut to `words` words, marking the cut with an ellipsis. */
function cutTo(s: string, words: number): string {
  const kept = s.split(/\s+/).slice(0, Math.max(1, words)).join(' ');
  return `${kept.replace(/[\s,;:.!?]+$/, '')}…`;
}

/**
 * Each sentence's score: IDF-weighted share of the ask's terms it holds (IDF over all sentences,
 * so a word every item repeats counts little), scaled by its tier, with a small lift for an
 * item's lead sentence and for items the brief ranked earlier.
 */
function scoreSentences(about: string, items: SynthesisItem[]): Sentence[] {
  const sentences: Sentence[] = [];
  items.forEach((item, i) => {
    sentencesOf(item).forEach((text, position) => {
      sentences.push({ item: i, position, text, words: wordCount(text), terms: new Set(tokenize(text)), score: 0 });
    });
  });
  const ask = [...new Set(tokenize(about))];
  const idf = new Map(ask.map((t) => [t, bm25Idf(sentences.length, sentences.filter((s) => s.terms.has(t)).length)]));
  const total = ask.reduce((sum, t) => sum + idf.get(t)!, 0);
  for (const s of sentences) {
    const matched = ask.reduce((sum, t) => sum + (s.terms.has(t) ? idf.get(t)! : 0), 0);
    const relevance = total > 0 ? matched / total : 0;
    const tier = TIER_WEIGHT[items[s.item]!.tier] ?? OTHER_TIER_WEIGHT;
    const lead = s.position === 0 ? 0.05 : 0;
    const rank = 0.05 / (1 + s.item);
    s.score = relevance > 0 ? tier * (relevance + lead + rank) : 0;
  }
  return sentences;
}

/**
 * The sentences to quote: the best-scoring ones that fit the word budget (their item's citation
 * included), one per item before any item gets a second. When nothing matches the ask at all, the
 * brief still judged these items relevant (by meaning, by touching): quote their lead sentences,
 * binding tiers first.
 */
function choose(sentences: Sentence[], items: SynthesisItem[]): Sentence[] {
  const matching = sentences.filter((s) => s.score > 0);
  const pool =
    matching.length > 0
      ? [...matching].sort((a, b) => b.score - a.score || a.item - b.item || a.position - b.position)
      : sentences
          .filter((s) => s.position === 0)
          .sort((a, b) => tierRank(items[a.item]!.tier) - tierRank(items[b.item]!.tier) || a.item - b.item);
  const firsts: Sentence[] = [];
  const seconds: Sentence[] = [];
  const led = new Set<number>();
  for (const s of pool) {
    (led.has(s.item) ? seconds : firsts).push(s);
    led.add(s.item);
  }
  const ordered = [...firsts, ...seconds];

  const chosen: Sentence[] = [];
  const seenText = new Set<string>();
  let used = 0;
  for (const s of ordered) {
    if (chosen.length >= MAX_SENTENCES) break;
    const key = s.text.toLowerCase();
    if (seenText.has(key)) continue;
    const citeCost = chosen.some((c) => c.item === s.item) ? 0 : 1;
    if (used + s.words + citeCost <= MAX_WORDS) {
      chosen.push(s);
      seenText.add(key);
      used += s.words + citeCost;
    } else if (chosen.length === 0) {
      // The best sentence alone is too long: quote its head rather than nothing.
      chosen.push({ ...s, text: cutTo(s.text, MAX_WORDS - 1), words: MAX_WORDS - 1 });
      used = MAX_WORDS;
    }
  }
  return chosen;
}

/** Writes the chosen sentences in reading order: binding tiers first, then the brief's order. */
function render(chosen: Sentence[], items: SynthesisItem[]): Synthesis {
  const byItem = new Map<number, Sentence[]>();
  for (const s of chosen) byItem.set(s.item, [...(byItem.get(s.item) ?? []), s]);
  const order = [...byItem.keys()].sort((a, b) => tierRank(items[a]!.tier) - tierRank(items[b]!.tier) || a - b);
  const parts = order.map((i) => {
    const quoted = byItem
      .get(i)!
      .sort((a, b) => a.position - b.position)
      .map((s) => closed(s.text));
    return `${quoted.join(' ')} [${items[i]!.id}]`;
  });
  return { text: parts.join(' '), cites: order.map((i) => items[i]!.id) };
}

export function synthesizeExtractively(about: string, items: SynthesisItem[]): Synthesis {
  if (items.length === 0) return { text: '', cites: [] };
  const chosen = choose(scoreSentences(about, items), items);
  return chosen.length === 0 ? { text: '', cites: [] } : render(chosen, items);
}

/** The default synthesizer: extractive, local, deterministic. Throws an AbortError when `signal` has fired. */
export function localSynthesizer(): Synthesizer {
  return {
    name: 'local-extractive-v1',
    async synthesize(about, items, signal) {
      if (signal?.aborted) throw new DOMException('local synthesis aborted', 'AbortError');
      return synthesizeExtractively(about, items);
    },
  };
}
