// The OpenAPI 3.1 document, generated from the route schemas and served at /v2/openapi.json.
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { GantryConfig } from '../config.js';

export async function registerOpenApi(app: FastifyInstance, config: GantryConfig): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Gantry REST API',
        version: '2.0.0',
        description: 'Serverless endpoints, templates, catalog and job queues of a Gantry deployment.',
      },
      servers: [{ url: config.publicUrl }],
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'Gantry API key' } },
      },
      security: [{ bearerAuth: [] }],
    },
  });
  app.get('/v2/openapi.json', { schema: { hide: true }, config: { auth: 'none' } }, async () => app.swagger());
}
