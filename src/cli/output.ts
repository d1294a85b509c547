// How commands print: results as JSON on stdout, errors in the API's error shape on stderr.
import { ConfigError } from '../config/environment.js';
import { fromDatabaseError } from '../db/sqlstate.js';
import { AppError } from '../errors.js';

export const printJson = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

export class UsageError extends Error {}

/** Prints an error and returns the exit code: 2 for usage and input errors, 1 otherwise. */
export function reportError(err: unknown): number {
  if (err instanceof UsageError) {
    process.stderr.write(`doco: ${err.message}\nRun \`doco help\` for usage.\n`);
    return 2;
  }
  if (err instanceof ConfigError) {
    process.stderr.write(`doco: ${err.message}\n`);
    return 2;
  }
  const appErr = err instanceof AppError ? err : fromDatabaseError(err);
  if (appErr) {
    process.stderr.write(`${JSON.stringify(appErr.toBody())}\n`);
    return appErr.code === 'validation_failed' ? 2 : 1;
  }
  process.stderr.write(`doco: ${(err as Error)?.stack ?? String(err)}\n`);
  return 1;
}
