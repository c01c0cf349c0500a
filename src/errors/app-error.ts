import { ERROR_CODES, type ErrorCode } from './codes.js';

/** One parameter that was wrong, and what would have been accepted. */
export interface InvalidParam {
  name: string;
  reason: string;
  allowed?: readonly (string | number)[];
}

export interface AppErrorOptions {
  /** Extension members added to the problem document (snake_case keys). */
  extensions?: Record<string, unknown>;
  /** Response headers the error needs (Retry-After, rate-limit headers). */
  headers?: Record<string, string | number>;
  cause?: unknown;
}

/**
 * The one error type the services throw. The HTTP layer renders it as RFC 9457
 * problem+json; the worker and CLI read `retryable`.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly detail: string;
  readonly extensions: Record<string, unknown>;
  readonly headers: Record<string, string | number>;

  constructor(code: ErrorCode, detail: string, options: AppErrorOptions = {}) {
    const status = ERROR_CODES[code].status;
    // A 4xx is an expected answer to a client, never investigated by its stack: capturing one
    // would be most of the cost of a refusal (401, 403, 429 floods).
    const stackLimit = Error.stackTraceLimit;
    if (status < 500) Error.stackTraceLimit = 0;
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    Error.stackTraceLimit = stackLimit;
    this.name = 'AppError';
    this.code = code;
    this.status = status;
    this.detail = detail;
    this.extensions = options.extensions ?? {};
    this.headers = options.headers ?? {};
  }

  get retryable(): boolean {
    return this.status === 503 || this.status === 429;
  }

  static invalidParams(params: InvalidParam[], detail?: string): AppError {
    const first = params[0];
    const text =
      detail ??
      (first === undefined
        ? 'The request has invalid parameters.'
        : `Invalid value for '${first.name}': ${first.reason}.`);
    return new AppError('INVALID_PARAMETER', text, { extensions: { invalid_params: params } });
  }

  /** 429 TOO_MANY_ATTEMPTS for a throttle: Retry-After as a header and as `retry_after`. */
  static tooManyAttempts(
    detail: string,
    retryAfterSeconds: number,
    extensions: Record<string, unknown> = {},
  ): AppError {
    return new AppError('TOO_MANY_ATTEMPTS', detail, {
      headers: { 'retry-after': retryAfterSeconds },
      extensions: { retry_after: retryAfterSeconds, ...extensions },
    });
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
