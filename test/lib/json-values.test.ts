// Counting a JSON text's values without parsing it: every array and object member and every
// container, never what a string holds.
import { describe, expect, it } from 'vitest';
import { countJsonValues, holdsAtMost } from '../../src/lib/json-values.js';

const parsedCount = (value: unknown): number =>
  Array.isArray(value)
    ? 1 + value.reduce<number>((n, v) => n + parsedCount(v), 0)
    : value && typeof value === 'object'
      ? 1 + Object.values(value).reduce<number>((n, v) => n + parsedCount(v), 0)
      : 1;

describe('countJsonValues', () => {
  it('counts at least the values a parse finds less one, and at most twice them', () => {
    for (const value of [
      [],
      {},
      [1, 2, 3],
      { a: [1, { b: 2 }], c: 'x' },
      [[[]], [{}], {}],
      { files: [{ path: 'a.md', content: 'x' }], openapi: { paths: { '/a': { get: {} } } } },
    ]) {
      const text = JSON.stringify(value);
      const counted = countJsonValues(text, Infinity);
      expect(counted, text).toBeGreaterThanOrEqual(parsedCount(value) - 1);
      expect(counted, text).toBeLessThanOrEqual(parsedCount(value) * 2);
    }
    expect(countJsonValues(JSON.stringify(Array(1000).fill(0)), Infinity)).toBe(1000);
  });

  it('never counts brackets, commas or quotes inside a string', () => {
    expect(countJsonValues(JSON.stringify(['[{,},]', 'say "a, b" \\ [', '\\', '"', 'x\\"']), Infinity)).toBe(5);
    expect(countJsonValues(JSON.stringify({ text: ','.repeat(10_000) }), Infinity)).toBe(1);
  });

  it('stops once past the limit', () => {
    const text = `[${Array(100_000).fill('{}').join(',')}]`;
    expect(countJsonValues(text, 10)).toBe(11);
    expect(countJsonValues(text, Infinity)).toBe(200_000);
  });

  it('ends at an unclosed string with what it counted', () => {
    expect(countJsonValues('[1, 2, "abc', Infinity)).toBe(3);
  });
});

describe('holdsAtMost', () => {
  it('counts the value, every item and every member, all the way down', () => {
    const value = { a: [1, 2, { b: 'x' }], c: null };
    // The object, a, its three items, b, c: 7.
    expect(parsedCount(value)).toBe(7);
    expect(holdsAtMost(value, 7)).toBe(true);
    expect(holdsAtMost(value, 6)).toBe(false);
    expect(holdsAtMost('text', 1)).toBe(true);
    expect(holdsAtMost('text', 0)).toBe(false);
  });

  it('answers for a value of millions as soon as it knows', () => {
    expect(
      holdsAtMost(
        Array.from({ length: 2_000_000 }, () => [1]),
        10_000,
      ),
    ).toBe(false);
    expect(holdsAtMost([Array.from({ length: 2_000_000 }, () => 1)], 10_000)).toBe(false);
  });
});
