// REST v2 serverless endpoint management: thin routes over EndpointService.
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/services.js';
import { problemResponses } from '../schemas/common.js';
import { CreateEndpointBody, EndpointIdParams, EndpointResponse, UpdateEndpointBody } from '../schemas/serverless.js';
import { endpointView } from '../views/endpoint-view.js';
import { keepFitting } from '../response-fit.js';
import { endpointWarnings, sendWarnings } from '../endpoint-warnings.js';

const tags = ['Serverless'];

export function serverlessRoutes({ endpoints, config, capacity }: Services): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const account = (apiKey: { accountId: string } | undefined) => apiKey!.accountId;

    app.get(
      '/v2/serverless',
      {
        schema: {
          tags,
          operationId: 'listEndpoints',
          summary: "List the endpoints of the caller's account",
          response: { 200: Type.Object({ endpoints: Type.Array(EndpointResponse) }), ...problemResponses() },
        },
      },
      async (request) => {
        const views = (await endpoints.list(account(request.apiKey))).map((e) => endpointView(e, config));
        return { endpoints: keepFitting(views, EndpointResponse, request.log, 'endpoint') };
      },
    );

    app.post(
      '/v2/serverless',
      {
        schema: {
          tags,
          operationId: 'createEndpoint',
          summary: 'Create a serverless endpoint',
          description:
            'Exactly one of gpu or cpu. image is required unless templateId is set. Schema violations answer 422; ' +
            'rule conflicts (compute selection, CUDA constraints, catalog references) answer 400.',
          body: CreateEndpointBody,
          response: { 201: EndpointResponse, ...problemResponses(400, 404, 422) },
        },
      },
      async (request, reply) => {
        const record = await endpoints.create(account(request.apiKey), request.body);
        sendWarnings(reply, request.log, record.id, endpointWarnings(record, capacity, config));
        return reply.code(201).send(endpointView(record, config));
      },
    );

    app.get(
      '/v2/serverless/:id',
      {
        schema: {
          tags,
          operationId: 'getEndpoint',
          summary: 'Get one endpoint',
          params: EndpointIdParams,
          response: { 200: EndpointResponse, ...problemResponses(404) },
        },
      },
      async (request) => endpointView(await endpoints.get(account(request.apiKey), request.params.id), config),
    );

    app.patch(
      '/v2/serverless/:id',
      {
        schema: {
          tags,
          operationId: 'updateEndpoint',
          summary: 'Change the fields sent; the rest stay as they are',
          params: EndpointIdParams,
          body: UpdateEndpointBody,
          response: { 200: EndpointResponse, ...problemResponses(400, 404, 409, 422) },
        },
      },
      async (request, reply) => {
        const record = await endpoints.update(account(request.apiKey), request.params.id, request.body);
        sendWarnings(reply, request.log, record.id, endpointWarnings(record, capacity, config));
        return endpointView(record, config);
      },
    );

    app.delete(
      '/v2/serverless/:id',
      {
        schema: {
          tags,
          operationId: 'deleteEndpoint',
          summary: 'Delete an endpoint',
          params: EndpointIdParams,
          response: { 204: Type.Null(), ...problemResponses(404) },
        },
      },
      async (request, reply) => {
        await endpoints.delete(account(request.apiKey), request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
