// The one error body for every HTTP failure, from AppError, database errors or anything else.
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { isBrokenConnection } from '../db/read-replica.js';
import { fromDatabaseError } from '../db/sqlstate.js';
import { AppError } from '../errors.js';

export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const fromDb = fromDatabaseError(err);
  if (fromDb) return fromDb;
  // The primary restarting or failing over: nothing of the request was committed, and it may
  // be sent again in a moment (503 with Retry-After), never a 500.
  if (isBrokenConnection(err)) return new AppError('unavailable', 'the database is unavailable for a moment: send it again shortly');
  return new AppError('internal', 'internal error');
}

export function errorResponse(c: Context, err: unknown) {
  const appErr = toAppError(err);
  if (appErr.code === 'internal') console.error('[doco] unexpected error on', c.req.method, c.req.path, err);
  // Worth sending again shortly: a busy body budget, the database or a provider down for a moment.
  if (appErr.code === 'unavailable') c.header('retry-after', '1');
  return c.json(appErr.toBody(), appErr.status as ContentfulStatusCode);
}
