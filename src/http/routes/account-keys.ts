// REST v2 account API keys: list, create (the secret is in this answer only) and revoke, for the
// caller's account. The auth hook already refuses a read-only key anything but GET and a key
// limited to endpoints everything but their queues; the service keeps a key from making one with
// more than it has. Revoking the key making the call is allowed: the call succeeds and the next
// one with that key answers 401.
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/services.js';
import type { ApiKeyRecord } from '../../store/store.js';
import { problemResponses } from '../schemas/common.js';
import { ApiKeyIdParams, ApiKeyResponse, ApiKeysResponse, CreateApiKeyBody, CreatedApiKeyResponse } from '../schemas/account-keys.js';

const tags = ['Account'];

function view(key: ApiKeyRecord, now: number) {
  const status = key.revokedAt ? 'REVOKED' : key.expiresAt && Date.parse(key.expiresAt) <= now ? 'EXPIRED' : 'ACTIVE';
  return {
    id: key.id,
    name: key.name,
    permission: key.permission,
    endpointIds: key.endpointIds,
    rateLimitExempt: key.rateLimitExempt,
    createdAt: key.createdAt,
    expiresAt: key.expiresAt,
    revokedAt: key.revokedAt,
    status: status as 'ACTIVE' | 'EXPIRED' | 'REVOKED',
  };
}

export function accountKeyRoutes({ accountKeys, cluster }: Services): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/v2/account/keys',
      {
        schema: {
          tags,
          operationId: 'listApiKeys',
          summary: "List the account's API keys (never their secrets)",
          response: { 200: ApiKeysResponse, ...problemResponses() },
        },
      },
      async (request) => ({ keys: (await accountKeys.list(request.apiKey!.accountId)).map((key) => view(key, cluster.now())) }),
    );

    app.post(
      '/v2/account/keys',
      {
        schema: {
          tags,
          operationId: 'createApiKey',
          summary: 'Create an API key; the answer holds its secret, shown this once',
          description:
            'Needs a full key. The new key has at most what the calling key has: a permission it includes (default full), ' +
            'an expiry no later than its own, and rate-limit exemption only if it is exempt (otherwise 403). ' +
            'Endpoints named must be the account’s (otherwise 422).',
          body: CreateApiKeyBody,
          response: { 201: CreatedApiKeyResponse, ...problemResponses(400, 422) },
        },
      },
      async (request, reply) => {
        const { name, permission, endpointIds, expiresAt, rateLimitExempt } = request.body;
        const created = await accountKeys.create(request.apiKey!, {
          name,
          permission: permission ?? 'full',
          ...(endpointIds === undefined ? {} : { endpointIds }),
          ...(expiresAt === undefined ? {} : { expiresAt }),
          ...(rateLimitExempt === undefined ? {} : { rateLimitExempt }),
        });
        return reply.code(201).send({ ...view(created.record, cluster.now()), key: created.token });
      },
    );

    app.delete(
      '/v2/account/keys/:id',
      {
        schema: {
          tags,
          operationId: 'revokeApiKey',
          summary: 'Revoke an API key at once, on every replica',
          description:
            'The key answers 401 from the next request on. Revoking the key making this call is allowed: this call ' +
            'succeeds, and the key is refused from then on. Revoking a revoked key changes nothing.',
          params: ApiKeyIdParams,
          response: { 200: ApiKeyResponse, ...problemResponses(404) },
        },
      },
      async (request) => view(await accountKeys.revoke(request.apiKey!.accountId, request.params.id), cluster.now()),
    );
  };
}
