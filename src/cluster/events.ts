// The notifications replicas exchange. Each names what changed; a receiver wakes its own waiters
// and re-reads the store, so a notification carries no state that could go stale. One exception:
// a job's final state, when small, rides with its 'job' event as it does with a local wake-up, so
// a waiter on another replica answers without reading the job again. A final state changes only
// by a retry, which its waiters check (see FinishedJob).
import type { JobRecord } from '../store/job-store.js';
import { TERMINAL_STATUSES, type JobStatus } from '../domain/job-state.js';

/**
 * What a job's waiters answer with once it is finished: the fields of a status answer and of its
 * checks (endpoint, expiry). A waiter takes it only if it is no older than what it read itself:
 * `retries` counts the job's attempts, and a retry is the only way out of a final state.
 */
export type FinishedJob = Pick<
  JobRecord,
  'id' | 'endpointId' | 'status' | 'submittedAt' | 'startedAt' | 'completedAt' | 'output' | 'error' | 'retries' | 'expiresAt'
>;

export type ClusterEvent =
  /**
   * A job changed (result, progress, stream chunk, status): wake its waiters. `finished`: its final
   * state as JSON text (see finishedJobOf), when it is finished and small enough to go along.
   */
  | { kind: 'job'; id: string; finished?: string }
  /** Jobs were queued on an endpoint: wake takers. */
  | { kind: 'queued'; id: string; count: number }
  /** A worker has stop requests waiting: wake its stop channel. */
  | { kind: 'stop'; id: string }
  /** An endpoint was created, changed or deleted: the autoscaler looks again. */
  | { kind: 'endpoint'; id: string }
  /** An API key was revoked: cached copies go (sent by the store with the change, see store/postgres/notifications.ts). */
  | { kind: 'key'; id: string };

const CODES = { job: 'j', queued: 'q', stop: 's', endpoint: 'e', key: 'k' } as const;
const KINDS = { j: 'job', q: 'queued', s: 'stop', e: 'endpoint', k: 'key' } as const;

/**
 * The longest final state that goes along with a 'job' event, in characters (ASCII, so bytes):
 * NOTIFY takes under 8000 bytes per payload, and one payload carries the events of many jobs.
 */
export const MAX_FINISHED_BYTES = 1500;

/**
 * One line per event: `<code> <id>[ <count or final state>]`. Ids are Gantry's own (no spaces or
 * newlines); JSON text has no raw newline. Replicas that know no final state ignore the rest of a line.
 */
export function encodeEvent(event: ClusterEvent): string {
  if (event.kind === 'queued') return `q ${event.id} ${event.count}`;
  if (event.kind === 'job' && event.finished !== undefined) return `j ${event.id} ${event.finished}`;
  return `${CODES[event.kind]} ${event.id}`;
}

export function decodeEvent(line: string): ClusterEvent | undefined {
  const space = line.indexOf(' ');
  const kind = space === -1 ? undefined : KINDS[line.slice(0, space) as keyof typeof KINDS];
  const end = line.indexOf(' ', space + 1);
  const id = end === -1 ? line.slice(space + 1) : line.slice(space + 1, end);
  const rest = end === -1 ? '' : line.slice(end + 1);
  if (!kind || !id) return undefined;
  if (kind === 'queued') return { kind, id, count: Math.max(1, Number(rest) || 1) };
  if (kind === 'job' && rest) return { kind, id, finished: rest };
  return { kind, id };
}

/** A finished job's final state as a 'job' event carries it; undefined when too large to go along. */
export function finishedJobText(job: FinishedJob): string | undefined {
  const finished: FinishedJob = {
    id: job.id,
    endpointId: job.endpointId,
    status: job.status,
    submittedAt: job.submittedAt,
    startedAt: job.startedAt,
    completedAt: job.completedAt,
    output: job.output,
    error: job.error,
    retries: job.retries,
    expiresAt: job.expiresAt,
  };
  const json = JSON.stringify(finished);
  if (json.length > MAX_FINISHED_BYTES) return undefined;
  // Escaped to ASCII: a payload's length is then its size in bytes (the bus counts lengths), and
  // it reads the same in any database encoding.
  const text = json.replace(NOT_ASCII, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return text.length <= MAX_FINISHED_BYTES ? text : undefined;
}

const NOT_ASCII = /[\u007f-\uffff]/g;

/** The final state a 'job' event carried, for the job `id`; undefined when it is not one (a waiter then reads the job). */
export function finishedJobOf(id: string, text: string): FinishedJob | undefined {
  let value: Partial<Record<keyof FinishedJob, unknown>>;
  try {
    value = JSON.parse(text) as typeof value;
  } catch {
    return undefined;
  }
  const nullableNumber = (v: unknown) => v === null || typeof v === 'number';
  const nullableString = (v: unknown) => v === null || typeof v === 'string';
  const valid =
    typeof value === 'object' &&
    value !== null &&
    value.id === id &&
    typeof value.endpointId === 'string' &&
    TERMINAL_STATUSES.has(value.status as JobStatus) &&
    typeof value.submittedAt === 'number' &&
    nullableNumber(value.startedAt) &&
    nullableNumber(value.completedAt) &&
    nullableString(value.output) &&
    nullableString(value.error) &&
    typeof value.retries === 'number' &&
    typeof value.expiresAt === 'number';
  return valid ? (value as FinishedJob) : undefined;
}

export interface EventBus {
  /** Sends to the other replicas; delivery to this one is the caller's business. */
  publish(event: ClusterEvent): void;
  /** Events from the other replicas. */
  subscribe(listener: (event: ClusterEvent) => void): void;
  /**
   * Whether another replica listens now: what only they would read (a finished job's state, a
   * notice for a statement to carry, NewJob.notice) need not be made otherwise.
   */
  othersListening(): boolean;
}
