// "because: matched 'refund'": the ask's words a record's text contains, in the ask's order.
import { stem, tokenize } from '../text/tokenize.js';

const STOP = new Set(
  (
    'the and for with from into that this these those what when where which will would should could about over under add make use new all any its our your their ' +
    // Words that join an ask's parts and name nothing in it: "matched 'give'" tells the agent nothing.
    'give gives take takes keep still even only then than such while way out own without never rather after before become becomes one each every some also just more most other same'
  ).split(' '),
);

/** The terms of a text as the index reads them, to test the ask's words against. */
export const termSet = (text: string): ReadonlySet<string> => new Set(tokenize(text));

/** `text` may be given as its termSet when the caller holds one already; `skip`: more words never named. */
export function explainMatch(
  about: string,
  text: string | ReadonlySet<string>,
  max = 3,
  skip: ReadonlySet<string> = new Set(),
): string | undefined {
  const present = typeof text === 'string' ? termSet(text) : text;
  const matched: string[] = [];
  for (const w of about.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (w.length < 3 || STOP.has(w) || skip.has(w) || matched.includes(w)) continue;
    if (present.has(stem(w))) matched.push(w);
    if (matched.length === max) break;
  }
  return matched.length ? `matched ${matched.map((w) => `'${w}'`).join(', ')}` : undefined;
}
