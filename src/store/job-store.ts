// The job part of the Store port. Every hot-path operation is one statement:
// submit = insert, take = one conditional update, completion = one conditional update.
import type { JobStatus } from '../domain/job-state.js';
import type { SubmitKeyRecord } from './submit-key-store.js';

export interface NewJob {
  id: string;
  endpointId: string;
  accountId: string;
  /** The `input` value as JSON text, stored as received. */
  input: string;
  webhook: string | null;
  /** JSON text; handed to workers, never shown to clients. */
  s3Config: string | null;
  executionTimeoutMs: number;
  lowPriority: boolean;
  /** How long the result is kept after completion. */
  retentionMs: number;
  /** policy.ttl: the job's whole life from submit (or from a retry). */
  ttlMs: number;
  submittedAt: number;
  /** The job is gone after this instant, whatever its status. */
  expiresAt: number;
  /** Set when a waiting worker takes the job as it is submitted: it is stored already taken. */
  handedTo?: Handoff;
  /**
   * A notification to the other replicas that goes out when, and only if, the job is committed
   * (PostgreSQL; an encoded cluster event). Sent after the commit instead, the wake-up it carries
   * would cost a statement of its own and reach them a round trip later.
   */
  notice?: string;
}

/** A job's take, written with its submit (the same columns a take writes). */
export interface Handoff {
  workerId: string;
  startedAt: number;
  leaseUntil: number;
}

export interface JobRecord extends NewJob {
  status: JobStatus;
  startedAt: number | null;
  completedAt: number | null;
  output: string | null;
  error: string | null;
  workerId: string | null;
  leaseExpiresAt: number | null;
  /** Times the job went back to the queue: lost leases and client retries. */
  retries: number;
  leaseLosses: number;
}

/** A job without what only its worker reads (input, S3 settings): an input can be megabytes. */
export type JobState = Omit<JobRecord, 'input' | 's3Config'>;

export interface JobCounts {
  inQueue: number;
  inProgress: number;
  completed: number;
  failed: number;
  cancelled: number;
  timedOut: number;
  retried: number;
}

/** What the autoscaler reads each tick. Counts stop at QUEUE_STATS_CAP so a huge backlog stays cheap. */
export interface QueueStats {
  queued: number;
  queuedLowPriority: number;
  inProgress: number;
  oldestQueuedAt: number | null;
}

export const QUEUE_STATS_CAP = 100_000;

/** Chunks read from a job's stream, and the read positions before and after the read. */
export interface StreamRead {
  chunks: string[];
  from: number;
  through: number;
}

/** A worker writing to a job (progress, stream chunks): where it may write, and the lease its own job's write extends to. */
export interface JobWriter {
  endpointId: string;
  workerId: string;
  leaseUntil: number;
}

export interface Completion {
  status: 'COMPLETED' | 'FAILED' | 'TIMED_OUT' | 'CANCELLED';
  output: string | null;
  error: string | null;
  completedAt: number;
}

/** A job taken away from a worker by the store (timeout, expiry, lost lease). */
export interface DisplacedJob {
  id: string;
  endpointId: string;
  workerId: string | null;
  status: JobStatus;
}

export interface WorkerCredentialRecord {
  id: string;
  endpointId: string;
  secretHash: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface JobStore {
  insert(job: NewJob): Promise<void>;
  /**
   * Inserts the jobs in one transaction: all of them are stored, or none. With `key`, the submit
   * key is stored in it too; a key the endpoint already holds fails it with a conflict.
   */
  insertAll(jobs: readonly NewJob[], key?: SubmitKeyRecord): Promise<void>;
  get(id: string): Promise<JobRecord | undefined>;
  /** As get, without the input and S3 settings: what status answers and checks read. */
  getState(id: string): Promise<JobState | undefined>;
  /** Leases up to `limit` queued jobs of the endpoint to the worker, oldest normal-priority first. */
  take(endpointId: string, workerId: string, limit: number, now: number, leaseUntil: number): Promise<JobRecord[]>;
  /** Extends the leases the worker holds on these jobs of the endpoint; returns how many it still holds. */
  renewLeases(endpointId: string, workerId: string, jobIds: string[], leaseUntil: number): Promise<number>;
  /** Records a progress output of a running job of the writer's endpoint that its worker holds, and renews the lease. */
  recordProgress(id: string, output: string, writer: JobWriter): Promise<boolean>;
  /**
   * Moves a job to a terminal status if it is in one of `from` (and, with `endpointId`, of that
   * endpoint; with `by`, held by that worker, or with `late` one that lost a lease since it was last
   * retried, whose late result it may be); returns the updated job, whose `workerId` is the worker
   * that held it, without its input (JobState). A job a purge has hidden is not found.
   */
  complete(
    id: string,
    from: readonly JobStatus[],
    completion: Completion,
    endpointId?: string,
    by?: ResultFrom,
  ): Promise<JobState | undefined>;
  /**
   * Puts a failed or timed-out job back in the queue with its original input; answers its new
   * state. Its life starts again: it expires at `expiresAt` (now + its ttl) and counts as submitted
   * at `expiresAt - ttl`, so its delay and the queue's oldest wait are this attempt's.
   */
  requeue(id: string, from: readonly JobStatus[], expiresAt: number): Promise<JobState | undefined>;
  setExpiry(id: string, expiresAt: number): Promise<void>;
  /**
   * Removes every queued job of the endpoint at once and answers how many: they are never taken,
   * shown or counted again; their rows go later, through deletePurged. Jobs queued afterwards
   * (submitted, retried or back from a lost lease) are not affected.
   */
  purgeQueued(endpointId: string): Promise<number>;
  /** Deletes up to `limit` rows of purged jobs (of any endpoint); answers how many, 0 when none are left. */
  deletePurged(limit: number): Promise<number>;
  counts(endpointId: string): Promise<JobCounts>;
  queueStats(endpointId: string): Promise<QueueStats>;
  /** Oldest normal-priority queued job's submit time, or null. */
  oldestQueuedAt(endpointId: string): Promise<number | null>;
  /**
   * Appends chunks to a job's stream, in order, only to a job of the writer's endpoint that is not
   * finished, renewing the lease if the writer's worker holds it, in the same write. Answers the
   * worker that holds the job, or undefined when nothing was appended.
   */
  appendStream(id: string, outputs: string[], writer: JobWriter): Promise<{ workerId: string | null } | undefined>;
  /** Chunks written since the previous read, in order; advances the read position. */
  readStream(id: string): Promise<StreamRead>;
  /**
   * Puts the chunks of a read back for the next one (its reader left before it got them), unless
   * the stream has been read again since. Answers whether they were put back.
   */
  unreadStream(id: string, read: StreamRead): Promise<boolean>;

  /** Sweeps: each returns what it changed, so workers can be told to stop. */
  deleteExpired(now: number, limit: number): Promise<DisplacedJob[]>;
  timeOutOverdue(now: number, limit: number): Promise<DisplacedJob[]>;
  /** Lapsed leases go back to the queue, or fail after `maxLosses`. */
  releaseLapsedLeases(now: number, maxLosses: number, limit: number): Promise<{ requeued: DisplacedJob[]; failed: DisplacedJob[] }>;
  /**
   * Every job a worker holds goes back to the queue at once (the worker is known to be gone). A
   * worker that crashed lost them (`lost`): each such return counts with the lapsed leases, and a job
   * already returned `maxLosses` times fails instead, as after a lapse.
   */
  releaseWorker(workerId: string, lost?: { now: number; maxLosses: number }): Promise<{ requeued: DisplacedJob[]; failed: DisplacedJob[] }>;
  /**
   * Jobs a worker took but never received (its long-poll ended before the answer went out) go
   * back to the queue as they were, with no retry counted; jobs it no longer holds are left alone.
   */
  handBack(workerId: string, ids: readonly string[]): Promise<DisplacedJob[]>;

  /** Records that a worker must abort a job; its stop channel hands the request out once. */
  requestStop(endpointId: string, workerId: string, jobId: string, at: number): Promise<void>;
  /** The jobs of the endpoint the worker must abort, removed as they are handed out. */
  drainStops(endpointId: string, workerId: string): Promise<string[]>;
  /** Drops stop requests nobody collected (their worker is gone). */
  forgetStops(requestedBefore: number): Promise<void>;

  /**
   * Finished jobs whose webhook is due (oldest first), claimed for `claimMs`: until then no other
   * process sends them, and if this one dies they come due again. Each claim counts an attempt.
   */
  claimWebhooks(now: number, claimMs: number, limit: number): Promise<DueWebhook[]>;
  /** After an attempt: when to try again, or null when it is over (delivered or given up). */
  webhookAttempted(jobId: string, nextDueAt: number | null): Promise<void>;

  insertWorkerCredential(credential: WorkerCredentialRecord): Promise<void>;
  getWorkerCredential(id: string): Promise<WorkerCredentialRecord | undefined>;
}

/** Who sends a result: the worker, and whether a late result (its lease lost) is taken too. */
export interface ResultFrom {
  workerId: string;
  late: boolean;
}

export interface DueWebhook {
  job: JobState;
  /** 1 for the first attempt. */
  attempt: number;
  /** The job's endpoint's signing secret, sealed; null when the endpoint has none yet. */
  sealedSecret: string | null;
}
