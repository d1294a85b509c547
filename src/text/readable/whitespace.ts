// Whitespace made single spaces, fast: a brief flattens the text of every item it sends.

/** Whether a UTF-16 unit is whitespace as `\s` and trim() read it (WhiteSpace and LineTerminator). */
function isSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/**
 * `text.replace(/\s+/g, ' ').trim()`, or, once more than `limit` characters are out, a prefix of
 * it longer than `limit`: a cut reads no further. One pass that copies only around the
 * whitespace it changes, where the regex rebuilt every text in full.
 */
export function flattenWhitespace(text: string, limit = Infinity): string {
  const n = text.length;
  let i = 0;
  while (i < n && isSpace(text.charCodeAt(i))) i++;
  let out = '';
  let from = i;
  while (i < n) {
    const c = text.charCodeAt(i);
    if ((c > 32 && c < 128) || !isSpace(c)) {
      i++;
      continue;
    }
    if (out.length + (i - from) > limit) return out + text.slice(from, i);
    let end = i + 1;
    while (end < n && isSpace(text.charCodeAt(end))) end++;
    if (end === n) return out + text.slice(from, i);
    if (c !== 32 || end > i + 1) {
      out += `${text.slice(from, i)} `;
      from = end;
    }
    i = end;
  }
  return out + text.slice(from);
}

/**
 * Where the character at `flatIndex` of `flattenWhitespace(text)` lies in `text` (a run of
 * whitespace, one space there, maps to the run's start), or `text.length` past its end: a passage
 * chosen on the flattened text is cut from the text as written, its lines kept.
 */
export function originalIndex(text: string, flatIndex: number): number {
  const n = text.length;
  let i = 0;
  while (i < n && isSpace(text.charCodeAt(i))) i++;
  for (let f = 0; i < n; f++) {
    if (f === flatIndex) return i;
    if (!isSpace(text.charCodeAt(i))) i++;
    else while (i < n && isSpace(text.charCodeAt(i))) i++;
  }
  return n;
}
