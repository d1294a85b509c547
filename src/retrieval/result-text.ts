// A search result's text: the record's Markdown as an agent reads it (text/readable/: links as
// their text, comments and link definitions left out), without the `# Title` line that repeats
// the result's title, cut as the brief cuts an item sent in full (code kept as a fenced block,
// the cut at a sentence end, marked "…"). Its raw prose was cut mid-word and mid-address
// ("outlined in [ADR-059](https").
import { readableText } from '../text/readable/readable-text.js';
import { excerpt, withoutTitleLine } from '../text/readable/excerpt.js';
import { CANDIDATE_TEXT_CHARS } from './candidates.js';

/** The mark of a text that goes on past what was loaded. */
const GOES_ON = ' …';

/**
 * At most `max` characters. `prose` is the record's text as loadCandidates reads it: its first
 * CANDIDATE_TEXT_CHARS, so a text of that length may go on, and is marked cut when it is all sent.
 */
export function resultText(prose: string, title: string, max: number): string {
  const readable = withoutTitleLine(readableText(prose), title);
  if (!readable.trim()) return title.slice(0, max);
  const mayGoOn = prose.length >= CANDIDATE_TEXT_CHARS;
  const room = mayGoOn ? max - GOES_ON.length : max;
  // An excerpt may pass its length by a closing fence: asked again for that much less.
  let text = excerpt(readable, room, true);
  for (let ask = room; text.length > room && ask > 1;) {
    ask = Math.max(1, ask - (text.length - room));
    text = excerpt(readable, ask, true);
  }
  return mayGoOn && !/(?:…|\bcut)$/.test(text) ? `${text}${GOES_ON}` : text;
}
