// Rendering of client-facing errors as application/problem+json; the errors themselves live in the domain.
import { ApiError } from '../domain/errors.js';
import { whyStoreUnavailable } from '../store/unavailable.js';
import type { Logger } from '../domain/logger.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Seconds a client is told to wait before retrying while the database is unavailable. */
const DATABASE_RETRY_AFTER_SECONDS = 2;

/** What an unexpected failure tells the client: 503 to retry when the database is unreachable, else 500. */
export function unexpectedProblem(error: unknown): ApiError {
  if (whyStoreUnavailable(error)) {
    return new ApiError(503, 'the database is unavailable right now; retry shortly', undefined, {
      'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS),
    });
  }
  return new ApiError(500, 'an internal error occurred; it has been logged');
}

/** Logs an unexpected failure: a database that is not there is a warning naming the condition, anything else an error. */
export function logUnexpected(log: Logger, error: unknown, msg: string): void {
  const unavailable = whyStoreUnavailable(error);
  if (unavailable) log.warn({ code: unavailable.code, reason: unavailable.reason }, `${msg}: the database is unavailable, answered 503`);
  else log.error({ err: error }, msg);
}

export { titleFor } from '../domain/status-titles.js';
export {
  ApiError,
  Violations,
  badRequest,
  conflict,
  forbidden,
  notFound,
  unauthorized,
  unprocessable,
  type ProblemBody,
} from '../domain/errors.js';
