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

/** The first value in `input` that cannot be stored, or undefined when there is none. */
export function findHostileValue(input: unknown, maxDepth = MAX_INPUT_DEPTH): HostileValue | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: input, path: '', depth: 0 }];
  while (stack.length) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = problemOf(value);
      if (problem) return { path, message: problem };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= maxDepth) return { path, message: `nests deeper than ${maxDepth} levels` };
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    for (const [key, child] of entries) {
      const childPath = path ? `${path}.${key}` : key;
      const keyProblem = problemOf(key);
      if (keyProblem) return { path: childPath, message: `has a field name that ${keyProblem}` };
      // A JavaScript object given this key by assignment takes it as its prototype, not a field:
      // refused, rather than carried where some later copy would drop it or worse.
      if (key === '__proto__') return { path: childPath, message: 'is a field name (__proto__) that cannot be stored' };
      stack.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
  return undefined;
}
