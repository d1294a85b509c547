// Validation at every edge: a valibot schema's verdict as the one validation_failed error, with
// every issue named by its path.
import * as v from 'valibot';
import { AppError } from '../errors.js';

export interface ValidationIssue {
  path: string;
  message: string;
}

/** Parses input against a schema, or throws validation_failed listing every issue by path. */
export function parseInput<S extends v.GenericSchema>(schema: S, input: unknown, what = 'input'): v.InferOutput<S> {
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
