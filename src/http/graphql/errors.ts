// GraphQL errors as the clients read them: `{message, locations, path, extensions: {code}}`.
// The SDK raises errors[0].message, so a message carries the per-field failures too; they are
// also listed in extensions.errors. Codes follow common GraphQL server practice.
import { GraphQLError, type SourceLocation } from 'graphql';
import { ApiError, logUnexpected, unexpectedProblem } from '../problem.js';
import type { Logger } from '../../domain/logger.js';

export interface GraphQLErrorJson {
  message: string;
  locations?: readonly SourceLocation[];
  path?: readonly (string | number)[];
  extensions: { code: string; errors?: string[] };
}

const CODES: Record<number, string> = {
  400: 'BAD_USER_INPUT',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  422: 'BAD_USER_INPUT',
  429: 'RATE_LIMITED',
  501: 'NOT_IMPLEMENTED',
  503: 'SERVICE_UNAVAILABLE',
};

export function codeFor(status: number): string {
  return CODES[status] ?? (status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST');
}

type Where = Pick<GraphQLErrorJson, 'locations' | 'path'>;

function where(error: GraphQLError): Where {
  return { ...(error.locations ? { locations: error.locations } : {}), ...(error.path ? { path: error.path } : {}) };
}

export function apiErrorJson(error: ApiError, at: Where = {}, code = codeFor(error.status)): GraphQLErrorJson {
  const errors = error.errors;
  return {
    message: errors ? `${error.message}: ${errors.join('; ')}` : error.message,
    ...at,
    extensions: { code, ...(errors ? { errors } : {}) },
  };
}

/** An error raised by GraphQL itself before execution (parse, validation). */
export function requestErrorJson(error: GraphQLError, code: string): GraphQLErrorJson {
  return { message: error.message, ...where(error), extensions: { code } };
}

/**
 * An error raised while executing: a service's ApiError keeps its meaning; one GraphQL raised
 * (a variable of the wrong type) is the caller's; anything else is logged and answered as
 * REST would (500, or 503 while the database is away).
 */
export function executionErrorJson(error: GraphQLError, log: Logger): GraphQLErrorJson {
  const original = error.originalError;
  if (original instanceof ApiError) return apiErrorJson(original, where(error));
  // GraphQL's own (a variable that does not fit its type) carry no cause or one of GraphQL's.
  if (original === undefined || original instanceof GraphQLError) return requestErrorJson(error, 'BAD_USER_INPUT');
  logUnexpected(log, original, 'GraphQL operation failed');
  return apiErrorJson(unexpectedProblem(original), where(error));
}
