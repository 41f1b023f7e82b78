// Reading an endpoint's recent jobs back, for people looking at them (the console, the API's job
// list and charts): newest first with a cursor, the stream chunks without moving the read position,
// and an endpoint's jobs counted step by step for its charts. Nothing here is on the queue's hot path.
import type { JobStatus } from '../domain/job-state.js';
import type { JobState } from './job-store.js';

export interface JobListQuery {
  /** Only jobs in one of these statuses; all when empty. */
  statuses: readonly JobStatus[];
  limit: number;
  /** Only jobs older than this position (a previous page's `next`). */
  before?: number | undefined;
}

export interface JobPage {
  /** The jobs' states: a list shows no input. */
  jobs: JobState[];
  /** The position to pass as `before` for the next page; null on the last one. */
  next: number | null;
}

/** The span of a series: steps of `stepMs` from `from` to `to` (epoch ms), the last one cut at `to`. */
export interface SeriesSpan {
  from: number;
  to: number;
  stepMs: number;
}

/** An endpoint's jobs in one step of a series. */
export interface JobSeriesPoint {
  /** The step's end, epoch ms. */
  t: number;
  /** Jobs waiting, and running, at the step's end. */
  queued: number;
  inProgress: number;
  /** Jobs submitted, and finished by outcome, in the step. */
  submitted: number;
  completed: number;
  failed: number;
  cancelled: number;
  timedOut: number;
  /** Queue delay of the jobs that started in the step, ms (nearest rank); null when none did. */
  delayP50: number | null;
  delayP90: number | null;
  delayP99: number | null;
  /** Execution time of the jobs that finished after running in the step, ms; null when none did. */
  executionP50: number | null;
  executionP90: number | null;
  executionP99: number | null;
}

/** Most jobs one series counts: a busy endpoint's charts are drawn from its latest ones. */
export const JOB_WINDOW_CAP = 50_000;

export interface JobHistoryStore {
  list(endpointId: string, query: JobListQuery): Promise<JobPage>;
  /** Every stream chunk the job has, in order (at most `limit`), whoever has read them. */
  chunks(jobId: string, limit: number): Promise<string[]>;
  /**
   * The endpoint's jobs step by step over `span`, from those submitted or finished in it and those
   * not finished (the newest JOB_WINDOW_CAP of them); the store counts them where they are kept.
   */
  series(endpointId: string, span: SeriesSpan): Promise<JobSeriesPoint[]>;
}
