// An endpoint's recent jobs and their series over time, for dashboards and the console. Scoped
// like every endpoint route: another account's endpoint or job is not found.
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/services.js';
import type { JobState } from '../../store/job-store.js';
import type { JobStatus } from '../../domain/job-state.js';
import { notFound } from '../../domain/errors.js';
import { delayTime, executionTime } from '../../services/job-view.js';
import { sampleLookback, workerSeries } from '../../services/worker-series.js';
import { problemResponses } from '../schemas/common.js';
import { EndpointIdParams } from '../schemas/serverless.js';
import { JobDetail, JobDetailParams, JobListQuery, JobListResponse, SeriesQuery, SeriesResponse } from '../schemas/endpoint-jobs.js';

const tags = ['Serverless'];
const STREAM_CHUNKS_SHOWN = 1000;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const parsed = (text: string) => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

function summary(job: JobState, now: number) {
  return {
    id: job.id,
    status: job.status,
    submittedAt: new Date(job.submittedAt).toISOString(),
    startedAt: iso(job.startedAt),
    completedAt: iso(job.completedAt),
    delayTime: delayTime(job, now) ?? null,
    executionTime: executionTime(job, now) ?? null,
    workerId: job.workerId,
    retries: job.retries,
    lowPriority: job.lowPriority,
    webhook: job.webhook !== null,
  };
}

export function endpointJobRoutes({ config, endpoints, store, workerDirectory, cluster }: Services): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/v2/serverless/:id/jobs',
      {
        schema: {
          tags,
          operationId: 'listEndpointJobs',
          summary: "The endpoint's jobs still kept, newest first, optionally of some statuses",
          params: EndpointIdParams,
          querystring: JobListQuery,
          response: { 200: JobListResponse, ...problemResponses(404, 422) },
        },
      },
      async (request) => {
        const endpoint = await endpoints.get(request.apiKey!.accountId, request.params.id);
        const statuses = (request.query.status?.split(',') ?? []) as JobStatus[];
        const page = await store.jobHistory.list(endpoint.id, {
          statuses,
          limit: request.query.limit ?? 50,
          before: request.query.before,
        });
        const now = cluster.now();
        return { jobs: page.jobs.map((job) => summary(job, now)), next: page.next };
      },
    );

    app.get(
      '/v2/serverless/:id/jobs/:jobId',
      {
        schema: {
          tags,
          operationId: 'getEndpointJob',
          summary: 'One job in full: input, output, error and stream chunks',
          params: JobDetailParams,
          response: { 200: JobDetail, ...problemResponses(404) },
        },
      },
      async (request) => {
        const endpoint = await endpoints.get(request.apiKey!.accountId, request.params.id);
        const job = await store.jobs.get(request.params.jobId);
        if (!job || job.endpointId !== endpoint.id) throw notFound(`job ${request.params.jobId} of endpoint ${endpoint.id} not found`);
        const chunks = await store.jobHistory.chunks(job.id, STREAM_CHUNKS_SHOWN);
        return {
          ...summary(job, cluster.now()),
          input: parsed(job.input),
          ...(job.output === null ? {} : { output: parsed(job.output) }),
          error: job.error,
          executionTimeoutMs: job.executionTimeoutMs,
          expiresAt: new Date(job.expiresAt).toISOString(),
          stream: chunks.map(parsed),
        };
      },
    );

    app.get(
      '/v2/serverless/:id/series',
      {
        schema: {
          tags,
          operationId: 'getEndpointSeries',
          summary: 'Queue depth, jobs by outcome and delay and execution-time percentiles over time',
          description:
            "Jobs are drawn from the jobs still kept (results are kept for their retention), so a window longer than the retention shows only recent jobs finishing. Workers by state come from the leader's samples (every --worker-sample-interval-ms, kept 24 h); a step with no sample in the two intervals before its end shows no workers.",
          params: EndpointIdParams,
          querystring: SeriesQuery,
          response: { 200: SeriesResponse, ...problemResponses(404, 422) },
        },
      },
      async (request) => {
        const endpoint = await endpoints.get(request.apiKey!.accountId, request.params.id);
        const stepMs = (request.query.step ?? 60) * 1000;
        const to = cluster.now();
        const from = to - (request.query.minutes ?? 60) * 60_000;
        const jobs = await store.jobHistory.series(endpoint.id, { from, to, stepMs });
        const every = config.workerSampleIntervalMs;
        const samples = await store.workerSamples.list(endpoint.id, from - sampleLookback(every), to);
        const byState = workerSeries(
          samples,
          jobs.map((point) => point.t),
          every,
        );
        const points = jobs.map((point, i) => ({ ...point, workers: byState[i]! }));
        const workers = workerDirectory.list(endpoint.id, endpoint.version);
        const count = (status: string) => workers.filter((w) => w.status === status).length;
        return {
          from: new Date(from).toISOString(),
          to: new Date(to).toISOString(),
          stepSeconds: stepMs / 1000,
          points,
          workers: {
            running: count('RUNNING'),
            idle: count('IDLE'),
            initializing: count('INITIALIZING'),
            throttled: count('THROTTLED'),
            unhealthy: count('UNHEALTHY'),
          },
        };
      },
    );
  };
}
