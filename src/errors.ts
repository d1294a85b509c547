// AppError and the one error shape every interface returns: { error: { code, message, details } }.

export type ErrorCode =
  | 'validation_failed'
  | 'not_found'
  | 'policy_blocked'
  | 'secret_detected'
  | 'lifecycle_violation'
  | 'unauthorized'
  | 'forbidden'
  | 'conflict'
  | 'request_timeout'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'expectation_failed'
  | 'misdirected_request'
  | 'headers_too_large'
  | 'unavailable'
  | 'internal';

export const httpStatusOf: Record<ErrorCode, number> = {
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  request_timeout: 408,
  conflict: 409,
  lifecycle_violation: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  expectation_failed: 417,
  misdirected_request: 421,
  policy_blocked: 422,
  secret_detected: 422,
  headers_too_large: 431,
  internal: 500,
  unavailable: 503,
};

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return httpStatusOf[this.code];
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.details === undefined ? {} : { details: this.details }) } };
  }
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: unknown };
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

/**
 * A failure an operator meets in normal use (no database in DOCO_HOME, a port in use, an index
 * another process keeps) whose message already says what to do: the command line prints it as
 * one line, with no stack.
 */
export class OperatorError extends Error {
  constructor(
    message: string,
    /** The command line's exit code. */
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = new.target.name;
  }
}
