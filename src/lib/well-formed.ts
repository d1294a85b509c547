// Text that is well-formed Unicode: a string cut by UTF-16 index may end inside a surrogate pair
// (an emoji, a rare CJK character), and the lone half that stays has no UTF-8 form. JSON carries
// it as `\ud83d`, which the model APIs refuse ("no low surrogate in string") and strict JSON
// parsers refuse (Codex reads hook output with serde_json): one record titled to split an emoji
// at a cut put one in every session start's answer (a hostile review).

const LONE = '[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]';
const HAS_LONE = new RegExp(LONE);
const EVERY_LONE = new RegExp(LONE, 'g');

/** `text.slice(0, max)`, one shorter when that would end between a surrogate pair's halves. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** The text with each lone surrogate replaced by U+FFFD (what a UTF-8 encoder would write for it). */
export const wellFormed = (text: string): string => (HAS_LONE.test(text) ? text.replace(EVERY_LONE, '\uFFFD') : text);

/** A JSON value with every string in it well-formed (keys too); the same value when none needed it. */
export function wellFormedDeep<T>(value: T): T {
  if (typeof value === 'string') return wellFormed(value) as T;
  if (Array.isArray(value)) return value.map((v) => wellFormedDeep(v)) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[wellFormed(k)] = wellFormedDeep(v);
    return out as T;
  }
  return value;
}
