// SQL both dialects read the same way, kept once so the two stores cannot drift apart.
import { TERMINAL_STATUSES } from '../../domain/job-state.js';

/** The error a timed-out job is given, built from its own row. */
export const TIMED_OUT_ERROR_SQL = `'the job ran longer than its execution timeout of ' || execution_timeout_ms || ' ms'`;

/** Terminal statuses as an SQL list; they are a closed enum, never user text. */
export const TERMINAL_STATUS_LIST = [...TERMINAL_STATUSES].map((status) => `'${status}'`).join(', ');

/** The columns a job record is made from, in this order: what job reads return instead of every column. */
export const JOB_RECORD_COLUMNS = [
  'id',
  'endpoint_id',
  'account_id',
  'status',
  'input',
  'webhook',
  's3_config',
  'execution_timeout_ms',
  'low_priority',
  'retention_ms',
  'ttl_ms',
  'submitted_at',
  'started_at',
  'completed_at',
  'expires_at',
  'output',
  'error',
  'worker_id',
  'lease_expires_at',
  'retries',
  'lease_losses',
] as const;

/** JOB_RECORD_COLUMNS as a select list, each qualified by `table` when one is given (UPDATE ... FROM needs it). */
export function jobRecordColumns(table?: string): string {
  return JOB_RECORD_COLUMNS.map((column) => (table ? `${table}.${column}` : column)).join(', ');
}
