// Prometheus scrape target. The operator's scraper sees every account with the metrics token
// (or without credentials when the operator opened it explicitly); an API key sees the series
// of its own account's endpoints and nothing of other tenants.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import type { Services } from '../../services/services.js';
import type { MetricsScope } from '../../services/metrics.js';
import { authenticateKey } from '../auth.js';
import type { FailedAuthLimiter } from '../failed-auth-limiter.js';

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function metricsRoutes(
  { metrics, config, apiKeys, rateLimiter, store }: Services,
  failedAuth: FailedAuthLimiter,
): FastifyPluginAsync {
  async function scopeOf(request: FastifyRequest): Promise<MetricsScope> {
    if (config.metricsOpen === 'yes') return 'all';
    const authorization = request.headers.authorization;
    const bearer = /^Bearer\s+(.+)$/i.exec(authorization?.trim() ?? '')?.[1]?.trim();
    if (config.metricsToken !== undefined && bearer !== undefined && sameSecret(bearer, config.metricsToken)) return 'all';
    const { key } = await failedAuth.guard(request.raw, () => authenticateKey(apiKeys, rateLimiter, authorization, 'bearer'));
    const endpoints = (await store.listEndpoints(key.accountId)).map((e) => e.id);
    // A key limited to some endpoints' queues sees only those endpoints' series.
    const visible = key.permission === 'endpoints' ? endpoints.filter((id) => key.endpointIds.includes(id)) : endpoints;
    return { endpointIds: new Set(visible) };
  }

  return async (app) => {
    app.get('/metrics', { schema: { hide: true }, config: { auth: 'none' } }, async (request, reply) => {
      const body = await metrics.exposition(await scopeOf(request));
      return reply.type(metrics.registry.contentType).send(body);
    });
  };
}
