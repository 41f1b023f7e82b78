// An endpoint's webhook signing secret, for its owner: read it to verify deliveries, rotate it
// when it may have leaked. Only full-access keys: a read-only key could forge deliveries with it.
// Gantry's own routes, not RunPod's; the endpoint's own representation does not change.
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/services.js';
import { forbidden } from '../../domain/errors.js';
import type { ApiKeyRecord } from '../../store/store.js';
import { problemResponses } from '../schemas/common.js';
import { EndpointIdParams } from '../schemas/serverless.js';

const tags = ['Serverless'];

const WebhookSecretResponse = Type.Object(
  { secret: Type.String({ description: 'whsec_ and base64 of 32 bytes; see docs/webhooks.md to verify deliveries with it' }) },
  { additionalProperties: false },
);

/** The owner's account, from a key that may see the secret. */
function ownerAccount(key: ApiKeyRecord | undefined): string {
  if (key!.permission !== 'full') throw forbidden('only a full-access API key may read or rotate webhook secrets');
  return key!.accountId;
}

export function webhookSecretRoutes({ webhookSecrets }: Services): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/v2/serverless/:id/webhook-secret',
      {
        schema: {
          tags,
          operationId: 'getWebhookSecret',
          summary: "The secret that signs the endpoint's webhook deliveries (Gantry only)",
          params: EndpointIdParams,
          response: { 200: WebhookSecretResponse, ...problemResponses(404, 503) },
        },
      },
      async (request) => ({ secret: await webhookSecrets.reveal(ownerAccount(request.apiKey), request.params.id) }),
    );

    app.post(
      '/v2/serverless/:id/webhook-secret/rotate',
      {
        schema: {
          tags,
          operationId: 'rotateWebhookSecret',
          summary: "Replace the endpoint's webhook secret; deliveries from now on are signed with the new one (Gantry only)",
          params: EndpointIdParams,
          response: { 200: WebhookSecretResponse, ...problemResponses(404, 503) },
        },
      },
      async (request) => ({ secret: await webhookSecrets.rotate(ownerAccount(request.apiKey), request.params.id) }),
    );
  };
}
