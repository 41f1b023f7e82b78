// Builds the Fastify application from its services, without listening. Requests for
// load-balancing endpoints are taken off the HTTP server before Fastify sees them, so their
// bodies stream to workers unparsed and upgrades pass through.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { installProblemHandlers } from './http/errors.js';
import { validatorCompiler } from './http/validation.js';
import { installJsonParser } from './http/json-parser.js';
import { clientErrorHandler, frameworkErrors, MAX_PATH_PARAM_LENGTH } from './http/framework-problems.js';
import { installAuth } from './http/auth.js';
import { RequestLogController } from './http/request-log.js';
import { FailedAuthLimiter } from './http/failed-auth-limiter.js';
import { registerOpenApi } from './http/openapi.js';
import { serverlessRoutes } from './http/routes/serverless.js';
import { templateRoutes } from './http/routes/templates.js';
import { registryRoutes } from './http/routes/registries.js';
import { registryDelegationRoutes } from './http/routes/registry-delegations.js';
import { secretRoutes } from './http/routes/secrets.js';
import { catalogRoutes } from './http/routes/catalog.js';
import { accountRoutes } from './http/routes/account.js';
import { graphqlRoutes } from './http/graphql/route.js';
import { queueRoutes } from './http/routes/queue.js';
import { workerRoutes } from './http/routes/worker.js';
import { metricsRoutes } from './http/routes/metrics.js';
import { endpointWorkerRoutes } from './http/routes/workers.js';
import { networkVolumeRoutes } from './http/routes/network-volumes.js';
import { webhookSecretRoutes } from './http/routes/webhook-secrets.js';
import { endpointJobRoutes } from './http/routes/endpoint-jobs.js';
import { currentKeyRoutes } from './http/routes/current-key.js';
import { accountKeyRoutes } from './http/routes/account-keys.js';
import { consoleRoutes, installConsoleRedirect } from './http/console.js';
import { podRoutes } from './http/routes/pods.js';
import { clusterRoutes } from './http/routes/clusters.js';
import { billingRoutes } from './http/routes/billing.js';
import type { Services } from './services/services.js';
import { LoadBalancer } from './balancer/load-balancer.js';
import { createFrontServer } from './balancer/front-server.js';
import { PodProxy } from './balancer/pod-proxy.js';
import { silentLogger } from './domain/logger.js';
import { requestLogger } from './http/request-logger.js';
import { endLogStreams } from './http/log-stream.js';

export type App = FastifyInstance;

export interface AppOptions {
  /** Request logs go here; none when omitted. */
  logger?: FastifyBaseLogger;
}

/** Management API bodies are small JSON documents. */
const MANAGEMENT_BODY_LIMIT = 1024 * 1024;

export async function buildApp(services: Services, options: AppOptions = {}): Promise<App> {
  const failedAuth = new FailedAuthLimiter(services.config.authFailureLimit, Date.now, services.config.trustProxy);
  const balancer = new LoadBalancer({
    ...services,
    failedAuth,
    backends: services.balancer.backends,
    leaderAddress: () => services.cluster.leaderAddress(),
    log: options.logger?.child({ component: 'balancer' }) ?? silentLogger,
  });
  const podProxy = new PodProxy({
    ...services,
    failedAuth,
    tunnelIdleMs: services.config.lbTunnelIdleMs,
    leaderAddress: () => services.cluster.leaderAddress(),
  });
  const app = Fastify({
    serverFactory: (handler, serverOptions) => createFrontServer(balancer, handler, serverOptions, podProxy),
    ...(options.logger
      ? { loggerInstance: options.logger.child({ component: 'http' }), childLoggerFactory: requestLogger }
      : { logger: false }),
    bodyLimit: MANAGEMENT_BODY_LIMIT,
    // request.ip, in the request log, names the client behind the trusted proxies too.
    ...(services.config.trustProxy.length > 0 ? { trustProxy: [...services.config.trustProxy] } : {}),
    logController: new RequestLogController(services.config.requestLogLevel),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAM_LENGTH },
    frameworkErrors,
    clientErrorHandler,
    ajv: { customOptions: {} },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Before the HTTP server closes (preClose), not after: it waits for every connection, tunnels included.
  app.addHook('preClose', async () => {
    balancer.close();
    podProxy.close();
    endLogStreams(app.server);
  });
  app.setValidatorCompiler(validatorCompiler);
  installProblemHandlers(app);
  installJsonParser(app);
  installAuth(app, services.apiKeys, services.rateLimiter, services.workerCredentials, failedAuth);
  await registerOpenApi(app, services.config);

  await app.register(serverlessRoutes(services));
  await app.register(templateRoutes(services));
  await app.register(registryRoutes(services));
  await app.register(registryDelegationRoutes());
  await app.register(secretRoutes(services));
  await app.register(catalogRoutes(services));
  await app.register(accountRoutes(services));
  await app.register(graphqlRoutes(services, failedAuth));
  await app.register(queueRoutes(services));
  await app.register(workerRoutes(services));
  await app.register(metricsRoutes(services, failedAuth));
  await app.register(endpointWorkerRoutes(services));
  await app.register(networkVolumeRoutes(services));
  await app.register(webhookSecretRoutes(services));
  await app.register(endpointJobRoutes(services));
  await app.register(currentKeyRoutes());
  await app.register(accountKeyRoutes(services));
  installConsoleRedirect(app);
  await app.register(consoleRoutes());
  await app.register(podRoutes(services));
  await app.register(clusterRoutes());
  await app.register(billingRoutes(services));
  return app;
}
