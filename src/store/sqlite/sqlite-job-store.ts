// The job store on SQLite. Statements are prepared once; each hot-path call is one statement.
import type Database from 'better-sqlite3';
import { leaseEnd, type JobStatus } from '../../domain/job-state.js';
import type {
  Completion,
  DisplacedJob,
  DueWebhook,
  JobCounts,
  JobRecord,
  JobState,
  JobStore,
  JobWriter,
  NewJob,
  QueueStats,
  ResultFrom,
  StreamRead,
  WorkerCredentialRecord,
} from '../job-store.js';
import { QUEUE_STATS_CAP } from '../job-store.js';
import {
  dueWebhookFromRow,
  LOST_LEASE_ERROR,
  LOST_WORKER_ERROR,
  workerCredentialFromRow,
  type WebhookRow,
  type WorkerCredentialRow,
} from '../rows.js';
import { conflictText, jobsInsertConflict, uniquely } from '../shared/conflicts.js';
import type { SubmitKeyRecord } from '../submit-key-store.js';
import type { SqliteSubmitKeys } from './sqlite-submit-keys.js';
import { purgedRow, ROW_GENERATION } from '../shared/queue-generation-sql.js';
import { GENERATION, prepareJobStatements, type JobStatements } from './sqlite-job-statements.js';
import { SqliteQueuePurges } from './sqlite-queue-purge.js';
import { SqliteEndpointJobs } from './sqlite-endpoint-jobs.js';
import { SqliteJobStreams } from './sqlite-job-streams.js';
import { SqliteKeptApart } from './sqlite-kept-apart.js';
import { COMPLETED_COLUMNS, completedState, JOB_STATE_COLUMNS_SQL, keptApart, jobFromValues, jobStateFromValues } from './job-columns.js';
import type { HistoryReader } from './history-reader.js';
import { countJobs } from './sqlite-job-counts.js';

function statusList(statuses: readonly JobStatus[]): string {
  // Statuses are a closed enum, never user text, so inlining them is safe and keeps one statement per set.
  return statuses.map((s) => `'${s}'`).join(', ');
}

export class SqliteJobStore implements JobStore {
  private readonly s: JobStatements;
  private readonly completeBy = new Map<string, Database.Statement>();
  private readonly takeableBy = new Map<number, Database.Statement>();
  private readonly requeueBy = new Map<string, Database.Statement>();
  private readonly purges: SqliteQueuePurges;
  private readonly endpointJobs: SqliteEndpointJobs;
  private readonly streams: SqliteJobStreams;
  private readonly apart: SqliteKeptApart;
  // Transaction functions of per-request calls, made once: better-sqlite3 builds four wrappers
  // and their properties on every db.transaction() call, a visible cost on a busy queue.
  private readonly takeQueued;
  private readonly requeueAndClear;
  private readonly handBackAll;
  private readonly insertRows: (jobs: readonly NewJob[], key: SubmitKeyRecord | undefined) => void;

  constructor(
    private readonly db: Database.Database,
    private readonly history: HistoryReader,
    private readonly submitKeys: SqliteSubmitKeys,
  ) {
    this.s = prepareJobStatements(db);
    this.purges = new SqliteQueuePurges(db);
    this.endpointJobs = new SqliteEndpointJobs(db, this.purges);
    this.streams = new SqliteJobStreams(db);
    this.apart = new SqliteKeptApart(db);
    // A select, then one update by primary key per job: an UPDATE ... WHERE seq IN (subquery)
    // costs several times more, above all on the empty queue idle workers poll.
    this.takeQueued = db.transaction((endpointId: string, workerId: string, limit: number, now: number, leaseUntil: number) => {
      const due = this.takeableUpTo(limit).all(endpointId, endpointId, now) as { seq: number }[];
      const taken: JobRecord[] = [];
      for (const { seq } of due) {
        const values = this.s.takeOne.get(workerId, now, leaseUntil, now, seq) as unknown[] | undefined;
        if (values) taken.push(jobFromValues(values));
      }
      return taken;
    });
    this.requeueAndClear = db.transaction((statement: Database.Statement, id: string, expiresAt: number) => {
      const updated = statement.get(expiresAt, expiresAt, id) as unknown[] | undefined;
      if (updated) {
        this.streams.clear(id);
        this.apart.dropResult(id);
      }
      return updated;
    });
    this.insertRows = db.transaction((jobs: readonly NewJob[], key: SubmitKeyRecord | undefined) => {
      if (key) this.submitKeys.insert(key);
      for (const job of jobs) this.insertRow(job);
    });
    this.handBackAll = db.transaction((workerId: string, ids: readonly string[]) =>
      ids.flatMap((id) => this.s.handBack.all(id, workerId) as DisplacedJob[]),
    );
  }

  async insert(job: NewJob): Promise<void> {
    await uniquely(
      () => this.insertRow(job),
      () => conflictText.job(job.id),
    );
  }

  async insertAll(jobs: readonly NewJob[], key?: SubmitKeyRecord): Promise<void> {
    // A savepoint inside the group's transaction: a failing row takes the rows before it back out.
    await uniquely(
      () => this.insertRows(jobs, key),
      () => jobsInsertConflict(this.submitKeys, jobs, key),
    );
  }

  private insertRow(job: NewJob): void {
    const apart = keptApart(job.input);
    const insertRow = () =>
      this.s.insert.run(
        job.id,
        job.endpointId,
        job.accountId,
        apart ? '' : job.input,
        job.webhook,
        job.s3Config,
        job.executionTimeoutMs,
        job.lowPriority ? 1 : 0,
        job.retentionMs,
        job.ttlMs,
        job.submittedAt,
        job.expiresAt,
        job.endpointId,
        job.handedTo?.workerId ?? null,
        job.handedTo?.startedAt ?? null,
        job.handedTo ? leaseEnd(job.handedTo.leaseUntil, job.handedTo.startedAt, job.executionTimeoutMs) : null,
        job.handedTo?.workerId ?? null,
      );
    if (apart) this.apart.insert(insertRow, job.input);
    else insertRow();
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const values = this.s.get.get(id) as unknown[] | undefined;
    return values && jobFromValues(values);
  }

  async getState(id: string): Promise<JobState | undefined> {
    const values = this.s.getState.get(id) as unknown[] | undefined;
    return values && jobStateFromValues(values);
  }

  async take(endpointId: string, workerId: string, limit: number, now: number, leaseUntil: number): Promise<JobRecord[]> {
    return this.takeQueued(endpointId, workerId, limit, now, leaseUntil);
  }

  /**
   * The next queued jobs, at most `limit`. The limit is part of the statement's text, one statement
   * per batch size: with `LIMIT ?` SQLite spends about three times as long on the same plan.
   */
  private takeableUpTo(limit: number): Database.Statement {
    let statement = this.takeableBy.get(limit);
    if (!statement) {
      if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`a take's limit is a positive integer, not ${limit}`);
      statement = this.db.prepare(`SELECT seq FROM jobs WHERE endpoint_id = ? AND queue_generation = ${GENERATION}
        AND status = 'IN_QUEUE' AND expires_at > ? ORDER BY low_priority, seq LIMIT ${limit}`);
      this.takeableBy.set(limit, statement);
    }
    return statement;
  }

  async renewLeases(endpointId: string, workerId: string, jobIds: string[], leaseUntil: number): Promise<number> {
    let held = 0;
    // A job named twice is still one lease (as PostgreSQL's id = ANY(...) counts it).
    for (const id of new Set(jobIds)) held += this.s.renew.run(leaseUntil, id, workerId, endpointId).changes;
    return held;
  }

  async recordProgress(id: string, output: string, writer: JobWriter): Promise<boolean> {
    return this.s.progress.run({ output, id, ...writer }).changes === 1;
  }

  async complete(
    id: string,
    from: readonly JobStatus[],
    c: Completion,
    endpointId?: string,
    by?: ResultFrom,
  ): Promise<JobState | undefined> {
    const key = statusList(from);
    let statement = this.completeBy.get(key);
    if (!statement) {
      statement = this.db
        .prepare(
          `UPDATE jobs SET status = ?, output = ?, error = ?, completed_at = ?,
        lease_expires_at = NULL,
        expires_at = min(expires_at, ? + retention_ms)
        WHERE id = ? AND status IN (${key}) AND (@endpointId IS NULL OR endpoint_id = @endpointId)
          AND (@workerId IS NULL OR worker_id = @workerId OR (@late AND lease_losses > 0)) AND NOT ${purgedRow()}
        RETURNING ${COMPLETED_COLUMNS}`,
        )
        .raw(true);
      this.completeBy.set(key, statement);
    }
    const scope = { endpointId: endpointId ?? null, workerId: by?.workerId ?? null, late: by?.late ? 1 : 0 };
    const completeRow = (output: string | null, error: string | null) =>
      statement.get(c.status, output, error, c.completedAt, c.completedAt, id, scope) as unknown[] | undefined;
    const values = this.apart.complete(completeRow, c.output, c.error);
    return values && completedState(values, c.output, c.error);
  }

  async requeue(id: string, from: readonly JobStatus[], expiresAt: number): Promise<JobState | undefined> {
    const key = statusList(from);
    let statement = this.requeueBy.get(key);
    if (!statement) {
      statement = this.db
        .prepare(
          `UPDATE jobs SET status = 'IN_QUEUE', output = NULL, error = NULL, started_at = NULL,
        completed_at = NULL, worker_id = NULL, lease_expires_at = NULL, retries = retries + 1, lease_losses = 0,
        expires_at = ?, submitted_at = ? - ttl_ms, stream_read = 0, stream_written = 0, queue_generation = ${ROW_GENERATION}
        WHERE id = ? AND status IN (${key}) RETURNING ${JOB_STATE_COLUMNS_SQL}`,
        )
        .raw(true);
      this.requeueBy.set(key, statement);
    }
    const row = this.requeueAndClear(statement, id, expiresAt);
    return row && jobStateFromValues(row);
  }

  async setExpiry(id: string, expiresAt: number): Promise<void> {
    this.s.setExpiry.run(expiresAt, id);
  }

  async purgeQueued(endpointId: string): Promise<number> {
    return this.purges.purge(endpointId);
  }

  async deletePurged(limit: number): Promise<number> {
    return this.purges.deleteBatch(limit);
  }

  async counts(endpointId: string): Promise<JobCounts> {
    return countJobs(this.history, endpointId);
  }

  async queueStats(endpointId: string): Promise<QueueStats> {
    const queued = (statement: Database.Statement) => (statement.get(endpointId, endpointId, QUEUE_STATS_CAP) as { n: number }).n;
    return {
      queued: queued(this.s.countQueuedNormal),
      queuedLowPriority: queued(this.s.countQueuedLow),
      inProgress: (this.s.countRunning.get(endpointId, QUEUE_STATS_CAP) as { n: number }).n,
      oldestQueuedAt: await this.oldestQueuedAt(endpointId),
    };
  }

  async oldestQueuedAt(endpointId: string): Promise<number | null> {
    const row = this.s.oldest.get(endpointId, endpointId) as { submitted_at: number } | undefined;
    return row?.submitted_at ?? null;
  }

  async appendStream(id: string, outputs: string[], writer: JobWriter): Promise<{ workerId: string | null } | undefined> {
    return this.streams.append(id, outputs, writer);
  }

  async readStream(id: string): Promise<StreamRead> {
    return this.streams.read(id);
  }

  async unreadStream(id: string, read: StreamRead): Promise<boolean> {
    return this.streams.putBack(id, read);
  }

  async deleteExpired(now: number, limit: number): Promise<DisplacedJob[]> {
    return this.db.transaction(() => {
      const gone = this.s.deleteExpired.all(now, limit) as DisplacedJob[];
      for (const job of gone) this.streams.clear(job.id);
      return gone;
    })();
  }

  async timeOutOverdue(now: number, limit: number): Promise<DisplacedJob[]> {
    return this.s.timeOut.all(now, now, now, now, limit) as DisplacedJob[];
  }

  async releaseLapsedLeases(now: number, maxLosses: number, limit: number) {
    return this.db.transaction(() => {
      const failed = this.s.failLapsed.all(now, now, LOST_LEASE_ERROR, now, now, maxLosses - 1, limit) as DisplacedJob[];
      const requeued = this.s.requeueLapsed.all(now, now, limit) as DisplacedJob[];
      return { requeued, failed };
    })();
  }

  async releaseWorker(workerId: string, lost?: { now: number; maxLosses: number }) {
    return this.db.transaction(() => {
      const failed = lost
        ? (this.s.failHeld.all(lost.now, LOST_WORKER_ERROR, lost.now, workerId, lost.maxLosses - 1) as DisplacedJob[])
        : [];
      const requeued = this.s.releaseWorker.all(lost ? 1 : 0, workerId) as DisplacedJob[];
      return { requeued, failed };
    })();
  }

  async handBack(workerId: string, ids: readonly string[]): Promise<DisplacedJob[]> {
    return this.handBackAll(workerId, ids);
  }

  /** Synchronous, so the endpoint's delete runs it in its own transaction (see SqliteEndpointJobs). */
  hideJobsOfEndpoint(endpointId: string): void {
    this.endpointJobs.hide(endpointId);
  }

  /** Up to `limit` jobs of a deleted endpoint; answers how many, 0 once none is left. */
  async deleteJobsOfDeletedEndpoint(endpointId: string, limit: number): Promise<number> {
    return this.endpointJobs.deleteBatch(endpointId, limit);
  }

  async requestStop(endpointId: string, workerId: string, jobId: string, at: number): Promise<void> {
    this.s.requestStop.run(workerId, jobId, endpointId, at);
  }

  async drainStops(endpointId: string, workerId: string): Promise<string[]> {
    return (this.s.drainStops.all(workerId, endpointId) as { job_id: string }[]).map((row) => row.job_id);
  }

  async forgetStops(requestedBefore: number): Promise<void> {
    this.s.forgetStops.run(requestedBefore);
  }

  async claimWebhooks(now: number, claimMs: number, limit: number): Promise<DueWebhook[]> {
    // Claimed one row at a time, in due order: an UPDATE's RETURNING rows come in table order instead.
    return this.db.transaction(() => {
      const due = this.s.dueWebhooks.all(now, limit) as { seq: number }[];
      return due.map(({ seq }) => dueWebhookFromRow(this.s.claimWebhook.get(now + claimMs, seq) as WebhookRow));
    })();
  }

  async webhookAttempted(jobId: string, nextDueAt: number | null): Promise<void> {
    this.s.webhookAttempted.run(nextDueAt, jobId);
  }

  async insertWorkerCredential(c: WorkerCredentialRecord): Promise<void> {
    const insert = () => this.s.insertCredential.run(c.id, c.endpointId, c.secretHash, c.createdAt, c.revokedAt);
    await uniquely(insert, () => conflictText.workerCredential(c.id));
  }

  async getWorkerCredential(id: string): Promise<WorkerCredentialRecord | undefined> {
    const row = this.s.getCredential.get(id) as WorkerCredentialRow | undefined;
    return row && workerCredentialFromRow(row);
  }
}
