// Fastify's own JSON parser (with prototype-poisoning protection), behind the nesting limit.
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../domain/errors.js';
import { nestingProblemDetail, nestsDeeperThan } from './json-depth.js';
import { keepSourceOf } from './json-sources.js';

export function installJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  // Fastify reads text/plain bodies as strings; no route takes one, so they are refused (415) as other types are.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const encoding = request.headers['content-encoding'];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
      return done(new ApiError(415, `content encoding '${encoding}' is not supported; send the body uncompressed`), undefined);
    }
    const text = body.toString();
    // RunPod's Python client sends Content-Type: application/json on every call, bodiless ones too
    // (cancel, purge-queue): an empty body is no body, and a route that needs one says so itself.
    if (text.trim() === '') return done(null, undefined);
    if (nestsDeeperThan(text)) return done(new ApiError(400, nestingProblemDetail('the request body')), undefined);
    if (mayOverflow(text) && hasNonFiniteNumber(text)) {
      return done(new ApiError(400, 'the request body has a number too large to represent (it would be Infinity)'), undefined);
    }
    return parse(request, text, (error, value) => {
      // The default parser refuses these keys (prototype poisoning) with the error of invalid JSON.
      if (error && /"(__proto__|constructor)"\s*:/.test(text) && isJson(text)) {
        return done(new ApiError(400, 'the request body has a __proto__ or constructor.prototype key, which is refused'), undefined);
      }
      if (!error) keepSourceOf(value, text);
      done(error, value);
    });
  });
}

/** Only a huge exponent or a very long run of digits parses to Infinity: most bodies skip the check. */
function mayOverflow(text: string): boolean {
  return /[eE]\+?\d{3,}|\d{300,}/.test(text);
}

function hasNonFiniteNumber(text: string): boolean {
  let found = false;
  try {
    JSON.parse(text, (_key, value: unknown) => {
      if (typeof value === 'number' && !Number.isFinite(value)) found = true;
      return value;
    });
  } catch {
    // Not JSON at all: the real parser says so.
  }
  return found;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
