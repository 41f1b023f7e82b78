// Fastify's per-request lines (incoming, completed) at a level of the operator's choosing. On a
// busy server two lines per request at info drown the warnings and lifecycle lines, so they
// default to debug; a request that fails still logs at error.
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import type { GantryConfig } from '../config.js';
import { enabled } from './request-logger.js';

/**
 * GraphQL clients (runpodctl) put the API key in the URL; the logs get the URL without it. A
 * parameter is named as the server decodes it: `api%5Fkey` is api_key too.
 */
export function redactedUrl(url: string): string {
  const query = url.indexOf('?');
  if (query < 0) return url;
  const redacted = url
    .slice(query + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals < 0 ? pair : pair.slice(0, equals);
      return equals >= 0 && decodedName(name).toLowerCase() === 'api_key' ? `${name}=[REDACTED]` : pair;
    });
  return `${url.slice(0, query)}?${redacted.join('&')}`;
}

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/** The request as its log line shows it: everything as it is, but the URL without keys. */
function loggable(request: FastifyRequest): FastifyRequest {
  return Object.create(request, { url: { value: redactedUrl(request.url) } }) as FastifyRequest;
}

export class RequestLogController extends LogController {
  constructor(private readonly level: GantryConfig['requestLogLevel']) {
    super();
  }

  private enabled(log: FastifyBaseLogger): boolean {
    return enabled(this.level, log.level);
  }

  // Each line's fields are built only when its level is on: this runs on every request.
  override incomingRequest(request: FastifyRequest): void {
    if (this.enabled(request.log)) request.log[this.level]({ req: loggable(request) }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, _request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else if (this.enabled(reply.log)) reply.log[this.level]({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }

  override routeNotFound(request: FastifyRequest): void {
    if (this.enabled(request.log)) request.log[this.level]({ req: loggable(request) }, 'route not found');
  }
}
