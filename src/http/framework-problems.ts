// Problems for what fails before a route runs: the router's own errors (bad percent-encoding,
// an over-long path parameter) and Node's HTTP parser (malformed requests, oversized headers),
// so even those answers are application/problem+json.
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../domain/errors.js';
import { writeSocketProblem } from './raw-problem.js';
import { sendProblem } from './errors.js';

/** Longest path parameter the router takes: above the longest id the API allows (worker ids, 128). */
export const MAX_PATH_PARAM_LENGTH = 256;

/** Fastify's `frameworkErrors`: errors raised while routing, before any hook runs. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  void sendProblem(reply, routingProblem(error, request));
}

function routingProblem(error: FastifyError, request: FastifyRequest): ApiError {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return new ApiError(400, 'the request path is not valid percent-encoding');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError(414, `a path segment is longer than ${MAX_PATH_PARAM_LENGTH} characters`);
    default:
      request.log.error({ err: error }, 'routing failed');
      return new ApiError(500, 'an internal error occurred; it has been logged');
  }
}

function clientErrorProblem(code: string | undefined): ApiError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(431, 'the request headers are too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError(408, 'the request was not received in time');
    default:
      return new ApiError(400, 'the request is not valid HTTP');
  }
}

/** Fastify's `clientErrorHandler`: Node's HTTP parser refused the request before it was one. */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection or a destroyed socket has no one left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  writeSocketProblem(socket, clientErrorProblem(error.code));
}
