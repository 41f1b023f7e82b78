// SQL both dialects read the same way, kept once so the two stores cannot drift apart.
import { TERMINAL_STATUSES } from '../../domain/job-state.js';

/** The error a timed-out job is given, built from its own row. */
export const TIMED_OUT_ERROR_SQL = `'the job ran longer than its execution timeout of ' || execution_timeout_ms || ' ms'`;

/**
 * When a running job's execution timeout ends it. A lease never runs past it (every statement that
 * sets one caps it here), so the sweeps find timed-out jobs and lapsed leases alike among the
 * leases that have ended, by index, however many jobs are running (docs/decisions/0043).
 */
export const DEADLINE_SQL = 'started_at + execution_timeout_ms';

/** Terminal statuses as an SQL list; they are a closed enum, never user text. */
export const TERMINAL_STATUS_LIST = [...TERMINAL_STATUSES].map((status) => `'${status}'`).join(', ');

/**
 * The columns of a job's state, in this order: everything but what only its worker reads. Status
 * reads select these, since an input can be megabytes that no status answer shows.
 */
export const JOB_STATE_COLUMNS = [
  'id',
  'endpoint_id',
  'account_id',
  'status',
  'webhook',
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

/** The state columns a completion writes from its caller's values, which it need not return to that caller. */
export const WRITTEN_BY_COMPLETION = ['output', 'error'] as const satisfies readonly (typeof JOB_STATE_COLUMNS)[number][];

/** The columns a job record is made from, in this order: its state, then what its worker reads. */
export const JOB_RECORD_COLUMNS = [...JOB_STATE_COLUMNS, 'input', 's3_config'] as const;

/** JOB_RECORD_COLUMNS as a select list, each qualified by `table` when one is given (UPDATE ... FROM needs it). */
export function jobRecordColumns(table?: string): string {
  return selectList(JOB_RECORD_COLUMNS, table);
}

/** JOB_STATE_COLUMNS as a select list, as jobRecordColumns. */
export function jobStateColumns(table?: string): string {
  return selectList(JOB_STATE_COLUMNS, table);
}

/**
 * JOB_STATE_COLUMNS but `omitted`, as jobStateColumns: for a statement that wrote those columns
 * itself, whose caller has their values already (a large output would cross the socket back).
 */
export function jobStateColumnsBut(omitted: readonly (typeof JOB_STATE_COLUMNS)[number][], table?: string): string {
  return selectList(
    JOB_STATE_COLUMNS.filter((column) => !omitted.includes(column)),
    table,
  );
}

function selectList(columns: readonly string[], table: string | undefined): string {
  return columns.map((column) => (table ? `${table}.${column}` : column)).join(', ');
}
