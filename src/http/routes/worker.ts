// The worker protocol, as RunPod SDK workers call it. Workers authenticate with a credential for
// one endpoint, sent as the raw Authorization value.
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/services.js';
import { readDoneBody } from '../../services/worker-protocol.js';
import { readResultBatch } from '../result-batch-body.js';
import { jsonSourceAt, mayChangeNumbers } from '../../domain/json-source.js';
import { takenJobJson, takenJobsJson } from '../../services/job-view.js';
import { badRequest, ApiError } from '../../domain/errors.js';
import { DoneBatchQuery, DoneQuery, PingQuery, TakeQuery, WorkerJobParams, WorkerParams } from '../schemas/queue.js';
import { acceptRawBodies, type RawBody } from '../raw-body.js';
import { clientGone } from '../client-gone.js';
import { nestingProblemDetail, nestsDeeperThan } from '../json-depth.js';

const config = { auth: 'worker' as const, schemaErrorStatus: 400 };
const schema = { tags: ['Worker protocol'] };
const JSON_TYPE = 'application/json; charset=utf-8';
/** Bodies are read to the end whatever their size (see raw-body.ts); this only bounds a runaway upload. */
const TRANSPORT_LIMIT = 2 * 1024 * 1024 * 1024 - 1;

/** A stream chunk's output, and its text as the worker wrote it where writing the parsed value again could change its numbers. */
function parseChunk(body: RawBody | undefined, limit: number): { output: unknown; text: string | undefined } {
  if (!body || body.text.trim() === '') throw badRequest('a stream chunk needs a body {"output": ...}');
  if (body.tooLarge) throw new ApiError(413, `a stream chunk of ${body.bytes} bytes exceeds the ${limit} byte limit`);
  if (nestsDeeperThan(body.text)) throw badRequest(nestingProblemDetail('the stream chunk'));
  let parsed: { output?: unknown };
  try {
    parsed = JSON.parse(body.text) as { output?: unknown };
  } catch {
    throw badRequest('the stream chunk is not valid JSON');
  }
  const wrapped = typeof parsed === 'object' && parsed !== null && 'output' in parsed;
  const text = mayChangeNumbers(body.text) ? jsonSourceAt(body.text, wrapped ? ['output'] : []) : undefined;
  return { output: wrapped ? parsed.output : parsed, text };
}

export function workerRoutes({ workerProtocol, config: settings }: Services): FastifyPluginAsync {
  return async (plugin) => {
    acceptRawBodies(plugin, settings.maxOutputBytes);
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    for (const [path, batch] of [
      ['job-take', false],
      ['job-take-batch', true],
    ] as const) {
      app.get(
        `/v2/:endpointId/${path}/:workerId`,
        { config, schema: { ...schema, operationId: batch ? 'jobTakeBatch' : 'jobTake', params: WorkerParams, querystring: TakeQuery } },
        async (request, reply) => {
          const { endpointId, workerId } = request.params;
          const size = batch ? (request.query.batch_size ?? 1) : 1;
          const taken = await workerProtocol.take(endpointId, workerId, size, clientGone(reply));
          if (taken.length === 0) return reply.code(204).send();
          const body = batch ? takenJobsJson(taken) : takenJobJson(taken[0]!);
          return reply.type(JSON_TYPE).send(body);
        },
      );
    }

    app.post(
      '/v2/:endpointId/job-done/:workerId/:jobId',
      {
        config,
        bodyLimit: TRANSPORT_LIMIT,
        schema: { ...schema, operationId: 'jobDone', params: WorkerJobParams, querystring: DoneQuery },
      },
      async (request) => {
        const { endpointId, workerId, jobId } = request.params;
        const raw = (request.body as RawBody | undefined) ?? { text: '', bytes: 0, tooLarge: false };
        if (nestsDeeperThan(raw.text)) {
          // The job fails with the reason, so its client is not left waiting for a result that cannot come.
          const error = nestingProblemDetail("the worker's result");
          await workerProtocol.done(endpointId, workerId, jobId, { kind: 'result', status: 'FAILED', output: null, error, stopPod: false });
          throw badRequest(error);
        }
        const report = raw.tooLarge
          ? readDoneBody('', raw.bytes, settings.maxOutputBytes)
          : readDoneBody(raw.text, raw.bytes, settings.maxOutputBytes);
        await workerProtocol.done(endpointId, workerId, jobId, report);
        return {};
      },
    );

    app.post(
      '/v2/:endpointId/job-done-batch/:workerId',
      {
        config,
        bodyLimit: TRANSPORT_LIMIT,
        schema: { ...schema, operationId: 'jobDoneBatch', params: WorkerParams, querystring: DoneBatchQuery },
      },
      async (request, reply) => {
        const { endpointId, workerId } = request.params;
        const raw = request.body as RawBody | undefined;
        if (!raw || raw.text.trim() === '') throw badRequest('a result batch needs a body {"results": [...]}');
        if (raw.tooLarge)
          throw new ApiError(
            413,
            `a result batch of ${raw.bytes} bytes exceeds the ${settings.maxOutputBytes} byte limit of one request; post these results one by one`,
          );
        if (nestsDeeperThan(raw.text)) throw badRequest(nestingProblemDetail('the result batch'));
        let items;
        try {
          items = readResultBatch(JSON.parse(raw.text), settings.maxOutputBytes, raw.text);
        } catch (error) {
          throw badRequest(error instanceof SyntaxError ? 'the result batch is not valid JSON' : (error as Error).message);
        }
        const { take } = request.query;
        if (take === undefined) return { results: await workerProtocol.doneBatch(endpointId, workerId, items) };
        // The next jobs ride on the same exchange.
        const { results, jobs } = await workerProtocol.doneBatchAndTake(endpointId, workerId, items, take, clientGone(reply));
        return reply.type(JSON_TYPE).send(`{"results":${JSON.stringify(results)},"jobs":${takenJobsJson(jobs)}}`);
      },
    );

    app.post(
      '/v2/:endpointId/job-stream/:workerId/:jobId',
      {
        config,
        bodyLimit: TRANSPORT_LIMIT,
        schema: { ...schema, operationId: 'jobStream', params: WorkerJobParams, querystring: DoneQuery },
      },
      async (request) => {
        const { endpointId, workerId, jobId } = request.params;
        const { output, text } = parseChunk(request.body as RawBody | undefined, settings.maxOutputBytes);
        await workerProtocol.streamChunk(endpointId, workerId, jobId, output, text);
        return {};
      },
    );

    app.get(
      '/v2/:endpointId/job-stop/:workerId',
      { config, schema: { ...schema, operationId: 'jobStop', params: WorkerParams, querystring: TakeQuery } },
      async (request, reply) => {
        const { endpointId, workerId } = request.params;
        const stops = await workerProtocol.stops(endpointId, workerId, clientGone(reply));
        if (stops.length === 0) return reply.code(204).send();
        return { jobsToStop: stops };
      },
    );

    app.get(
      '/v2/:endpointId/ping/:workerId',
      { config, schema: { ...schema, operationId: 'ping', params: WorkerParams, querystring: PingQuery } },
      async (request) => {
        const { endpointId, workerId } = request.params;
        const { job_id: jobIds, status, check, reason } = request.query;
        const unhealthy = status === 'unhealthy' ? [check, reason].filter(Boolean).join(': ') || 'reported unhealthy' : undefined;
        await workerProtocol.ping(endpointId, workerId, jobIds ? jobIds.split(',').filter(Boolean) : [], unhealthy);
        return {};
      },
    );
  };
}
