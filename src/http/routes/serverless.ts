// STUB — replaced by the endpoints work.
import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../services/container.js';

export function serverlessRoutes(_services: Services): FastifyPluginAsync {
  return async () => {};
}
