// saveEndpoint, deleteEndpoint and updateEndpointTemplate over EndpointService, the service
// REST v2 /v2/serverless uses.
import { CreateEndpointBody, UpdateEndpointBody } from '../../schemas/serverless.js';
import type { GraphQLContext } from '../context.js';
import { given } from '../given.js';
import { restBody, withGraphQLFieldNames } from '../rest-body.js';
import { endpointCreateBody, endpointFieldNames, endpointPatchBody, type EndpointInput } from './endpoint-input.js';
import { endpointNode } from './endpoint-node.js';

export const endpointMutations = {
  /** With input.id: changes that endpoint (as PATCH /v2/serverless/{id}); without: creates a queue endpoint. */
  saveEndpoint: ({ input }: { input: EndpointInput }, context: GraphQLContext) =>
    withGraphQLFieldNames(endpointFieldNames(input), async () => {
      const {
        accountId,
        services: { endpoints },
      } = context;
      if (given(input.id)) {
        const current = await endpoints.get(accountId, input.id);
        const body = restBody(UpdateEndpointBody, endpointPatchBody(input, current.spec));
        return endpointNode(await endpoints.update(accountId, input.id, body), context);
      }
      return endpointNode(await endpoints.create(accountId, restBody(CreateEndpointBody, endpointCreateBody(input))), context);
    }),

  deleteEndpoint: async ({ id }: { id: string }, { accountId, services: { endpoints } }: GraphQLContext) => {
    await endpoints.delete(accountId, id);
    return true;
  },

  /** Applies the template's settings to the endpoint, as PATCH /v2/serverless/{id} with templateId does. */
  updateEndpointTemplate: ({ input }: { input: { endpointId: string; templateId: string } }, context: GraphQLContext) =>
    withGraphQLFieldNames(endpointFieldNames({}), async () => {
      const body = restBody(UpdateEndpointBody, { templateId: input.templateId });
      return endpointNode(await context.services.endpoints.update(context.accountId, input.endpointId, body), context);
    }),
};
