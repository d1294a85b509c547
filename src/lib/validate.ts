// Validation at every edge: a valibot schema's verdict as the one validation_failed error, with
// its issues named by their paths.
import * as v from 'valibot';
import { AppError } from '../errors.js';
import { findHostileValue } from './hostile-input.js';
import { holdsAtMost } from './json-values.js';

export interface ValidationIssue {
  path: string;
  message: string;
}

/**
 * Parses input against a schema, or throws validation_failed listing its issues by path (every
 * one, up to 50, for an input of up to 10,000 values; the first for a larger one). Input
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
  // The first issue, then every issue only where there are few to find: valibot checks every item
  // of an array before the array's length, and a 2 MB body of a million bad items answered 84 MB
  // of issues after a 14 s stall (a hostile review).
  const first = v.safeParse(schema, input, { abortEarly: true });
  if (first.success) return first.output;
  const result = holdsAtMost(input, EVERY_ISSUE_UP_TO) ? v.safeParse(schema, input) : first;
  if (result.success) return result.output;
  const issues: ValidationIssue[] = result.issues.slice(0, MAX_ISSUES).map((i) => ({
    path: v.getDotPath(i) ?? '',
    message: describeIssue(i),
  }));
  const [named] = issues;
  throw new AppError('validation_failed', `${what} is invalid: ${named!.path ? `${named!.path} ` : ''}${named!.message}`, { issues });
}

/** Inputs of up to this many JSON values have every issue listed (up to MAX_ISSUES); larger ones their first. */
const EVERY_ISSUE_UP_TO = 10_000;
/** The issues an error lists at most. */
const MAX_ISSUES = 50;

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
