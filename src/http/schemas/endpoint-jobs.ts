// Schemas of an endpoint's job list, one job's detail and the endpoint's job series.
import { Type } from '@sinclair/typebox';
import { StringEnum } from './common.js';
import { JOB_STATUSES } from '../../domain/job-state.js';

export const JobListQuery = Type.Object(
  {
    status: Type.Optional(
      Type.String({
        pattern: `^(${JOB_STATUSES.join('|')})(,(${JOB_STATUSES.join('|')}))*$`,
        'x-pattern-message': `must be statuses from ${JOB_STATUSES.join(', ')}, comma-separated`,
        description: 'Statuses, comma-separated',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    before: Type.Optional(Type.Integer({ minimum: 1, description: 'The `next` of the previous page' })),
  },
  { additionalProperties: false },
);

const Millis = Type.Union([Type.Integer(), Type.Null()], { description: 'ms' });
const Instant = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

const jobSummaryProperties = {
  id: Type.String(),
  status: StringEnum(JOB_STATUSES),
  submittedAt: Type.String({ format: 'date-time' }),
  startedAt: Instant,
  completedAt: Instant,
  delayTime: Millis,
  executionTime: Millis,
  workerId: Type.Union([Type.String(), Type.Null()]),
  retries: Type.Integer(),
  lowPriority: Type.Boolean(),
  webhook: Type.Boolean({ description: 'Whether a webhook is set (its address is not shown)' }),
};

export const JobSummary = Type.Object(jobSummaryProperties);

export const JobListResponse = Type.Object({
  jobs: Type.Array(JobSummary),
  next: Type.Union([Type.Integer(), Type.Null()], { description: 'Pass as `before` for older jobs; null when there are none' }),
});

export const JobDetail = Type.Object({
  ...jobSummaryProperties,
  input: Type.Unknown(),
  output: Type.Optional(Type.Unknown()),
  error: Type.Union([Type.String(), Type.Null()]),
  executionTimeoutMs: Type.Integer(),
  expiresAt: Type.String({ format: 'date-time' }),
  stream: Type.Array(Type.Unknown(), { description: 'Stream chunks so far (the first 1000), whether or not a client read them' }),
});

export const JobDetailParams = Type.Object({ id: Type.String(), jobId: Type.String() });

export const SeriesQuery = Type.Object(
  {
    minutes: Type.Optional(Type.Integer({ minimum: 5, maximum: 1440, default: 60, description: 'How far back' })),
    step: Type.Optional(Type.Integer({ minimum: 10, maximum: 3600, default: 60, description: 'Seconds per point' })),
  },
  { additionalProperties: false },
);

const Ms = Type.Union([Type.Number(), Type.Null()]);
const WorkerStates = (description: string) =>
  Type.Object(
    {
      running: Type.Integer(),
      idle: Type.Integer(),
      initializing: Type.Integer(),
      throttled: Type.Integer(),
      unhealthy: Type.Integer(),
    },
    { description },
  );
export const SeriesResponse = Type.Object({
  from: Type.String({ format: 'date-time' }),
  to: Type.String({ format: 'date-time' }),
  stepSeconds: Type.Integer(),
  points: Type.Array(
    Type.Object({
      t: Type.Integer({ description: "The step's end, epoch ms" }),
      queued: Type.Integer(),
      inProgress: Type.Integer(),
      submitted: Type.Integer(),
      completed: Type.Integer(),
      failed: Type.Integer(),
      cancelled: Type.Integer(),
      timedOut: Type.Integer(),
      delayP50: Ms,
      delayP90: Ms,
      delayP99: Ms,
      executionP50: Ms,
      executionP90: Ms,
      executionP99: Ms,
      workers: WorkerStates("Workers by state at the step's end, from the latest sample taken before it"),
    }),
  ),
  workers: WorkerStates('Workers by state now'),
});
