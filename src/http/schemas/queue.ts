// Schemas of the queue API (client side) and the worker protocol.
import { Type } from '@sinclair/typebox';
import { JOB_LIMITS } from '../../domain/job-state.js';

const SEVEN_DAYS_MS = 7 * 24 * 3600_000;

export const RunBody = Type.Object(
  {
    input: Type.Object({}, { additionalProperties: true, description: 'Handler input, any JSON object' }),
    webhook: Type.Optional(Type.String({ minLength: 1, description: 'URL that receives the status body when the job finishes' })),
    webhookV2: Type.Optional(Type.String({ minLength: 1, description: 'Accepted as webhook' })),
    policy: Type.Optional(
      Type.Object(
        {
          executionTimeout: Type.Optional(
            Type.Integer({ minimum: 1000, maximum: SEVEN_DAYS_MS, description: 'ms; overrides the endpoint timeout' }),
          ),
          lowPriority: Type.Optional(Type.Boolean({ description: 'served after normal jobs; never causes a scale-up' })),
          ttl: Type.Optional(
            Type.Integer({ minimum: 1000, maximum: SEVEN_DAYS_MS, description: 'ms; the job is gone this long after submit' }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    s3Config: Type.Optional(
      Type.Object(
        {
          accessId: Type.String(),
          accessSecret: Type.String(),
          bucketName: Type.String(),
          endpointUrl: Type.String(),
          objectPath: Type.Optional(Type.String()),
        },
        { additionalProperties: false, description: 'Handed to the worker; never returned' },
      ),
    ),
  },
  { additionalProperties: false },
);

export const RunBatchBody = Type.Object(
  {
    jobs: Type.Array(RunBody, {
      minItems: 1,
      maxItems: JOB_LIMITS.runBatchMaxJobs,
      description: 'Jobs to queue, each as the body of /run; all are queued or none',
    }),
  },
  { additionalProperties: false },
);

/** What run, cancel and retry answer. */
export const JobIdAndStatus = Type.Object({ id: Type.String(), status: Type.String() });
export const SubmittedBatchResponse = Type.Object({ jobs: Type.Array(JobIdAndStatus, { description: 'In the order submitted' }) });

export const SubmitKeyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x21-\\x7e]+$',
      'x-pattern-message': 'must be visible ASCII characters only',
      description:
        'Visible ASCII, at most 255 characters. The same request sent again with the same key within a day queues nothing and is answered with the jobs the first one queued (header Idempotent-Replayed: true); the key with another request is 422',
    }),
  ),
});

export const EndpointParams = Type.Object({ endpointId: Type.String() });
export const JobParams = Type.Object({ endpointId: Type.String(), jobId: Type.String() });
export const WorkerParams = Type.Object({ endpointId: Type.String(), workerId: Type.String({ minLength: 1, maxLength: 128 }) });
export const WorkerJobParams = Type.Object({
  endpointId: Type.String(),
  workerId: Type.String({ minLength: 1, maxLength: 128 }),
  jobId: Type.String(),
});

export const WaitQuery = Type.Object({
  wait: Type.Optional(
    Type.Integer({ minimum: JOB_LIMITS.runsyncMinWaitMs, maximum: JOB_LIMITS.runsyncMaxWaitMs, description: 'ms to wait for the result' }),
  ),
});
export const TtlQuery = Type.Object({
  ttl: Type.Optional(Type.Integer({ minimum: 1000, maximum: SEVEN_DAYS_MS, description: 'ms from now until the job expires' })),
});

export const JobStatusResponse = Type.Object({
  id: Type.String(),
  status: Type.String(),
  delayTime: Type.Optional(Type.Integer()),
  executionTime: Type.Optional(Type.Integer()),
  output: Type.Optional(Type.Unknown()),
  error: Type.Optional(Type.String()),
  retries: Type.Optional(Type.Integer()),
});

// Workers add their own query parameters (gpu=..., runpod_version=...); only the ones used are declared.
export const TakeQuery = Type.Object(
  { batch_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })), job_in_progress: Type.Optional(Type.String()) },
  { additionalProperties: true },
);
export const DoneQuery = Type.Object({ isStream: Type.Optional(Type.String()) }, { additionalProperties: true });
export const DoneBatchQuery = Type.Object(
  {
    take: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 64, description: 'after recording the results, take up to this many queued jobs (no waiting)' }),
    ),
  },
  { additionalProperties: true },
);
export const PingQuery = Type.Object(
  {
    job_id: Type.Optional(Type.String()),
    status: Type.Optional(Type.String()),
    check: Type.Optional(Type.String()),
    reason: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);
