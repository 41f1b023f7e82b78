// The API key making the call, as it is known to the server (never its secret): lets a client
// such as the console learn what the key may do before offering it.
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { problemResponses, StringEnum } from '../schemas/common.js';

const CurrentKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  accountId: Type.String(),
  permission: StringEnum(['full', 'read', 'endpoints'], {
    description: 'full: everything; read: GET only; endpoints: only the queues of endpointIds',
  }),
  endpointIds: Type.Array(Type.String()),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
});

export function currentKeyRoutes(): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/v2/account/key',
      {
        schema: {
          tags: ['Account'],
          operationId: 'getCurrentKey',
          summary: 'The API key of this call: its name and what it may do (never its secret)',
          response: { 200: CurrentKey, ...problemResponses() },
        },
      },
      async (request) => {
        const key = request.apiKey!;
        return {
          id: key.id,
          name: key.name,
          accountId: key.accountId,
          permission: key.permission,
          endpointIds: key.endpointIds,
          expiresAt: key.expiresAt,
          createdAt: key.createdAt,
        };
      },
    );
  };
}
