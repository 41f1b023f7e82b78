// What both job stores make of the rows their statements return.
import type { JobStatus } from '../../domain/job-state.js';
import type { JobCounts, JobRecord } from '../job-store.js';

/** A take's batch in queue order: normal priority before low, then oldest first (RETURNING keeps no order). */
export function inTakeOrder(jobs: JobRecord[]): JobRecord[] {
  return jobs.sort((a, b) => Number(a.lowPriority) - Number(b.lowPriority) || a.submittedAt - b.submittedAt);
}

const COUNT_NAMES: Record<JobStatus, keyof JobCounts> = {
  IN_QUEUE: 'inQueue',
  IN_PROGRESS: 'inProgress',
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  TIMED_OUT: 'timedOut',
};

/** Per-status counts (statuses without jobs are absent) as JobCounts; `retried` counts jobs retried at least once. */
export function countsFromRows(rows: { status: JobStatus; n: number }[], retried: number): JobCounts {
  const counts: JobCounts = { inQueue: 0, inProgress: 0, completed: 0, failed: 0, cancelled: 0, timedOut: 0, retried };
  for (const row of rows) counts[COUNT_NAMES[row.status]] = row.n;
  return counts;
}
