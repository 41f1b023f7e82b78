// myself and updateUserSettings: the caller's account, its SSH keys (the same ones as REST v2
// /v2/account/ssh-keys), network volumes, endpoints, templates and registry credentials. Lists are functions, so
// each is read only when the document selects it.
import type { GraphQLContext } from './context.js';
import { given } from './given.js';
import { withGraphQLFieldNames } from './rest-body.js';
import { endpointNode, volumeNode } from './endpoints/endpoint-node.js';
import { templateNode } from './templates/template-node.js';
import { podNode } from './pods.js';

function userNode(context: GraphQLContext) {
  const { accountId, services } = context;
  const templates = async () => (await services.templates.list(accountId)).map(templateNode);
  return {
    id: accountId,
    email: null,
    // "" rather than null without keys: `runpod ssh add-key` appends to the string it reads.
    pubKey: async () => (await services.sshKeys.list(accountId)).join('\n'),
    networkVolumes: async () => (await services.networkVolumes.list(accountId)).map(volumeNode),
    endpoints: async () => (await services.endpoints.list(accountId)).map((endpoint) => endpointNode(endpoint, context)),
    podTemplates: templates,
    templates,
    containerRegistryCreds: async () => (await services.registryAuths.list(accountId)).map(({ id, name }) => ({ id, name })),
    // Empty, not an error, where no provider runs pods: get_user selects pods on every call.
    pods: async () =>
      services.pods.offered ? await Promise.all((await services.pods.list(accountId)).map((pod) => podNode(pod, context))) : [],
  };
}

/** The SDK joins keys with newlines (and `ssh add-key` adds blank lines); each non-blank line is a key. */
function keyLines(pubKey: string): string[] {
  return pubKey
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

export const accountQueries = {
  myself: (_args: unknown, context: GraphQLContext) => userNode(context),
};

export const accountMutations = {
  updateUserSettings: async ({ input }: { input: { pubKey?: string | null } }, context: GraphQLContext) => {
    const { pubKey } = input;
    if (given(pubKey)) {
      await withGraphQLFieldNames([['keys', 'pubKey']], () => context.services.sshKeys.replace(context.accountId, keyLines(pubKey)));
    }
    return userNode(context);
  },
};
