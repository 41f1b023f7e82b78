// Job statuses and the transitions clients may ask for. Terminal jobs stay readable until
// their results expire; after that they are gone (404).

export const JOB_STATUSES = ['IN_QUEUE', 'IN_PROGRESS', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'] as const;

export type JobStatus = (typeof JOB_STATUSES)[number];

export const TERMINAL_STATUSES: ReadonlySet<JobStatus> = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT']);

export function isTerminal(status: JobStatus): boolean {
  return TERMINAL_STATUSES.has(status);
}

/** Cancel applies to queued and running jobs. */
export function canCancel(status: JobStatus): boolean {
  return status === 'IN_QUEUE' || status === 'IN_PROGRESS';
}

/** Retry applies to failed and timed-out jobs whose results have not expired. */
export function canRetry(status: JobStatus): boolean {
  return status === 'FAILED' || status === 'TIMED_OUT';
}

/**
 * When a lease asked to last until `leaseUntil` ends: never past the job's execution deadline, so
 * the sweeps find timed-out jobs among the ended leases (docs/decisions/0043). The stores apply the
 * same rule in SQL to the leases they renew.
 */
export function leaseEnd(leaseUntil: number, startedAt: number, executionTimeoutMs: number): number {
  return Math.min(leaseUntil, startedAt + executionTimeoutMs);
}

/** Time limits of the queue, in milliseconds. */
export const JOB_LIMITS = {
  runBodyBytes: 10 * 1024 * 1024,
  /** Jobs one run-batch request may queue; together they share runBodyBytes. */
  runBatchMaxJobs: 1000,
  runsyncBodyBytes: 20 * 1024 * 1024,
  runRetentionMs: 30 * 60_000,
  runsyncMinRetentionMs: 60_000,
  runsyncMaxRetentionMs: 5 * 60_000,
  runsyncDefaultWaitMs: 90_000,
  runsyncMinWaitMs: 1000,
  runsyncMaxWaitMs: 300_000,
  defaultTtlMs: 24 * 3600_000,
  streamChunkBytes: 1024 * 1024,
} as const;

/** A runsync result is kept one minute, or as long as the caller was willing to wait, at most five. */
export function runsyncRetentionMs(waitMs: number): number {
  return Math.min(JOB_LIMITS.runsyncMaxRetentionMs, Math.max(JOB_LIMITS.runsyncMinRetentionMs, waitMs));
}
