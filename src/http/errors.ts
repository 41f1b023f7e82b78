// Renders every failure as application/problem+json: thrown ApiErrors, schema failures,
// Fastify's own errors (bad JSON, wrong content type, oversized body), unknown routes and methods.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { ApiError, PROBLEM_CONTENT_TYPE, logUnexpected, unexpectedProblem } from './problem.js';
import { describeValidationErrors } from './validation.js';
import { discardRestOfBody } from './discard-body.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Status for a request whose body, query or path fails its route schema: 422 on the management API, 400 on the queue API. */
    schemaErrorStatus?: number;
  }
}

export function sendProblem(reply: FastifyReply, error: ApiError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.status).type(PROBLEM_CONTENT_TYPE).send(error.toBody());
}

function toApiError(error: FastifyError, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  if (error.validation) {
    const part = error.validationContext ?? 'body';
    // A query string breaks its schema as a body does: 422 on the management API (decision 1).
    const status = request.routeOptions.config.schemaErrorStatus ?? 422;
    const what = part === 'body' ? 'request body' : `request ${part}`;
    return new ApiError(status, `the ${what} failed validation`, describeValidationErrors(error.validation, part));
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, `content type '${request.headers['content-type'] ?? ''}' is not supported; send application/json`);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, `request body exceeds the ${request.routeOptions.bodyLimit ?? 0} byte limit of this operation`);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError(400, 'the request body is empty but its content type says JSON', ['body: is required']);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError(400, `the request body is not valid JSON: ${error.message}`, [`body: ${error.message}`]);
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
    return new ApiError(400, `the request body is not valid JSON: ${error.message}`, [`body: ${error.message}`]);
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return new ApiError(status, error.message);
  return unexpectedProblem(error);
}

/** Installs the error and not-found handlers; answers 405 with Allow for a known path and wrong method. */
export function installProblemHandlers(app: FastifyInstance): void {
  const knownRoutes = FindMyWay({ ignoreTrailingSlash: true });
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      knownRoutes.on(method as HTTPMethod, route.url, () => undefined);
    }
  });

  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const problem = toApiError(error, request);
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') await discardRestOfBody(request);
    if (problem.status >= 500) logUnexpected(request.log, error, 'request failed');
    return sendProblem(reply, problem);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((method) => knownRoutes.find(method as HTTPMethod, path) !== null);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendProblem(reply, new ApiError(405, `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}`));
    }
    return sendProblem(reply, new ApiError(404, `no route ${request.method} ${path}`));
  });
}
