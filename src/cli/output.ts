// How commands print: results as JSON on stdout, errors in the API's error shape on stderr.
import { ConfigError } from '../config/environment.js';
import { fromDatabaseError } from '../db/sqlstate.js';
import { AppError, OperatorError } from '../errors.js';

export const printJson = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

export class UsageError extends Error {}

/** An expected failure with its own one-line message (a server that does not answer, a port in use). */
export class CliError extends OperatorError {}

/** DOCO_DEBUG=1: an error's stack is printed after its line (never otherwise). */
const debugging = () => process.env.DOCO_DEBUG === '1';
const stackOf = (err: unknown) => (debugging() && err instanceof Error && err.stack ? `${err.stack}\n` : '');

/** Prints an error and returns the exit code: 2 for usage and input errors, 1 otherwise. */
export function reportError(err: unknown): number {
  if (err instanceof UsageError) {
    // One line: the mistake (and its likely fix, where one is known); `--help` has the rest.
    process.stderr.write(`doco: ${err.message}\n`);
    return 2;
  }
  if (err instanceof ConfigError) {
    process.stderr.write(`doco: ${err.message}\n`);
    return 2;
  }
  if (err instanceof OperatorError) {
    process.stderr.write(`doco: ${err.message}\n${stackOf(err)}`);
    return err.exitCode;
  }
  const appErr = err instanceof AppError ? err : fromDatabaseError(err);
  if (appErr) {
    process.stderr.write(`${JSON.stringify(appErr.toBody())}\n`);
    return appErr.code === 'validation_failed' ? 2 : 1;
  }
  // Unexpected: still one line (the message, and the system error's code when there is one).
  const e = err as (Error & { code?: unknown }) | undefined;
  const message = e instanceof Error ? e.message || e.name : String(err);
  const code = typeof e?.code === 'string' && !message.includes(e.code) ? ` (${e.code})` : '';
  process.stderr.write(`doco: ${message.split('\n')[0]}${code}${debugging() ? '' : ' — DOCO_DEBUG=1 shows where'}\n${stackOf(err)}`);
  return 1;
}
