// The queue API on /v2/{endpointId}/...: run, runsync, status, status-sync, stream, cancel, retry,
// purge-queue and health. Keys may be sent with or without "Bearer ".
import { jobsWithExactInputs, withExactInput } from '../json-sources.js';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/services.js';
import { JOB_LIMITS } from '../../domain/job-state.js';
import { problemResponses } from '../schemas/common.js';
import {
  EndpointParams,
  JobIdAndStatus,
  JobParams,
  JobStatusResponse,
  RunBatchBody,
  RunBody,
  SubmitKeyHeaders,
  SubmittedBatchResponse,
  TtlQuery,
  WaitQuery,
} from '../schemas/queue.js';
import { clientGone } from '../client-gone.js';
import { submitOnce } from '../../services/submit-keys.js';
import { MoreRequests } from '../auth.js';
import { CrashLoop, Throttled } from '../schemas/workers.js';

const tags = ['Queue'];
const queueConfig = { auth: 'queue' as const, schemaErrorStatus: 400 };
const JSON_TYPE = 'application/json; charset=utf-8';

function sendJson(reply: FastifyReply, json: string): FastifyReply {
  return reply.type(JSON_TYPE).send(json);
}

/** Said on an answer to a keyed submit that queued nothing now (docs/decisions/0040). */
function markReplayed(reply: FastifyReply, replayed: boolean): void {
  if (replayed) reply.header('idempotent-replayed', 'true');
}

export function queueRoutes({ jobs, keyedSubmits, rateLimiter, runtime }: Services): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const endpointOf = (request: { apiKey?: { accountId: string }; params: { endpointId: string } }) =>
      jobs.queueEndpoint(request.apiKey!.accountId, request.params.endpointId);

    app.post(
      '/v2/:endpointId/run',
      {
        bodyLimit: JOB_LIMITS.runBodyBytes,
        config: queueConfig,
        schema: {
          tags,
          operationId: 'run',
          summary: 'Queue a job',
          params: EndpointParams,
          headers: SubmitKeyHeaders,
          body: RunBody,
          response: { 200: JobIdAndStatus, ...problemResponses(400, 404, 413, 422) },
        },
      },
      async (request, reply) => {
        const endpoint = await endpointOf(request);
        const key = request.headers['idempotency-key'];
        const run = withExactInput(request.body);
        if (key === undefined) {
          const job = await jobs.submit(endpoint, run, JOB_LIMITS.runRetentionMs);
          return { id: job.id, status: job.status };
        }
        const { answer, replayed } = await keyedSubmits.run(endpoint, run, submitOnce(key, 'run', request.body));
        markReplayed(reply, replayed);
        return { id: answer, status: 'IN_QUEUE' };
      },
    );

    app.post(
      '/v2/:endpointId/run-batch',
      {
        // The whole batch shares one /run's limit: a request costs the server no more than a run can.
        bodyLimit: JOB_LIMITS.runBodyBytes,
        config: queueConfig,
        schema: {
          tags,
          operationId: 'runBatch',
          summary: `Queue up to ${JOB_LIMITS.runBatchMaxJobs} jobs in one request: all of them, or none`,
          params: EndpointParams,
          headers: SubmitKeyHeaders,
          body: RunBatchBody,
          response: { 200: SubmittedBatchResponse, ...problemResponses(400, 404, 413, 422) },
        },
      },
      async (request, reply) => {
        const endpoint = await endpointOf(request);
        const batch = jobsWithExactInputs(request.body);
        // Each job counts against the rate limits as the /run it replaces, once it is to be queued
        // (decision 41): a batch sent again under its key queues nothing and counts as one request.
        const batchCount = new MoreRequests(rateLimiter, request.apiKey!, batch.length, request.log);
        const key = request.headers['idempotency-key'];
        if (key === undefined) {
          await batchCount.count();
          reply.headers(batchCount.headers);
          const queued = await jobs.submitBatch(endpoint, batch, JOB_LIMITS.runRetentionMs);
          return { jobs: queued.map((job) => ({ id: job.id, status: job.status })) };
        }
        const once = submitOnce(key, 'run-batch', request.body);
        const { answer, replayed } = await keyedSubmits.runBatch(endpoint, batch, once, batchCount);
        reply.headers(batchCount.headers);
        markReplayed(reply, replayed);
        return { jobs: answer.map((id) => ({ id, status: 'IN_QUEUE' })) };
      },
    );

    app.post(
      '/v2/:endpointId/runsync',
      {
        bodyLimit: JOB_LIMITS.runsyncBodyBytes,
        config: queueConfig,
        schema: {
          tags,
          operationId: 'runSync',
          summary: 'Queue a job and wait for its result; answers with the current status if it is not done in time',
          params: EndpointParams,
          querystring: WaitQuery,
          headers: SubmitKeyHeaders,
          body: RunBody,
          response: { 200: JobStatusResponse, ...problemResponses(400, 404, 413, 422) },
        },
      },
      async (request, reply) => {
        const wait = request.query.wait ?? JOB_LIMITS.runsyncDefaultWaitMs;
        const endpoint = await endpointOf(request);
        const key = request.headers['idempotency-key'];
        const run = withExactInput(request.body);
        if (key === undefined) return sendJson(reply, await jobs.runSync(endpoint, run, wait, clientGone(reply)));
        const once = submitOnce(key, 'runsync', request.body);
        const { answer, replayed } = await keyedSubmits.runSync(endpoint, run, wait, clientGone(reply), once);
        markReplayed(reply, replayed);
        return sendJson(reply, answer);
      },
    );

    for (const method of ['GET', 'POST'] as const) {
      app.route({
        method,
        url: '/v2/:endpointId/status/:jobId',
        config: queueConfig,
        schema: {
          tags,
          operationId: `status${method === 'POST' ? 'Post' : ''}`,
          summary: "Read a job's status and result; ttl sets how long from now it is kept",
          params: JobParams,
          querystring: TtlQuery,
          response: { 200: JobStatusResponse, ...problemResponses(400, 404) },
        },
        handler: async (request, reply) => {
          const endpoint = await endpointOf(request);
          return sendJson(reply, await jobs.status(endpoint.id, request.params.jobId, request.query.ttl));
        },
      });

      app.route({
        method,
        url: '/v2/:endpointId/status-sync/:jobId',
        config: queueConfig,
        schema: {
          tags,
          operationId: `statusSync${method === 'POST' ? 'Post' : ''}`,
          summary: 'Wait until the job finishes or wait ms pass, then answer its status',
          params: JobParams,
          querystring: WaitQuery,
          response: { 200: JobStatusResponse, ...problemResponses(400, 404) },
        },
        handler: async (request, reply) => {
          const endpoint = await endpointOf(request);
          const wait = request.query.wait ?? JOB_LIMITS.runsyncDefaultWaitMs;
          return sendJson(reply, await jobs.waitForResult(endpoint.id, request.params.jobId, wait, clientGone(reply)));
        },
      });

      app.route({
        method,
        url: '/v2/:endpointId/stream/:jobId',
        config: queueConfig,
        schema: {
          tags,
          operationId: `stream${method === 'POST' ? 'Post' : ''}`,
          summary: 'Chunks streamed since the previous call; waits briefly for one while the job runs',
          params: JobParams,
          response: {
            200: Type.Object({ status: Type.String(), stream: Type.Array(Type.Object({ output: Type.Unknown() })) }),
            ...problemResponses(400, 404),
          },
        },
        handler: async (request, reply) => {
          const endpoint = await endpointOf(request);
          const { status, stream } = await jobs.stream(endpoint.id, request.params.jobId, clientGone(reply));
          return sendJson(reply, `{"status":"${status}","stream":[${stream.map((c: string) => `{"output":${c}}`).join(',')}]}`);
        },
      });
    }

    app.post(
      '/v2/:endpointId/cancel/:jobId',
      {
        config: queueConfig,
        schema: {
          tags,
          operationId: 'cancel',
          summary: 'Cancel a queued or running job',
          params: JobParams,
          response: { 200: JobIdAndStatus, ...problemResponses(400, 404, 409) },
        },
      },
      async (request) => {
        const endpoint = await endpointOf(request);
        const job = await jobs.cancel(endpoint.id, request.params.jobId);
        return { id: job.id, status: job.status };
      },
    );

    app.post(
      '/v2/:endpointId/retry/:jobId',
      {
        config: queueConfig,
        schema: {
          tags,
          operationId: 'retry',
          summary: 'Queue a FAILED or TIMED_OUT job again with its original input',
          params: JobParams,
          response: { 200: JobIdAndStatus, ...problemResponses(400, 404, 409) },
        },
      },
      async (request) => {
        const endpoint = await endpointOf(request);
        const job = await jobs.retry(endpoint.id, request.params.jobId);
        return { id: job.id, status: job.status };
      },
    );

    app.post(
      '/v2/:endpointId/purge-queue',
      {
        config: queueConfig,
        schema: {
          tags,
          operationId: 'purgeQueue',
          summary: 'Remove every queued job; running jobs are not affected',
          params: EndpointParams,
          response: { 200: Type.Object({ removed: Type.Integer(), status: Type.String() }), ...problemResponses(400, 404) },
        },
      },
      async (request) => {
        const endpoint = await endpointOf(request);
        return { removed: await jobs.purge(endpoint.id), status: 'completed' };
      },
    );

    app.get(
      '/v2/:endpointId/health',
      {
        config: queueConfig,
        schema: {
          tags,
          operationId: 'health',
          summary: 'Job and worker counts of the endpoint',
          params: EndpointParams,
          response: {
            200: Type.Object({
              jobs: Type.Object({
                completed: Type.Integer(),
                failed: Type.Integer(),
                inProgress: Type.Integer(),
                inQueue: Type.Integer(),
                retried: Type.Integer(),
              }),
              workers: Type.Object({
                idle: Type.Integer(),
                initializing: Type.Integer(),
                ready: Type.Integer(),
                running: Type.Integer(),
                throttled: Type.Integer(),
                unhealthy: Type.Integer(),
              }),
              crashLoop: Type.Optional(
                Type.Object(CrashLoop.properties, {
                  description: 'Present while workers keep failing to start or exiting: why, and when the next one starts',
                }),
              ),
              throttled: Type.Optional(Throttled),
            }),
            ...problemResponses(400, 404),
          },
        },
      },
      async (request) => {
        const endpointId = (await endpointOf(request)).id;
        const crashLoop = runtime?.crashReport(endpointId);
        const throttled = runtime?.throttleReport(endpointId);
        return { ...(await jobs.health(endpointId)), ...(crashLoop ? { crashLoop } : {}), ...(throttled ? { throttled } : {}) };
      },
    );
  };
}
