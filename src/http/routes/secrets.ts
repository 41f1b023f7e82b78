// Per-account secrets (Gantry's own group; the serverless spec has none): thin routes over
// AccountSecretService. Responses carry the name and times only; the value is write-only.
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/services.js';
import type { SecretRecord } from '../../store/secret-store.js';
import { problemResponses } from '../schemas/common.js';
import { CreateSecretBody, ListSecretsResponse, RotateSecretBody, SecretNameParams, SecretResponse } from '../schemas/secrets.js';

const tags = ['Secrets'];

const secretView = ({ name, createdAt, updatedAt }: SecretRecord) => ({ name, createdAt, updatedAt });

export function secretRoutes({ accountSecrets }: Services): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const account = (apiKey: { accountId: string } | undefined) => apiKey!.accountId;

    app.get(
      '/v2/secrets',
      {
        schema: {
          tags,
          operationId: 'listSecrets',
          summary: "List the caller's secrets (names and times, never values)",
          response: { 200: ListSecretsResponse, ...problemResponses() },
        },
      },
      async (request) => ({ secrets: (await accountSecrets.list(account(request.apiKey))).map(secretView) }),
    );

    app.post(
      '/v2/secrets',
      {
        schema: {
          tags,
          operationId: 'createSecret',
          summary: 'Store a secret that endpoint and template env values reference as {{ RUNPOD_SECRET_<name> }}',
          description:
            'The value is stored encrypted and never returned. Schema violations answer 422; a name already used in the ' +
            'account answers 409; a deployment without a usable secret key answers 503.',
          body: CreateSecretBody,
          response: { 201: SecretResponse, ...problemResponses(409, 422, 503) },
        },
      },
      async (request, reply) => reply.code(201).send(secretView(await accountSecrets.create(account(request.apiKey), request.body))),
    );

    app.get(
      '/v2/secrets/:name',
      {
        schema: {
          tags,
          operationId: 'getSecret',
          summary: "Get one of the caller's secrets (name and times, never the value)",
          params: SecretNameParams,
          response: { 200: SecretResponse, ...problemResponses(404) },
        },
      },
      async (request) => secretView(await accountSecrets.get(account(request.apiKey), request.params.name)),
    );

    app.patch(
      '/v2/secrets/:name',
      {
        schema: {
          tags,
          operationId: 'rotateSecret',
          summary: "Rotate a secret's value",
          description: 'Workers started after the rotation get the new value; running workers keep the one they started with.',
          params: SecretNameParams,
          body: RotateSecretBody,
          response: { 200: SecretResponse, ...problemResponses(404, 422, 503) },
        },
      },
      async (request) => secretView(await accountSecrets.rotate(account(request.apiKey), request.params.name, request.body.value)),
    );

    app.delete(
      '/v2/secrets/:name',
      {
        schema: {
          tags,
          operationId: 'deleteSecret',
          summary: 'Delete a secret',
          description: 'Refused with 400 naming the endpoints and templates whose env references the secret.',
          params: SecretNameParams,
          response: { 204: Type.Null(), ...problemResponses(400, 404) },
        },
      },
      async (request, reply) => {
        await accountSecrets.delete(account(request.apiKey), request.params.name);
        return reply.code(204).send(null);
      },
    );
  };
}
