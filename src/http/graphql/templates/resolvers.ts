// saveTemplate and deleteTemplate over TemplateService, the service REST v2 templates use.
import { CreateTemplateBody, UpdateTemplateBody } from '../../schemas/templates.js';
import { notFound } from '../../problem.js';
import type { GraphQLContext } from '../context.js';
import { given } from '../given.js';
import { envFieldNames, restBody, withGraphQLFieldNames } from '../rest-body.js';
import { TEMPLATE_FIELD_NAMES, templateBody, type SaveTemplateInput } from './template-input.js';
import { templateNode } from './template-node.js';

export const templateMutations = {
  /** With input.id: changes that template (as PATCH /v2/templates/{id}); without: creates one. */
  saveTemplate: ({ input }: { input: SaveTemplateInput }, { accountId, services: { templates } }: GraphQLContext) =>
    withGraphQLFieldNames([...TEMPLATE_FIELD_NAMES, ...envFieldNames(input.env)], async () => {
      if (given(input.id)) {
        const current = await templates.get(accountId, input.id);
        const body = restBody(UpdateTemplateBody, templateBody(input, current.spec));
        return templateNode(await templates.update(accountId, input.id, body));
      }
      return templateNode(await templates.create(accountId, restBody(CreateTemplateBody, templateBody(input))));
    }),

  /** Templates are deleted by name here, as the hosted GraphQL does. */
  deleteTemplate: async ({ templateName }: { templateName: string }, { accountId, services: { templates } }: GraphQLContext) => {
    const found = (await templates.list(accountId)).find((template) => template.spec.name === templateName);
    if (!found) throw notFound(`no template named '${templateName}' in this account`);
    await templates.delete(accountId, found.id);
    return true;
  },
};
