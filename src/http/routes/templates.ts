// REST v2 templates: thin routes over TemplateService.
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/services.js';
import { problemResponses } from '../schemas/common.js';
import { CreateTemplateBody, ListTemplatesResponse, TemplateIdParams, TemplateResponse, UpdateTemplateBody } from '../schemas/templates.js';
import { templateView } from '../views/template-view.js';
import { keepFitting } from '../response-fit.js';

const tags = ['Templates'];

export function templateRoutes({ templates }: Services): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const account = (apiKey: { accountId: string } | undefined) => apiKey!.accountId;

    app.get(
      '/v2/templates',
      {
        schema: {
          tags,
          operationId: 'listTemplates',
          summary: "List the caller's own templates",
          response: { 200: ListTemplatesResponse, ...problemResponses() },
        },
      },
      async (request) => ({
        templates: keepFitting(
          (await templates.list(account(request.apiKey))).map(templateView),
          TemplateResponse,
          request.log,
          'template',
        ),
      }),
    );

    app.post(
      '/v2/templates',
      {
        schema: {
          tags,
          operationId: 'createTemplate',
          summary: 'Create a template',
          description:
            'Schema violations answer 422; container rule conflicts (ports, env names, args against ' +
            'entrypoint/cmd) answer 400; a name already used in the account answers 409.',
          body: CreateTemplateBody,
          response: { 201: TemplateResponse, ...problemResponses(400, 409, 422) },
        },
      },
      async (request, reply) => {
        const created = await templates.create(account(request.apiKey), request.body);
        return reply.code(201).send(templateView(created));
      },
    );

    app.get(
      '/v2/templates/:id',
      {
        schema: {
          tags,
          operationId: 'getTemplate',
          summary: "Get one of the caller's templates, another account's public one or a catalog template",
          params: TemplateIdParams,
          response: { 200: TemplateResponse, ...problemResponses(404) },
        },
      },
      async (request) => templateView(await templates.get(account(request.apiKey), request.params.id)),
    );

    app.patch(
      '/v2/templates/:id',
      {
        schema: {
          tags,
          operationId: 'updateTemplate',
          summary: "Change the fields sent of one of the caller's templates; the rest stay as they are",
          params: TemplateIdParams,
          body: UpdateTemplateBody,
          response: { 200: TemplateResponse, ...problemResponses(400, 404, 409, 422) },
        },
      },
      async (request) => templateView(await templates.update(account(request.apiKey), request.params.id, request.body)),
    );

    app.delete(
      '/v2/templates/:id',
      {
        schema: {
          tags,
          operationId: 'deleteTemplate',
          summary: "Delete one of the caller's templates; endpoints created from it keep their settings",
          params: TemplateIdParams,
          response: { 204: Type.Null(), ...problemResponses(404) },
        },
      },
      async (request, reply) => {
        await templates.delete(account(request.apiKey), request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
