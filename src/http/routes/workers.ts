// An endpoint's workers, releases and worker logs.
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/services.js';
import { notFound } from '../../domain/errors.js';
import { problemResponses } from '../schemas/common.js';
import { EndpointIdParams } from '../schemas/serverless.js';
import { ListReleasesResponse, ListWorkersResponse, LogQuery } from '../schemas/workers.js';
import { relay } from '../relay.js';
import { streamLogs } from '../log-stream.js';

/** Enough for every line a provider keeps of a worker; the cursor picks from them. */
const LOG_LINES_KEPT = 100_000;

const tags = ['Serverless'];

export function endpointWorkerRoutes({ endpoints, workerDirectory, runtime, cluster }: Services): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/v2/serverless/:id/workers',
      {
        schema: {
          tags,
          operationId: 'listEndpointWorkers',
          summary: "The endpoint's active workers, by state",
          params: EndpointIdParams,
          response: { 200: ListWorkersResponse, ...problemResponses(404) },
        },
      },
      async (request) => {
        const endpoint = await endpoints.get(request.apiKey!.accountId, request.params.id);
        const workers = workerDirectory.list(endpoint.id, endpoint.version);
        const count = (status: string) => workers.filter((w) => w.status === status).length;
        const crashLoop = runtime?.crashReport(endpoint.id);
        const throttled = runtime?.throttleReport(endpoint.id);
        return {
          workers,
          summary: {
            running: count('RUNNING'),
            idle: count('IDLE'),
            initializing: count('INITIALIZING'),
            throttled: count('THROTTLED'),
            unhealthy: count('UNHEALTHY'),
            total: workers.length,
          },
          endpointVersion: endpoint.version,
          ...(crashLoop ? { crashLoop } : {}),
          ...(throttled ? { throttled } : {}),
        };
      },
    );

    app.get(
      '/v2/serverless/:id/releases',
      {
        schema: {
          tags,
          operationId: 'listEndpointReleases',
          summary: 'Configuration versions, newest first, and rollout progress',
          params: EndpointIdParams,
          response: { 200: ListReleasesResponse, ...problemResponses(404) },
        },
      },
      async (request) => {
        const endpoint = await endpoints.get(request.apiKey!.accountId, request.params.id);
        const releases = await endpoints.releases(request.apiKey!.accountId, endpoint.id);
        const workers = workerDirectory.list(endpoint.id, endpoint.version).filter((w) => w.version !== null);
        const onLatest = workers.filter((w) => w.version === endpoint.version).length;
        return {
          endpointVersion: endpoint.version,
          rollout: {
            inProgress: onLatest < workers.length,
            workersOnLatest: onLatest,
            workersTotal: workers.length,
            percentOnLatest: workers.length === 0 ? 0 : Math.floor((100 * onLatest) / workers.length),
          },
          releases: releases.map((r) => ({
            id: r.id,
            version: r.version,
            source: r.source,
            buildId: null,
            createdByUserId: r.createdBy,
            workerCount: workers.filter((w) => w.version === r.version).length,
            createdAt: r.createdAt,
            diff: r.diff,
          })),
        };
      },
    );

    app.get(
      '/v2/serverless/:id/workers/:workerId/logs',
      {
        schema: {
          tags,
          operationId: 'getWorkerLogs',
          summary: "A worker's log lines as server-sent events: the last `tail`, then live ones",
          params: Type.Object({ id: Type.String(), workerId: Type.String() }),
          querystring: LogQuery,
          response: { 200: Type.String({ description: 'text/event-stream of {source, line, ts}' }), ...problemResponses(404, 422) },
        },
      },
      async (request, reply) => {
        const endpoint = await endpoints.get(request.apiKey!.accountId, request.params.id);
        const { workerId } = request.params;
        // A worker id of another endpoint, even of the same account, is unknown here.
        const known = runtime?.startedFor(endpoint.id, workerId) ?? false;
        const peer = known ? undefined : cluster.peers?.find(endpoint.id, workerId);
        // Another replica runs the worker and holds its logs: relay its stream.
        if (peer?.managed) return relay(`${peer.replicaUrl}${request.url}`, request.headers, reply);
        if (!runtime || !known) throw notFound(`worker ${workerId} of endpoint ${endpoint.id} not found`);
        streamLogs(request, reply, request.query, {
          lines: () => runtime.logs(endpoint.id, workerId, LOG_LINES_KEPT),
          follow: (listener) => runtime.followLogs(endpoint.id, workerId, listener),
        });
      },
    );
  };
}
