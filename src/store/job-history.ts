// Reading an endpoint's recent jobs back, for people looking at them (the console, the API's job
// list and charts): newest first with a cursor, the stream chunks without moving the read position,
// and the times of the jobs of a window. Nothing here is on the queue's hot path.
import type { JobStatus } from '../domain/job-state.js';
import type { JobRecord } from './job-store.js';

export interface JobListQuery {
  /** Only jobs in one of these statuses; all when empty. */
  statuses: readonly JobStatus[];
  limit: number;
  /** Only jobs older than this position (a previous page's `next`). */
  before?: number | undefined;
}

export interface JobPage {
  jobs: JobRecord[];
  /** The position to pass as `before` for the next page; null on the last one. */
  next: number | null;
}

/** When a job of a window was submitted, started and finished, and how it ended. */
export interface JobTimes {
  status: JobStatus;
  submittedAt: number;
  startedAt: number | null;
  completedAt: number | null;
}

/** Most jobs one window reads: a busy endpoint's charts are drawn from its latest ones. */
export const JOB_WINDOW_CAP = 50_000;

export interface JobHistoryStore {
  list(endpointId: string, query: JobListQuery): Promise<JobPage>;
  /** Every stream chunk the job has, in order (at most `limit`), whoever has read them. */
  chunks(jobId: string, limit: number): Promise<string[]>;
  /** Jobs of the endpoint submitted, or finished, at `since` or later (the newest JOB_WINDOW_CAP). */
  window(endpointId: string, since: number): Promise<JobTimes[]>;
}

export interface JobTimesRow {
  status: JobStatus;
  submitted_at: number | string;
  started_at: number | string | null;
  completed_at: number | string | null;
}

export const timesFromRow = (row: JobTimesRow): JobTimes => ({
  status: row.status,
  submittedAt: Number(row.submitted_at),
  startedAt: row.started_at === null ? null : Number(row.started_at),
  completedAt: row.completed_at === null ? null : Number(row.completed_at),
});
