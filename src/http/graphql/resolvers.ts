// Every root field of schema.graphql and the resolver that answers it.
import type { RootResolvers } from './context.js';
import { accountMutations, accountQueries } from './account.js';
import { gpuTypeQueries } from './gpu-types.js';
import { templateMutations } from './templates/resolvers.js';
import { endpointMutations } from './endpoints/resolvers.js';
import { registryAuthMutations } from './registry-auths.js';
import { podMutations, podQueries } from './pods.js';

export const rootResolvers: RootResolvers = {
  Query: { ...accountQueries, ...gpuTypeQueries, ...podQueries },
  Mutation: { ...accountMutations, ...templateMutations, ...endpointMutations, ...registryAuthMutations, ...podMutations },
};
