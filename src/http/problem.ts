// Rendering of client-facing errors as application/problem+json; the errors themselves live in the domain.
import { ApiError } from '../domain/errors.js';
import { storeUnavailable } from '../store/unavailable.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Seconds a client is told to wait before retrying while the database is unavailable. */
const DATABASE_RETRY_AFTER_SECONDS = 2;

/** What an unexpected failure tells the client: 503 to retry when the database is unreachable, else 500. */
export function unexpectedProblem(error: unknown): ApiError {
  if (storeUnavailable(error)) {
    return new ApiError(503, 'the database is unavailable right now; retry shortly', undefined, { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) });
  }
  return new ApiError(500, 'an internal error occurred; it has been logged');
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
