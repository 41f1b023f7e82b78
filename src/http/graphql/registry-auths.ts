// saveRegistryAuth, updateRegistryAuth and deleteRegistryAuth over RegistryAuthService, the
// service REST v2 /v2/registries uses. Like REST, answers carry the id and name only.
import type { RegistryAuthRecord } from '../../store/registry-auth-store.js';
import { CreateRegistryBody } from '../schemas/registries.js';
import { ApiError } from '../problem.js';
import type { GraphQLContext } from './context.js';
import { restBody } from './rest-body.js';

interface RegistryLoginInput {
  id: string;
  username: string;
  password: string;
}

const credentialNode = ({ id, name }: RegistryAuthRecord) => ({ id, name });

/** The same rule REST's create schema sets for a username and password: not empty. */
function checkLogin({ username, password }: RegistryLoginInput): void {
  const problems = Object.entries({ username, password })
    .filter(([, value]) => value === '')
    .map(([field]) => `${field}: must not be empty`);
  if (problems.length > 0) throw new ApiError(422, 'the input failed validation', problems);
}

export const registryAuthMutations = {
  saveRegistryAuth: async (
    { input }: { input: { name: string; username: string; password: string } },
    { accountId, services: { registryAuths } }: GraphQLContext,
  ) => credentialNode(await registryAuths.create(accountId, restBody(CreateRegistryBody, { ...input }))),

  /** Rotates the login; the id and name stay, so endpoints pulling with it keep working. */
  updateRegistryAuth: async ({ input }: { input: RegistryLoginInput }, { accountId, services: { registryAuths } }: GraphQLContext) => {
    checkLogin(input);
    return credentialNode(await registryAuths.updateLogin(accountId, input.id, input));
  },

  deleteRegistryAuth: async (
    { registryAuthId }: { registryAuthId: string },
    { accountId, services: { registryAuths } }: GraphQLContext,
  ) => {
    await registryAuths.delete(accountId, registryAuthId);
    return true;
  },
};
