// Job bodies as clients and workers receive them. Inputs and outputs are stored as JSON text
// and spliced in as they are, so a large payload is never parsed and re-serialised on the way out.
import type { JobRecord } from '../store/job-store.js';

/** What a status answer is made of. */
type StatusFields = Pick<JobRecord, 'id' | 'status' | 'submittedAt' | 'startedAt' | 'completedAt' | 'output' | 'error' | 'retries'>;
type Times = Pick<JobRecord, 'status' | 'submittedAt' | 'startedAt' | 'completedAt'>;

/** `{id, status, delayTime?, executionTime?, output?, error?, retries?}`, as /status answers. */
export function statusJson(job: StatusFields, now: number): string {
  let body = `{"id":${JSON.stringify(job.id)},"status":"${job.status}"`;
  const delay = delayTime(job, now);
  if (delay !== undefined) body += `,"delayTime":${delay}`;
  const execution = executionTime(job, now);
  if (execution !== undefined) body += `,"executionTime":${execution}`;
  if (job.output !== null) body += `,"output":${job.output}`;
  if (job.error !== null) body += `,"error":${JSON.stringify(job.error)}`;
  if (job.retries > 0) body += `,"retries":${job.retries}`;
  return `${body}}`;
}

/** Time spent waiting in the queue: until it started, or until now/its end if it never did. */
export function delayTime(job: Times, now: number): number | undefined {
  if (job.startedAt !== null) return Math.max(0, job.startedAt - job.submittedAt);
  if (job.completedAt !== null) return Math.max(0, job.completedAt - job.submittedAt);
  return job.status === 'IN_QUEUE' ? Math.max(0, now - job.submittedAt) : undefined;
}

export function executionTime(job: Pick<Times, 'startedAt' | 'completedAt'>, now: number): number | undefined {
  if (job.startedAt === null) return undefined;
  return Math.max(0, (job.completedAt ?? now) - job.startedAt);
}

/** What a worker receives from job-take: `{id, input, s3Config?}`. */
export function takenJobJson(job: JobRecord): string {
  const s3 = job.s3Config === null ? '' : `,"s3Config":${job.s3Config}`;
  return `{"id":${JSON.stringify(job.id)},"input":${job.input}${s3}}`;
}

/** Several taken jobs, as job-take-batch answers them: a JSON array of `takenJobJson`. */
export function takenJobsJson(jobs: JobRecord[]): string {
  return `[${jobs.map(takenJobJson).join(',')}]`;
}
