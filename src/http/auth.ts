// Authentication, authorisation and rate limiting, run before the body is read.
// REST routes take `Authorization: Bearer <key>`; queue routes also accept the bare key.
import type { FastifyInstance, FastifyRequest, FastifyReply } from 'fastify';
import { serializeList } from 'structured-headers';
import type { ApiKeyRecord } from '../store/store.js';
import type { ApiKeyService } from '../services/api-keys.js';
import type { RateLimiter, RateDecision } from '../services/rate-limiter.js';
import type { WorkerCredentialService } from '../services/worker-credentials.js';
import { ApiError, forbidden, unauthorized } from './problem.js';

export type AuthMode = 'none' | 'bearer' | 'queue' | 'worker';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How the route authenticates; routes under /v2 default to 'bearer'. */
    auth?: AuthMode;
  }
  interface FastifyRequest {
    apiKey: ApiKeyRecord | undefined;
  }
}

const READ_METHODS = new Set(['GET', 'HEAD']);

const REASONS = {
  malformed: 'the API key is malformed',
  unknown: 'the API key is not valid',
  revoked: 'the API key has been revoked',
  expired: 'the API key has expired',
} as const;

function extractToken(request: FastifyRequest, mode: AuthMode): string {
  const header = request.headers.authorization;
  if (header === undefined || header.trim() === '') throw unauthorized('missing bearer token');
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (match) return match[1]!.trim();
  if (mode === 'queue' || mode === 'worker') return header.trim();
  throw unauthorized('the authorization header must be "Bearer <api key>"');
}

/** The endpoint a queue route operates on, if the route has one. */
function endpointOf(request: FastifyRequest): string | undefined {
  return (request.params as Record<string, string> | undefined)?.endpointId;
}

function authorise(key: ApiKeyRecord, request: FastifyRequest, mode: AuthMode): void {
  if (key.permission === 'full') return;
  if (key.permission === 'read') {
    if (!READ_METHODS.has(request.method)) throw forbidden('this API key is read-only');
    return;
  }
  const endpointId = endpointOf(request);
  if (mode !== 'queue' || endpointId === undefined) {
    throw forbidden('this API key may only use the queues of its endpoints');
  }
  if (!key.endpointIds.includes(endpointId)) throw forbidden(`this API key may not use endpoint ${endpointId}`);
}

export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    RateLimit: serializeList(
      decision.windows.map((w) => [w.name, new Map([['r', w.remaining], ['t', w.resetSeconds]])]),
    ),
    'RateLimit-Policy': serializeList(
      decision.windows.map((w) => [w.name, new Map([['q', w.quota], ['w', w.windowSeconds]])]),
    ),
  };
}

/** Workers hold a credential for one endpoint; it opens that endpoint's worker protocol and nothing else. */
async function authenticateWorker(request: FastifyRequest, credentials: WorkerCredentialService): Promise<void> {
  const endpointId = await credentials.verify(extractToken(request, 'worker'));
  if (endpointId === undefined) throw unauthorized('the worker credential is not valid');
  if (endpointId !== endpointOf(request)) throw forbidden('this worker credential belongs to another endpoint');
}

export function installAuth(
  app: FastifyInstance,
  keys: ApiKeyService,
  limiter: RateLimiter,
  credentials: WorkerCredentialService,
): void {
  app.decorateRequest('apiKey', undefined);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const configured = request.routeOptions.config.auth;
    const mode: AuthMode = configured ?? (request.routeOptions.url?.startsWith('/v2/') ? 'bearer' : 'none');
    if (mode === 'none') return;
    if (mode === 'worker') return authenticateWorker(request, credentials);
    const check = await keys.verify(extractToken(request, mode));
    if (!check.ok) throw unauthorized(REASONS[check.reason]);
    request.apiKey = check.key;
    if (!check.key.rateLimitExempt) {
      const decision = await limiter.consume(check.key.accountId);
      const headers = rateLimitHeaders(decision);
      reply.headers(headers);
      if (decision.exceeded) {
        const { name, quota, resetSeconds } = decision.exceeded;
        throw new ApiError(429, `rate limit exceeded: ${quota} requests per ${name}; the ${name} window resets in ${resetSeconds} s`, undefined, {
          ...headers,
          'Retry-After': String(resetSeconds),
        });
      }
    }
    authorise(check.key, request, mode);
  });
}
