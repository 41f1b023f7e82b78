// saveEndpoint, deleteEndpoint and updateEndpointTemplate over EndpointService, the service
// REST v2 /v2/serverless uses.
import { CreateEndpointBody, UpdateEndpointBody } from '../../schemas/serverless.js';
import type { GraphQLContext } from '../context.js';
import { given } from '../given.js';
import { restBody, withGraphQLFieldNames } from '../rest-body.js';
import { ENDPOINT_FIELD_NAMES, endpointCreateBody, endpointPatchBody, type EndpointInput } from './endpoint-input.js';
import { endpointNode } from './endpoint-node.js';

export const endpointMutations = {
  /** With input.id: changes that endpoint (as PATCH /v2/serverless/{id}); without: creates a queue endpoint. */
  saveEndpoint: ({ input }: { input: EndpointInput }, { accountId, services: { endpoints } }: GraphQLContext) =>
    withGraphQLFieldNames(ENDPOINT_FIELD_NAMES, async () => {
      if (given(input.id)) {
        const current = await endpoints.get(accountId, input.id);
        const body = restBody(UpdateEndpointBody, endpointPatchBody(input, current.spec));
        return endpointNode(await endpoints.update(accountId, input.id, body));
      }
      return endpointNode(await endpoints.create(accountId, restBody(CreateEndpointBody, endpointCreateBody(input))));
    }),

  deleteEndpoint: async ({ id }: { id: string }, { accountId, services: { endpoints } }: GraphQLContext) => {
    await endpoints.delete(accountId, id);
    return true;
  },

  /** Applies the template's settings to the endpoint, as PATCH /v2/serverless/{id} with templateId does. */
  updateEndpointTemplate: (
    { input }: { input: { endpointId: string; templateId: string } },
    { accountId, services: { endpoints } }: GraphQLContext,
  ) =>
    withGraphQLFieldNames(ENDPOINT_FIELD_NAMES, async () => {
      const body = restBody(UpdateEndpointBody, { templateId: input.templateId });
      return endpointNode(await endpoints.update(accountId, input.endpointId, body));
    }),
};
