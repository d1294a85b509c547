// The principal name rule alone (src/auth/principal-name.ts): what it refuses and why, and its
// length counted as Postgres counts nodes.title's (characters, not UTF-16 units).
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { PRINCIPAL_NAME_MAX, principalNameProblem, PrincipalNameSchema } from '../../src/auth/principal-name.js';

describe('principalNameProblem', () => {
  it.each([
    ['cli:ana', undefined],
    ['agent:claude-code@shop', undefined],
    ['Ana Lima', undefined],
    ['github', undefined],
    ['', 'must not be blank'],
    ['\u00a0\u2003', 'must not be blank'],
    ['ana ', 'must not begin or end with white space'],
    ['a\tb', 'must not hold control characters'],
    ['a\u0085b', 'must not hold control characters'],
    ['agent:', 'must name the agent after "agent:" (agent:<agent>@<checkout>)'],
    ['agent: x', 'must name the agent after "agent:" (agent:<agent>@<checkout>)'],
  ])('%j: %s', (name, problem) => {
    expect(principalNameProblem(name)).toBe(problem);
    expect(v.safeParse(PrincipalNameSchema, name).success).toBe(problem === undefined);
  });

  it('counts characters as Postgres does: 300 astral ones pass, 301 do not', () => {
    expect(PRINCIPAL_NAME_MAX).toBe(300);
    expect(principalNameProblem('😀'.repeat(300))).toBeUndefined();
    expect(principalNameProblem('😀'.repeat(301))).toBe('must be at most 300 characters');
  });
});
