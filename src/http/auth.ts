// Authentication, authorisation and rate limiting, run before the body is read.
// REST routes take `Authorization: Bearer <key>`; queue routes also accept the bare key.
// A call that counts as several requests (a batch of jobs) counts the rest itself once its body
// is valid (MoreRequests).
import type { FastifyInstance, FastifyRequest, FastifyReply } from 'fastify';
import type { Logger } from '../domain/logger.js';
import type { ApiKeyRecord } from '../store/store.js';
import type { ApiKeyService, KeyCheck } from '../services/api-keys.js';
import type { RateLimiter, RateDecision } from '../cluster/rate-limiter.js';
import type { WorkerCredentialService } from '../services/worker-credentials.js';
import { ApiError, forbidden, unauthorized } from './problem.js';
import type { FailedAuthLimiter } from './failed-auth-limiter.js';

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

function extractToken(header: string | undefined, mode: AuthMode): string {
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

/** Whether the key may make this call; load-balanced requests are checked as queue operations. */
export function authorise(key: ApiKeyRecord, method: string, endpointId: string | undefined, mode: AuthMode): void {
  if (key.permission === 'full') return;
  if (key.permission === 'read') {
    if (!READ_METHODS.has(method)) throw forbidden('this API key is read-only');
    return;
  }
  if (mode !== 'queue' || endpointId === undefined) {
    throw forbidden('this API key may only use the queues of its endpoints');
  }
  if (!key.endpointIds.includes(endpointId)) throw forbidden(`this API key may not use endpoint ${endpointId}`);
}

/**
 * The RateLimit and RateLimit-Policy fields: structured-field lists of a window's name (a string)
 * with integer parameters. Every counted request sends them, so they are written directly; a
 * general serializer spent 4 µs a request on them. The names are fixed words and the numbers
 * non-negative integers within a structured integer's range (quotas are at most 1e9), so nothing
 * needs escaping. test/auth.test.ts parses them back with a structured-field parser.
 */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  let limit = '';
  let policy = '';
  for (const w of decision.windows) {
    const separator = limit === '' ? '' : ', ';
    limit += `${separator}"${w.name}";r=${w.remaining};t=${w.resetSeconds}`;
    policy += `${separator}"${w.name}";q=${w.quota};w=${w.windowSeconds}`;
  }
  return { RateLimit: limit, 'RateLimit-Policy': policy };
}

/** Workers hold a credential for one endpoint; it opens that endpoint's worker protocol and nothing else. */
async function authenticateWorker(request: FastifyRequest, credentials: WorkerCredentialService): Promise<void> {
  const endpointId = await credentials.verify(extractToken(request.headers.authorization, 'worker'));
  if (endpointId === undefined) throw unauthorized('the worker credential is not valid');
  if (endpointId !== endpointOf(request)) throw forbidden('this worker credential belongs to another endpoint');
}

export function installAuth(
  app: FastifyInstance,
  keys: ApiKeyService,
  limiter: RateLimiter,
  credentials: WorkerCredentialService,
  failedAuth: FailedAuthLimiter,
): void {
  app.decorateRequest('apiKey', undefined);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const configured = request.routeOptions.config.auth;
    const mode: AuthMode = configured ?? (request.routeOptions.url?.startsWith('/v2/') ? 'bearer' : 'none');
    if (mode === 'none') return;
    if (mode === 'worker') return failedAuth.guard(request.raw, () => authenticateWorker(request, credentials));
    const { key, headers } = await failedAuth.guard(request.raw, () => authenticateKey(keys, limiter, request.headers.authorization, mode));
    request.apiKey = key;
    reply.headers(headers);
    authorise(key, request.method, endpointOf(request), mode);
  });
}

/**
 * The requests a call counts as beyond the one its authentication counted (decision 41). `count`
 * throws 429 or 422 when the windows have no room for them all, which then counts none of them;
 * `headers` are the rate-limit headers of the count (none while nothing more is counted).
 * `giveBack` takes the count back, for a keyed batch that another copy of it queued first.
 */
export class MoreRequests {
  headers: Record<string, string> = {};
  private countedAtMs: number | undefined;

  constructor(
    private readonly limiter: RateLimiter,
    private readonly key: ApiKeyRecord,
    private readonly requests: number,
    private readonly log: Logger,
  ) {}

  async count(): Promise<void> {
    if (this.key.rateLimitExempt || this.requests < 2) return;
    const countedAtMs = this.limiter.now();
    this.headers = admitted(await this.limiter.consume(this.key.accountId, countedAtMs, this.requests - 1), this.requests);
    this.countedAtMs = countedAtMs;
  }

  async giveBack(): Promise<void> {
    if (this.countedAtMs === undefined) return;
    const countedAtMs = this.countedAtMs;
    this.countedAtMs = undefined;
    this.headers = {};
    // Left counted, the requests only make the account meet its quota sooner: the call's answer stands.
    await this.limiter.giveBack(this.key.accountId, countedAtMs, this.requests - 1).catch((error: unknown) => {
      this.log.warn({ err: error }, 'the requests of a batch another copy queued could not be given back to the rate limits');
    });
  }
}

/** Counts a call against its key's account; answers the rate-limit headers, or throws 429. */
export async function countRequest(limiter: RateLimiter, key: ApiKeyRecord): Promise<Record<string, string>> {
  if (key.rateLimitExempt) return {};
  return admitted(await limiter.consume(key.accountId), 1);
}

/** The rate-limit headers of a count, or its refusal thrown. */
function admitted(decision: RateDecision, requests: number): Record<string, string> {
  const headers = rateLimitHeaders(decision);
  if (decision.exceeded) throw refusal(decision, headers, requests);
  return headers;
}

/** 429 while the windows fill up; 422 for a call that no window could ever admit. */
function refusal(decision: RateDecision, headers: Record<string, string>, requests: number): ApiError {
  const tooLarge = decision.windows.find((w) => w.quota < requests);
  if (tooLarge) {
    const detail = `this request counts as ${requests} requests, more than the ${tooLarge.name} quota of ${tooLarge.quota}: send fewer at a time`;
    return new ApiError(422, detail, undefined, headers);
  }
  const { name, quota, remaining, resetSeconds } = decision.exceeded!;
  // The call's first request was counted when it was authenticated.
  const counted = requests === 1 ? '' : ` (this request counts as ${requests}; the ${name} window had room for ${remaining + 1})`;
  return new ApiError(
    429,
    `rate limit exceeded: ${quota} requests per ${name}${counted}; the ${name} window resets in ${resetSeconds} s`,
    undefined,
    {
      ...headers,
      'Retry-After': String(resetSeconds),
    },
  );
}

/** The key a check found; throws 401 as a problem. */
function keyOf(check: KeyCheck): ApiKeyRecord {
  if (!check.ok) throw unauthorized(REASONS[check.reason]);
  return check.key;
}

/** Checks an API key without counting the call; throws 401 as a problem. */
export async function verifyKey(keys: ApiKeyService, authorization: string | undefined, mode: AuthMode): Promise<ApiKeyRecord> {
  return keyOf(await keys.verify(extractToken(authorization, mode)));
}

/**
 * Checks an API key and counts the call against its account's rate limits. Answers the key and
 * the rate-limit headers the response must carry; throws 401 or 429 as a problem. Every request
 * comes through here, so it awaits only the check and the count.
 */
export async function authenticateKey(
  keys: ApiKeyService,
  limiter: RateLimiter,
  authorization: string | undefined,
  mode: AuthMode,
): Promise<{ key: ApiKeyRecord; headers: Record<string, string> }> {
  const key = keyOf(await keys.verify(extractToken(authorization, mode)));
  if (key.rateLimitExempt) return { key, headers: {} };
  return { key, headers: admitted(await limiter.consume(key.accountId), 1) };
}
