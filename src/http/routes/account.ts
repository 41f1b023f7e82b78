// REST v2 account settings: the account's SSH public keys, thin routes over SshKeyService.
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/services.js';
import { problemResponses } from '../schemas/common.js';
import { SshKeysResponse, UpdateSshKeysBody } from '../schemas/account.js';

const tags = ['Account'];

export function accountRoutes({ sshKeys }: Services): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const account = (apiKey: { accountId: string } | undefined) => apiKey!.accountId;

    app.get(
      '/v2/account/ssh-keys',
      {
        schema: {
          tags,
          operationId: 'getSshKeys',
          summary: "List the account's SSH public keys",
          response: { 200: SshKeysResponse, ...problemResponses() },
        },
      },
      async (request) => ({ keys: await sshKeys.list(account(request.apiKey)) }),
    );

    app.put(
      '/v2/account/ssh-keys',
      {
        schema: {
          tags,
          operationId: 'updateSshKeys',
          summary: "Replace the account's SSH public keys",
          description:
            'Replaces the whole set. A line that is not <type> <base64 key> [comment] answers 422; a key whose ' +
            'base64 part does not decode to a key of the type named answers 400. A key listed twice is kept once.',
          body: UpdateSshKeysBody,
          response: { 200: SshKeysResponse, ...problemResponses(400, 422) },
        },
      },
      async (request) => ({ keys: await sshKeys.replace(account(request.apiKey), request.body.keys) }),
    );
  };
}
