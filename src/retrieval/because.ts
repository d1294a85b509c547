// "because: matched 'refund'": the ask's words a record's text contains, in the ask's order.
import { stem, tokenize } from '../text/tokenize.js';

const STOP = new Set(
  'the and for with from into that this these those what when where which will would should could about over under add make use new all any its our your their'.split(
    ' ',
  ),
);

/** The terms of a text as the index reads them, to test the ask's words against. */
export const termSet = (text: string): ReadonlySet<string> => new Set(tokenize(text));

/** `text` may be given as its termSet when the caller holds one already. */
export function explainMatch(about: string, text: string | ReadonlySet<string>, max = 3): string | undefined {
  const present = typeof text === 'string' ? termSet(text) : text;
  const matched: string[] = [];
  for (const w of about.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (w.length < 3 || STOP.has(w) || matched.includes(w)) continue;
    if (present.has(stem(w))) matched.push(w);
    if (matched.length === max) break;
  }
  return matched.length ? `matched ${matched.map((w) => `'${w}'`).join(', ')}` : undefined;
}
