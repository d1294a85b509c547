// Validation at every edge: a valibot schema's verdict as the one validation_failed error, with
// every issue named by its path.
import * as v from 'valibot';
import { AppError } from '../errors.js';
import { findHostileValue } from './hostile-input.js';

export interface ValidationIssue {
  path: string;
  message: string;
}

/**
 * Parses input against a schema, or throws validation_failed listing every issue by path. Input
 * that no schema should have to think about (a NUL, a lone surrogate, nesting past
 * MAX_INPUT_DEPTH) is refused first, naming the field.
 */
export function parseInput<S extends v.GenericSchema>(schema: S, input: unknown, what = 'input'): v.InferOutput<S> {
  const hostile = findHostileValue(input);
  if (hostile) {
    const issue = { path: hostile.path, message: hostile.message };
    throw new AppError('validation_failed', `${what} is invalid: ${hostile.path ? `${hostile.path} ` : ''}${hostile.message}`, {
      issues: [issue],
    });
  }
  const result = v.safeParse(schema, input);
  if (result.success) return result.output;
  const issues: ValidationIssue[] = result.issues.map((i) => ({
    path: v.getDotPath(i) ?? '',
    message: describeIssue(i),
  }));
  const first = issues[0]!;
  throw new AppError('validation_failed', `${what} is invalid: ${first.path ? `${first.path} ` : ''}${first.message}`, { issues });
}

function describeIssue(issue: v.BaseIssue<unknown>): string {
  if (issue.type === 'strict_object' && issue.input !== undefined && issue.expected === 'never') {
    return 'is not a known field';
  }
  if (issue.kind === 'schema' && issue.input === undefined) return 'is required';
  return issue.message;
}

/**
 * A JSON object (not an array, not null), every key kept as given. valibot's record() would take
 * an array as an empty object and drop the keys `constructor` and `prototype` without a word;
 * `__proto__` never gets this far (findHostileValue refuses it).
 */
export const jsonObject = (message = 'must be a JSON object') =>
  v.custom<Record<string, unknown>>((x) => typeof x === 'object' && x !== null && !Array.isArray(x), message);
