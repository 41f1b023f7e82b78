// REST v2 container registry credentials: thin routes over RegistryAuthService. Responses carry
// the id and name only; the username and password are write-only.
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/services.js';
import type { RegistryAuthRecord } from '../../store/registry-auth-store.js';
import { problemResponses } from '../schemas/common.js';
import { CreateRegistryBody, ListRegistriesResponse, RegistryIdParams, RegistryResponse } from '../schemas/registries.js';

const tags = ['Registries'];

const registryView = ({ id, name }: RegistryAuthRecord) => ({ id, name });

export function registryRoutes({ registryAuths }: Services): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const account = (apiKey: { accountId: string } | undefined) => apiKey!.accountId;

    app.get(
      '/v2/registries',
      {
        schema: {
          tags,
          operationId: 'listRegistries',
          summary: "List the caller's container registry credentials (names only)",
          response: { 200: ListRegistriesResponse, ...problemResponses() },
        },
      },
      async (request) => ({ registries: (await registryAuths.list(account(request.apiKey))).map(registryView) }),
    );

    app.post(
      '/v2/registries',
      {
        schema: {
          tags,
          operationId: 'createRegistry',
          summary: 'Store a container registry credential',
          description:
            'The username and password are stored encrypted and never returned. Schema violations answer 422; ' +
            'a name already used in the account answers 409; a deployment without a usable secret key answers 503.',
          body: CreateRegistryBody,
          response: { 201: RegistryResponse, ...problemResponses(409, 422, 503) },
        },
      },
      async (request, reply) => reply.code(201).send(registryView(await registryAuths.create(account(request.apiKey), request.body))),
    );

    app.get(
      '/v2/registries/:id',
      {
        schema: {
          tags,
          operationId: 'getRegistry',
          summary: "Get one of the caller's container registry credentials (name only)",
          params: RegistryIdParams,
          response: { 200: RegistryResponse, ...problemResponses(404) },
        },
      },
      async (request) => registryView(await registryAuths.get(account(request.apiKey), request.params.id)),
    );

    app.delete(
      '/v2/registries/:id',
      {
        schema: {
          tags,
          operationId: 'deleteRegistry',
          summary: 'Delete a container registry credential',
          description:
            'Refused with 400 naming the endpoints whose registry is this credential. Templates that name it ' +
            'lose the reference (their registry becomes null).',
          params: RegistryIdParams,
          response: { 204: Type.Null(), ...problemResponses(400, 404) },
        },
      },
      async (request, reply) => {
        await registryAuths.delete(account(request.apiKey), request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
