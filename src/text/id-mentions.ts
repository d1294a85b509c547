// Where a text names a record id: as a whole token only, never inside a longer id or word. What a
// model's synthesis cites is read this way (src/providers/anthropic-synthesizer.ts), and held to
// the items a brief sent the same way (src/brief/synthesis-sent.ts).
import { escapeRegExp } from '../lib/escape-regexp.js';

/** Where `text` first names `id` as a whole token, or -1. */
export function mentionOf(text: string, id: string): number {
  return text.search(new RegExp(`(?<![\\p{L}\\p{N}_-])${escapeRegExp(id)}(?![\\p{L}\\p{N}_-])`, 'u'));
}
