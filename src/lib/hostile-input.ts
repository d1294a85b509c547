// Input that is well-formed JSON yet cannot be stored or indexed: a NUL character (Postgres text
// cannot hold one), a lone UTF-16 surrogate (no UTF-8 encoding exists for it), a field named
// `__proto__` (a JavaScript object cannot hold it as data), or nesting deeper than anything a
// record needs (the indexer and the hash chain walk bodies recursively). Found by an iterative
// walk, so the check itself cannot overflow the stack however deep the input.

/** Objects and arrays nest at most this deep in any input (a decision's body uses four). */
export const MAX_INPUT_DEPTH = 32;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export interface HostileValue {
  /** Where, as a dot path (`body.alternatives.0.option`); empty for the input itself. */
  path: string;
  message: string;
}

function problemOf(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain a NUL character (\\u0000)';
  if (LONE_SURROGATE.test(text)) return 'must not contain a lone UTF-16 surrogate (invalid Unicode)';
  return undefined;
}

/** A value on the walk's stack: where it is is kept as its key and its parent's frame, made a path only when named. */
interface Frame {
  value: unknown;
  key: string;
  parent: Frame | undefined;
  depth: number;
}

/** The dot path of a frame (`body.alternatives.0.option`): built only for the value found. */
function pathOf(frame: Frame): string {
  const keys: string[] = [];
  for (let f: Frame | undefined = frame; f?.parent; f = f.parent) keys.push(f.key);
  return keys.reverse().join('.');
}

/**
 * The first value in `input` that cannot be stored, or undefined when there is none. Paths are
 * made only for the value found and arrays are walked in place: a path string and a copy per
 * element made 5.6 million values cost 8 s (a hostile review's docs pack).
 */
export function findHostileValue(input: unknown, maxDepth = MAX_INPUT_DEPTH): HostileValue | undefined {
  const stack: Frame[] = [{ value: input, key: '', parent: undefined, depth: 0 }];
  while (stack.length) {
    const frame = stack.pop()!;
    const { value, depth } = frame;
    if (typeof value === 'string') {
      const problem = problemOf(value);
      if (problem) return { path: pathOf(frame), message: problem };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= maxDepth) return { path: pathOf(frame), message: `nests deeper than ${maxDepth} levels` };
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const child: unknown = value[i];
        // Numbers, booleans and null hold nothing to refuse: not even pushed.
        if (child !== null && (typeof child === 'string' || typeof child === 'object'))
          stack.push({ value: child, key: String(i), parent: frame, depth: depth + 1 });
      }
      continue;
    }
    for (const key of Object.keys(value)) {
      const keyProblem = problemOf(key);
      if (keyProblem)
        return { path: pathOf({ value: undefined, key, parent: frame, depth }), message: `has a field name that ${keyProblem}` };
      // A JavaScript object given this key by assignment takes it as its prototype, not a field:
      // refused, rather than carried where some later copy would drop it or worse.
      if (key === '__proto__')
        return {
          path: pathOf({ value: undefined, key, parent: frame, depth }),
          message: 'is a field name (__proto__) that cannot be stored',
        };
      stack.push({ value: (value as Record<string, unknown>)[key], key, parent: frame, depth: depth + 1 });
    }
  }
  return undefined;
}
