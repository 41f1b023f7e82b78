// STUB — replaced by the catalog work.
import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../services/container.js';

export function catalogRoutes(_services: Services): FastifyPluginAsync {
  return async () => {};
}
