// Rendering of client-facing errors as application/problem+json; the errors themselves live in the domain.
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

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
