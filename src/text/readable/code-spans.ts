// Inline code spans of Markdown ("`[a](b)`", "``x ` y``"): what is inside one is code, never
// markup, so what rewrites an item's prose (html-comments.ts, inline-links.ts, inline-html.ts) leaves them as
// they are.
// A run of backticks opens a span that the next run of the same length closes; a run never closed
// is text. Each run is looked past once, so the time grows with the text.

/** Where the run of backticks at `from` is closed by a run of the same length, or -1. */
export function codeSpanEnd(text: string, from: number): number {
  let run = 0;
  while (text[from + run] === '`') run++;
  for (let at = text.indexOf('`', from + run); at >= 0; at = text.indexOf('`', at)) {
    let n = 0;
    while (text[at + n] === '`') n++;
    if (n === run) return at + n;
    at += n;
  }
  return -1;
}

/** Where each code span of `text` starts and ends (after its closing run), in order. */
export function codeSpanRanges(text: string): Array<readonly [number, number]> {
  const spans: Array<readonly [number, number]> = [];
  let i = 0;
  for (let tick = text.indexOf('`'); tick >= 0; tick = text.indexOf('`', i)) {
    const end = codeSpanEnd(text, tick);
    if (end < 0) {
      // Backticks never closed are text: the whole run is, so a shorter run inside it opens nothing.
      i = tick;
      while (text[i] === '`') i++;
      continue;
    }
    spans.push([tick, end]);
    i = end;
  }
  return spans;
}

/**
 * `pattern`'s matches (a global expression) that start outside a code span replaced by what
 * `replace` gives (their own text to keep one); the rest of the text as it was.
 */
export function replaceOutsideCodeSpans(text: string, pattern: RegExp, replace: (match: RegExpMatchArray) => string): string {
  const spans = codeSpanRanges(text);
  let out = '';
  let from = 0;
  let span = 0;
  for (const m of text.matchAll(pattern)) {
    const at = m.index;
    // Matches and spans both come in order: one walk over the spans.
    while (span < spans.length && spans[span]![1] <= at) span++;
    if (span < spans.length && spans[span]![0] <= at) continue;
    out += text.slice(from, at) + replace(m);
    from = at + m[0].length;
  }
  return from === 0 ? text : out + text.slice(from);
}
