// A Markdown link reference definition ("[adr-74]: https://github.com/…/pull/7503") is where a
// link's target is written, not text: at the end of a section it was sent as a run of URLs
// ("…[init-chain-response]: https://github.com/… [adr-74]: https://…"). Left out of an item's
// text outside fenced code, where such a line is code.
import { outsideFences } from './fences.js';

const DEFINITION = /^[ \t]{0,3}\[[^\]\n]+\]:[ \t]*\S+(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*(?:\n|$)/gm;

export function withoutLinkDefinitions(text: string): string {
  if (!text.includes(']:')) return text;
  return outsideFences(text, (prose) => prose.replace(DEFINITION, '')).trimEnd();
}
