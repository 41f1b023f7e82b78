// POST /graphql as RunPod's clients call it: the key in `?api_key=` (runpodctl) or
// `Authorization: Bearer` (Python SDK); `{query}` alone or with `variables` (possibly null).
// Only a failed authentication answers 401; everything else is 200 with GraphQL `errors`, which
// is what the SDK checks. Every answer carries the deprecation headers. Each root field of an
// operation counts against the rate limits as a request, on the replica that runs it.
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../services/services.js';
import { MoreRequests, countRequest, verifyKey } from '../auth.js';
import type { FailedAuthLimiter } from '../failed-auth-limiter.js';
import { ApiError, logUnexpected, unauthorized, unexpectedProblem } from '../problem.js';
import { DEPRECATION_HEADERS } from './deprecation.js';
import { apiErrorJson } from './errors.js';
import { sendProblem } from '../errors.js';
import { runGraphQL, type GraphQLRequest } from './execute.js';
import { executableSchema } from './schema.js';
import { rootResolvers } from './resolvers.js';
import { relayGraphQL, relaysToLeader } from './pod-relay.js';

/** The key from `?api_key=` when given, else the Authorization header. */
function credential(request: FastifyRequest): string {
  const fromQuery = (request.query as Record<string, unknown> | undefined)?.api_key;
  if (typeof fromQuery === 'string') {
    if (fromQuery.trim() === '') throw unauthorized('the api_key query parameter is empty');
    return `Bearer ${fromQuery.trim()}`;
  }
  const header = request.headers.authorization;
  if (header === undefined || header.trim() === '') {
    throw unauthorized('missing API key: pass ?api_key=<key> or the header Authorization: Bearer <key>');
  }
  return header;
}

/** Why a body is not a GraphQL request, or undefined when it is one. */
function problemWithBody(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the body must be a JSON object with a query string';
  const { query, variables, operationName } = body as Record<string, unknown>;
  if (typeof query !== 'string') return 'query: is required and must be a string';
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) {
    return 'variables: must be an object or null';
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string')
    return 'operationName: must be a string or null';
  return undefined;
}

/** Authentication failures are 401; any other failure is a GraphQL error with status 200. */
function sendError(reply: FastifyReply, error: ApiError, code?: string) {
  reply.headers(error.headers);
  return reply.code(error.status === 401 ? 401 : 200).send({ errors: [apiErrorJson(error, {}, code)], data: null });
}

/** A body that is not even a GraphQL request (bad JSON, no query). */
const notARequest = (reply: FastifyReply, why: string) =>
  sendError(reply, new ApiError(400, `not a GraphQL request: ${why}`), 'BAD_REQUEST');

/**
 * Answers a failure outside the handler: authentication's 401, and a body that is not JSON, which
 * counts as the request it is. Never rejects: it is not awaited.
 */
async function answerError(services: Services, error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.headers(DEPRECATION_HEADERS);
  if (error instanceof ApiError) return sendError(reply, error);
  if (error.statusCode === undefined || error.statusCode >= 500) return answerUnexpected(error, request, reply);
  try {
    if (request.apiKey) reply.headers(await countRequest(services.rateLimiter, request.apiKey));
  } catch (refusal) {
    return refusal instanceof ApiError ? sendError(reply, refusal) : answerUnexpected(refusal, request, reply);
  }
  return notARequest(reply, error.message);
}

function answerUnexpected(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  logUnexpected(request.log, error, 'GraphQL request failed');
  return sendError(reply, unexpectedProblem(error));
}

export function graphqlRoutes(services: Services, failedAuth: FailedAuthLimiter): FastifyPluginAsync {
  const schema = executableSchema(rootResolvers);
  return async (app) => {
    // This plugin is its own Fastify context: the hook runs for /graphql only, before the body is
    // read. The request is counted once it is known to stay on this replica.
    app.addHook('onRequest', async (request, reply) => {
      reply.headers(DEPRECATION_HEADERS);
      // Counted against the client like every other failed authentication: no unlimited guessing here.
      request.apiKey = await failedAuth.guard(request.raw, () => verifyKey(services.apiKeys, credential(request), 'bearer'));
    });
    app.post(
      '/graphql',
      {
        schema: { hide: true },
        config: { auth: 'none' },
        errorHandler: (error: FastifyError, request, reply): void => {
          void answerError(services, error, request, reply);
        },
      },
      async (request, reply) => {
        const key = request.apiKey!;
        const problem = problemWithBody(request.body);
        // Pods are run by the leading replica: their operations go there, as REST pod requests
        // do, and are counted there.
        const leader = services.pods.offered && !problem ? services.cluster.leaderAddress() : undefined;
        if (leader && relaysToLeader(request)) return relayGraphQL(leader, request, reply);
        reply.headers(await countRequest(services.rateLimiter, key));
        if (problem) return notARequest(reply, problem);
        // A refusal's headers (Retry-After, RateLimit) go on the answer, as an authentication's do.
        const countRequests = async (requests: number) => {
          try {
            const more = new MoreRequests(services.rateLimiter, key, requests, request.log);
            await more.count();
            reply.headers(more.headers);
          } catch (error) {
            if (error instanceof ApiError) reply.headers(error.headers);
            throw error;
          }
        };
        return runGraphQL(schema, request.body as GraphQLRequest, key, { accountId: key.accountId, services }, request.log, countRequests);
      },
    );
    // Other methods are answered here rather than by the app's 405, so they carry the deprecation headers too.
    app.route({
      method: ['GET', 'PUT', 'PATCH', 'DELETE'],
      url: '/graphql',
      schema: { hide: true },
      config: { auth: 'none' },
      handler: (request, reply) =>
        sendProblem(
          reply.header('allow', 'POST'),
          new ApiError(405, `${request.method} is not allowed on /graphql; send operations with POST`),
        ),
    });
  };
}
