// A model's synthesis held to the items the brief sent. It runs beside the reranker, before the
// budget, so it may rest a claim on an item the budget then held back: the agent would read a
// claim, and an id, it was never given. Afterwards, a citation of a held-back item leaves its
// brackets, and a sentence left with nothing sent to rest on leaves the text. The model's words
// are not rewritten otherwise: a sentence is kept whole or dropped whole.
import type { Synthesis } from '../providers/synthesizer.js';
import { mentionOf } from '../text/id-mentions.js';

/** A citation group: `[decision_01…, rule_01…]`. */
const CITATION = /\s*\[([^\][]*)\]/g;

/**
 * Sentences: a stop (. ! ? …), with the citation that may follow it, then whitespace before a
 * capital, a digit or an opening quote or bracket ("e.g. the" stays one sentence).
 */
const SENTENCE_END = /(?<=[.!?…](?:\s*\[[^\][]*\])?)\s+(?=[\p{Lu}\p{N}"'“‘(])/u;

/** Whether `text` names `id` as a whole token (as citedIds counts a citation). */
const names = (text: string, id: string) => mentionOf(text, id) >= 0;

/** One sentence with its held-back citations pruned, or undefined when nothing sent is left to rest it on. */
function keepSentence(sentence: string, cited: readonly string[], sent: ReadonlySet<string>): string | undefined {
  const held = cited.filter((id) => !sent.has(id) && names(sentence, id));
  if (held.length === 0) return sentence;
  const pruned = sentence.replace(CITATION, (group, inner: string) => {
    const parts = inner.split(/[,;]/).map((p) => p.trim());
    const kept = parts.filter((p) => p && !held.includes(p));
    if (kept.length === parts.length) return group;
    return kept.length ? `${group.match(/^\s*/)![0]}[${kept.join(', ')}]` : '';
  });
  // A held-back item named in the prose itself cannot be cut out of a model's grammar.
  if (held.some((id) => names(pruned, id))) return undefined;
  return cited.some((id) => sent.has(id) && names(pruned, id)) ? pruned : undefined;
}

/**
 * The synthesis with every claim that rests only on held-back items taken out, and its cites
 * those of the items sent. `sent`: the ids of the items the brief sent (its tiers'). A synthesis
 * that cites nothing held back is returned as it is.
 */
export function keepToSent(synthesis: Synthesis, sent: ReadonlySet<string>): Synthesis {
  if (synthesis.cites.every((id) => sent.has(id))) return synthesis;
  const sentences = synthesis.text.split(SENTENCE_END);
  const kept = sentences.flatMap((s) => keepSentence(s, synthesis.cites, sent) ?? []);
  const text = kept.join(' ').trim();
  return { text, cites: synthesis.cites.filter((id) => sent.has(id) && names(text, id)) };
}
