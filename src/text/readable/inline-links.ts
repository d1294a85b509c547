// A Markdown link is its text where the docs are read: "[the IsCaughtUp method](https://github.com/
// cometbft/cometbft/blob/v0.38.x/blocksync/pool.go#L168)" shows "the IsCaughtUp method". Sent as
// an item's text, the address cost an agent 20–30 tokens a link (71 links in 40 briefs of 1,500
// tokens over the eval's docs) and said nothing it acts on; the record itself keeps it (`doco get`).
// A link to another page of the same docs ("[compactor](./compactor.md)") goes the same way:
// keeping those moved a target out of a 1,500-token brief's full texts on the eval, showing no
// address moved none (docs/eval.md, "Session 30"). A reference link ("[mempool][mempool-link]")
// shows its text: its definition is left out (link-definitions.ts) or lies in another section.
// Outside fenced code and code spans, where such markup is code; images are read before
// (image-links.ts).
import { replaceOutsideCodeSpans } from './code-spans.js';
import { outsideFences } from './fences.js';

// Bounded like image-links.ts: each try reads at most ~1,500 characters, so markup that never
// closes costs time linear in the text. A destination may hold one level of parentheses
// ("…/wiki/Heap_(data_structure)"), a title after it, or be written in angle brackets.
const TEXT = String.raw`\[((?:[^\[\]\n]|\[[^\[\]\n]{0,100}\]){1,300})\]`;
const DESTINATION = String.raw`(?:<[^<>\n]{0,800}>|(?:[^()\s]|\([^()\s]{0,200}\)){0,800})`;
const TITLE = String.raw`(?:[ \t]+(?:"[^"\n]{0,300}"|'[^'\n]{0,300}'|\([^()\n]{0,300}\)))?`;
const INLINE = new RegExp(String.raw`(?<!!)${TEXT}\(\s*${DESTINATION}${TITLE}\s*\)`, 'g');
/** "[text][label]" and "[text][]"; not "[a] [b]" (a space between is two bracketed phrases). */
const REFERENCE = new RegExp(String.raw`(?<![!\]])${TEXT}\[[^\[\]\n]{0,100}\](?![(:])`, 'g');

/**
 * The text with its links shown as their text; but a link whose markup `keep` matches stays as
 * written (an item there for a path the work touches, named only in a link's address, shows it).
 */
export function linksAsTheirText(text: string, keep?: RegExp): string {
  if (!text.includes('](') && !text.includes('][')) return text;
  const asText = (m: RegExpMatchArray) => (keep?.test(m[0]) ? m[0] : m[1]!);
  return outsideFences(text, (prose) => replaceOutsideCodeSpans(replaceOutsideCodeSpans(prose, INLINE, asText), REFERENCE, asText));
}
