// Maps Postgres errors (our custom DCxxx SQLSTATEs and the standard integrity ones) to AppError,
// so a raw database error never reaches a client.
import { AppError, type ErrorCode } from '../errors.js';

/** Custom SQLSTATEs raised by sql/*.sql, and the API error each becomes. */
export const customSqlStates: Record<string, ErrorCode> = {
  DC001: 'lifecycle_violation', // forward-only lifecycle, retired is final, active edge needs active records
  DC002: 'conflict', // version rows are append-only
  DC003: 'validation_failed', // immutable column changed
  DC004: 'validation_failed', // cross-workspace reference
  DC005: 'lifecycle_violation', // records and edges are retired, never deleted
  DC006: 'policy_blocked', // a template rule (allowed types, required fields) is broken
  DC007: 'forbidden', // an agent: principal asked for what needs a person's review (sql/agent_review.sql)
  DC008: 'conflict', // a live edge of that type already joins those records (sql/apply_changeset.sql)
  DC009: 'forbidden', // another workspace holds the deployment credential a connector reads through (sql/connectors.sql)
  DC010: 'conflict', // a lifecycle move named a version the record or edge no longer has (sql/apply_changeset.sql)
  DC011: 'forbidden', // a token, console session or sign-in link for a retired principal (sql/workspaces.sql)
};

/** A custom error's DETAIL, when it is a JSON object: the AppError's details. */
function detailsOf(detail: string | undefined): Record<string, unknown> | undefined {
  if (!detail?.startsWith('{')) return undefined;
  try {
    return JSON.parse(detail) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

interface PgError {
  code?: string;
  message?: string;
  detail?: string;
  constraint_name?: string;
}

export function fromDatabaseError(err: unknown): AppError | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const e = err as PgError;
  if (!e.code) return undefined;
  const custom = customSqlStates[e.code];
  if (custom) return new AppError(custom, e.message ?? 'database rule violated', detailsOf(e.detail));
  switch (e.code) {
    case '23505':
      return new AppError('conflict', 'that already exists', { constraint: e.constraint_name });
    case '23503':
      return new AppError('not_found', 'a referenced record does not exist', { constraint: e.constraint_name });
    case '23514':
      return new AppError('validation_failed', 'a value breaks a database check', { constraint: e.constraint_name });
    case '22001':
      return new AppError('validation_failed', 'a value is too long');
    // numeric_value_out_of_range: a number past what its column holds.
    case '22003':
      return new AppError('validation_failed', 'a number is out of range');
    // invalid_parameter_value: a SQL function called with an argument it does not take (an
    // unknown derivation name, sql/derivations.sql).
    case '22023':
      return new AppError('validation_failed', e.message ?? 'a value is not one the database takes');
    // Two writes that lock the same records in opposite orders: Postgres aborts one, which
    // changed nothing and may simply be sent again.
    case '40P01':
    case '40001':
      return new AppError('conflict', 'the write collided with a concurrent one and changed nothing; send it again');
    default:
      return undefined;
  }
}

/** Rethrows database errors we understand as AppError; anything else propagates unchanged. */
export function rethrowAsAppError(err: unknown): never {
  throw fromDatabaseError(err) ?? err;
}
