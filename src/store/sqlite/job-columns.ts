// The columns of a job that the hot statements return, in a fixed order, read as arrays
// (better-sqlite3's raw mode) rather than as objects: building a row object of every column
// cost more than the statement itself (5.5 against 2.4 us for a job read by id).
import type { JobStatus } from '../../domain/job-state.js';
import type { JobRecord, JobState } from '../job-store.js';
import { JOB_STATE_COLUMNS, WRITTEN_BY_COMPLETION } from '../shared/job-sql.js';

/**
 * Inputs, outputs and errors of more than this many bytes are kept in job_inputs, job_outputs and
 * job_errors, and the job's row holds '' (decisions 35 and 36). A row with smaller ones still fits
 * in its page, with no overflow pages to write again.
 */
const INLINE_MAX_BYTES = 2048;

/** Whether an input, an output (JSON text) or an error is kept in its own table rather than in its job's row. */
export function keptApart(text: string): boolean {
  // A UTF-16 code unit is 1 to 3 bytes of UTF-8: only the lengths in between need counting.
  if (text.length > INLINE_MAX_BYTES) return true;
  if (text.length * 3 <= INLINE_MAX_BYTES) return false;
  return Buffer.byteLength(text) > INLINE_MAX_BYTES;
}

/** A job's input wherever it is kept. JSON text is never empty, so '' marks one kept apart. */
const INPUT = `CASE WHEN jobs.input <> '' THEN jobs.input
  ELSE (SELECT job_inputs.input FROM job_inputs WHERE job_inputs.seq = jobs.seq) END`;

/** A job's output wherever it is kept; NULL (no output yet) stays NULL. */
const OUTPUT = `CASE WHEN jobs.output = '' THEN (SELECT job_outputs.output FROM job_outputs WHERE job_outputs.seq = jobs.seq)
  ELSE jobs.output END`;

/**
 * A job's error wherever it is kept; NULL stays NULL. An error is never written empty, but one that
 * was (before migration 024) has no row in job_errors and still reads as ''.
 */
const ERROR = `CASE WHEN jobs.error = '' THEN coalesce((SELECT job_errors.error FROM job_errors WHERE job_errors.seq = jobs.seq), '')
  ELSE jobs.error END`;

const KEPT_APART: Record<string, string> = { output: `${OUTPUT} AS output`, error: `${ERROR} AS error` };

/**
 * The select list of JOB_STATE_COLUMNS, in that order and by those names (for jobStateFromValues
 * and for rows read as objects), the output and the error found where they are kept.
 */
export const JOB_STATE_COLUMNS_SQL = JOB_STATE_COLUMNS.map((column) => KEPT_APART[column] ?? `jobs.${column}`).join(', ');

/** The select list of jobFromValues' values: JOB_RECORD_COLUMNS, input, output and error found where they are kept. */
export const JOB_COLUMNS = `${JOB_STATE_COLUMNS_SQL}, ${INPUT}, jobs.s3_config`;

const WRITTEN = new Set<string>(WRITTEN_BY_COMPLETION);
const COMPLETED_STATE = JOB_STATE_COLUMNS.map((column) => (WRITTEN.has(column) ? 'NULL' : `jobs.${column}`));

/**
 * What a completion returns: JOB_STATE_COLUMNS with NULL for the output and the error it wrote
 * (its caller has them, and one kept apart is not in the row), then the row's seq.
 */
export const COMPLETED_COLUMNS = `${COMPLETED_STATE.join(', ')}, jobs.seq`;

/** The row's seq among a completion's values (COMPLETED_COLUMNS). */
export function completedSeq(values: unknown[]): number {
  return values[JOB_STATE_COLUMNS.length] as number;
}

/** A completed job's state: its completion's values (COMPLETED_COLUMNS) and the output and error it wrote. */
export function completedState(values: unknown[], output: string | null, error: string | null): JobState {
  const state = jobStateFromValues(values);
  state.output = output;
  state.error = error;
  return state;
}

/** A job's state from the values of JOB_STATE_COLUMNS, in that order. */
export function jobStateFromValues(v: unknown[]): JobState {
  return {
    id: v[0] as string,
    endpointId: v[1] as string,
    accountId: v[2] as string,
    status: v[3] as JobStatus,
    webhook: v[4] as string | null,
    executionTimeoutMs: v[5] as number,
    lowPriority: Boolean(v[6]),
    retentionMs: v[7] as number,
    ttlMs: v[8] as number,
    submittedAt: v[9] as number,
    startedAt: v[10] as number | null,
    completedAt: v[11] as number | null,
    expiresAt: v[12] as number,
    output: v[13] as string | null,
    error: v[14] as string | null,
    workerId: v[15] as string | null,
    leaseExpiresAt: v[16] as number | null,
    retries: v[17] as number,
    leaseLosses: v[18] as number,
  };
}

/** A job from the values of JOB_RECORD_COLUMNS, in that order: its state, then input and S3 settings. */
export function jobFromValues(v: unknown[]): JobRecord {
  // Added to the state's object rather than spread into a new one, which costs a copy per job.
  const job = jobStateFromValues(v) as JobRecord;
  job.input = v[19] as string;
  job.s3Config = v[20] as string | null;
  return job;
}
