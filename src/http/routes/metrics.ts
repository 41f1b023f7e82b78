// Prometheus scrape target. It names endpoint ids and counts, nothing more; keep it on a network
// only the operator's monitoring can reach.
import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../services/services.js';

export function metricsRoutes({ metrics }: Services): FastifyPluginAsync {
  return async (app) => {
    app.get('/metrics', { schema: { hide: true }, config: { auth: 'none' } }, async (_request, reply) => {
      const body = await metrics.registry.metrics();
      return reply.type(metrics.registry.contentType).send(body);
    });
  };
}
