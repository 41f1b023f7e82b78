// SQL both dialects read the same way, kept once so the two stores cannot drift apart.
import { TERMINAL_STATUSES } from '../../domain/job-state.js';

/** The error a timed-out job is given, built from its own row. */
export const TIMED_OUT_ERROR_SQL = `'the job ran longer than its execution timeout of ' || execution_timeout_ms || ' ms'`;

/** Terminal statuses as an SQL list; they are a closed enum, never user text. */
export const TERMINAL_STATUS_LIST = [...TERMINAL_STATUSES].map((status) => `'${status}'`).join(', ');
