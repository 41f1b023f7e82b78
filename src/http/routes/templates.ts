// STUB — replaced by the templates work.
import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../services/container.js';

export function templateRoutes(_services: Services): FastifyPluginAsync {
  return async () => {};
}
