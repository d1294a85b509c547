// How many values a JSON text holds, counted without parsing it: JSON.parse of 16 MiB of `{}`
// (5.6 million objects) held the event loop 3.6 s, and the walks after it longer (a hostile
// review's docs pack). A text of more values than its reader wants is refused before the parse.

/**
 * The `[`, `{` and `,` outside strings, up to one past `limit` (it stops there): one per array or
 * object member after the first, and one per array or object, so at least the text's values less
 * one and at most twice them (an empty `{}` counts as a value and as a container). The text is taken
 * as JSON; on one that is not, the count means nothing, and JSON.parse says so after.
 */
export function countJsonValues(text: string, limit: number): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // To the string's closing quote: the first one not escaped by an odd run of backslashes.
      let end = i;
      for (;;) {
        end = text.indexOf('"', end + 1);
        if (end < 0) return count;
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
        if (slashes % 2 === 0) break;
      }
      i = end;
    } else if (c === 0x2c || c === 0x5b || c === 0x7b) {
      if (++count > limit) return count;
    }
  }
  return count;
}

/**
 * Whether a parsed JSON value holds at most `limit` values (itself, and each array item and
 * object member, all the way down), counted only until it knows: a value of millions answers
 * after `limit` of them.
 */
export function holdsAtMost(value: unknown, limit: number): boolean {
  let left = limit;
  const stack: unknown[] = [value];
  while (stack.length) {
    if (--left < 0) return false;
    const v = stack.pop();
    if (v !== null && typeof v === 'object') {
      const items = Array.isArray(v) ? v : Object.values(v);
      if (items.length > left) return false;
      for (const item of items) stack.push(item);
    }
  }
  return true;
}
