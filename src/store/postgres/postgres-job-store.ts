// The job store on PostgreSQL. Takes lock the rows they lease with FOR UPDATE SKIP LOCKED, so
// replicas taking at once never block on, or hand out, the same job.
import type pg from 'pg';
import type { JobStatus } from '../../domain/job-state.js';
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
  jobFromRow,
  jobStateFromRow,
  LOST_WORKER_ERROR,
  workerCredentialFromRow,
  type JobRow,
  type JobStateRow,
  type WorkerCredentialRow,
} from '../rows.js';
import { conflictText, jobsInsertConflict, uniquely } from '../shared/conflicts.js';
import type { SubmitKeyRecord } from '../submit-key-store.js';
import type { PostgresSubmitKeys } from './postgres-submit-keys.js';
import { countsFromRows } from '../shared/job-results.js';
import { DEADLINE_SQL, jobRecordColumns, jobStateColumns, TERMINAL_STATUS_LIST } from '../shared/job-sql.js';
import { transaction, type Queryable } from './database.js';
import { JobBatches } from './job-batches.js';
import { TakeBatches } from './take-batches.js';
import { PostgresWebhookDeliveries } from './webhook-deliveries.js';
import { PostgresJobSweeps, REQUEUED } from './job-sweeps.js';
import type { NotificationCarrier } from './notifications.js';
import { generationOf, purgedRow, ROW_GENERATION } from '../shared/queue-generation-sql.js';
import { deletePurged, purgeQueue } from './postgres-queue-purge.js';

/**
 * Bumps the written position and inserts the chunks after it, in one statement, on a job of the
 * writer's endpoint that is not finished; the lease is renewed only for the worker that holds it.
 * $1 job, $2 chunks, $3 endpoint, $4 worker, $5 lease.
 */
const APPEND_STREAM = `WITH bumped AS (
    UPDATE jobs SET stream_written = stream_written + cardinality($2::text[]),
      lease_expires_at = CASE WHEN worker_id = $4 AND status = 'IN_PROGRESS' THEN least($5::bigint, ${DEADLINE_SQL}) ELSE lease_expires_at END
    WHERE id = $1 AND endpoint_id = $3 AND status NOT IN (${TERMINAL_STATUS_LIST}) AND NOT ${purgedRow()}
    RETURNING stream_written, worker_id
  ), chunks AS (
    INSERT INTO job_stream (job_id, seq, output)
    SELECT $1, bumped.stream_written - cardinality($2::text[]) + t.n, t.o
    FROM bumped, unnest($2::text[]) WITH ORDINALITY AS t(o, n)
  )
  SELECT worker_id FROM bumped`;

/** Drops an endpoint's jobs, their streams and webhook deliveries; the caller's transaction makes it one change. */
export async function deleteJobsOfEndpoint(client: Queryable, endpointId: string): Promise<number> {
  await client.query('DELETE FROM job_stream WHERE job_id IN (SELECT id FROM jobs WHERE endpoint_id = $1)', [endpointId]);
  await client.query('DELETE FROM queue_generations WHERE endpoint_id = $1', [endpointId]);
  await client.query('DELETE FROM webhook_deliveries WHERE job_id IN (SELECT id FROM jobs WHERE endpoint_id = $1)', [endpointId]);
  return (await client.query('DELETE FROM jobs WHERE endpoint_id = $1', [endpointId])).rowCount ?? 0;
}

/** The row of the counts that holds the retried jobs, not a status. */
const RETRIED = 'RETRIED';

export class PostgresJobStore implements JobStore {
  private readonly batches: JobBatches;
  private readonly takes: TakeBatches;
  private readonly webhooks: PostgresWebhookDeliveries;
  private readonly sweeps: PostgresJobSweeps;

  /**
   * `batchPool`: the sessions of the batched statements every job makes, which keep their plans
   * (decision 33). `carrier`: lets those statements carry the notifications waiting for the other replicas.
   */
  constructor(
    private readonly pool: pg.Pool,
    batchPool: pg.Pool,
    carrier: NotificationCarrier,
    private readonly submitKeys: PostgresSubmitKeys,
  ) {
    this.batches = new JobBatches(batchPool, carrier);
    this.takes = new TakeBatches(batchPool, carrier);
    this.webhooks = new PostgresWebhookDeliveries(pool, batchPool);
    this.sweeps = new PostgresJobSweeps(pool);
  }

  private async rows<T>(sql: string, params: unknown[]): Promise<T[]> {
    return (await this.pool.query(sql, params)).rows as T[];
  }

  private async job(sql: string, params: unknown[]): Promise<JobRecord | undefined> {
    const row = (await this.rows<JobRow>(sql, params))[0];
    return row && jobFromRow(row);
  }

  async insert(job: NewJob): Promise<void> {
    await uniquely(
      () => this.batches.insert(job),
      () => conflictText.job(job.id),
    );
  }

  async insertAll(jobs: readonly NewJob[], key?: SubmitKeyRecord): Promise<void> {
    const insert = key
      ? () => this.batches.insertAfter(this.pool, (client) => this.submitKeys.insert(client, key), jobs)
      : () => this.batches.insertTogether(jobs);
    await uniquely(insert, () => jobsInsertConflict(this.submitKeys, jobs, key));
  }

  /**
   * A whole job, input included: read rarely (a job's page), so alone and on the pool of the
   * statements that are not batched (decision 33).
   */
  async get(id: string): Promise<JobRecord | undefined> {
    const { rows } = await this.pool.query<JobRow>({
      name: 'gantry_jobs_get_whole',
      text: `SELECT ${jobRecordColumns()} FROM jobs WHERE id = $1 AND NOT ${purgedRow()}`,
      values: [id],
    });
    return rows[0] && jobFromRow(rows[0]);
  }

  getState(id: string): Promise<JobState | undefined> {
    return this.batches.getState(id);
  }

  take(endpointId: string, workerId: string, limit: number, now: number, leaseUntil: number): Promise<JobRecord[]> {
    return this.takes.take(endpointId, { workerId, limit, now, leaseUntil });
  }

  async renewLeases(endpointId: string, workerId: string, jobIds: string[], leaseUntil: number): Promise<number> {
    if (jobIds.length === 0) return 0;
    const result = await this.pool.query(
      `UPDATE jobs SET lease_expires_at = least($1, ${DEADLINE_SQL}) WHERE id = ANY($2) AND worker_id = $3 AND endpoint_id = $4 AND status = 'IN_PROGRESS'`,
      [leaseUntil, jobIds, workerId, endpointId],
    );
    return result.rowCount ?? 0;
  }

  async recordProgress(id: string, output: string, writer: JobWriter): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE jobs SET output = $1, lease_expires_at = least($2, ${DEADLINE_SQL})
       WHERE id = $3 AND endpoint_id = $4 AND worker_id = $5 AND status = 'IN_PROGRESS'`,
      [output, writer.leaseUntil, id, writer.endpointId, writer.workerId],
    );
    return result.rowCount === 1;
  }

  complete(id: string, from: readonly JobStatus[], c: Completion, endpointId?: string, by?: ResultFrom): Promise<JobState | undefined> {
    return this.batches.complete({
      id,
      from,
      completion: c,
      endpointId: endpointId ?? null,
      workerId: by?.workerId ?? null,
      late: by?.late ?? false,
    });
  }

  async requeue(id: string, from: readonly JobStatus[], expiresAt: number): Promise<JobState | undefined> {
    const row = await transaction(this.pool, async (client) => {
      const updated = (
        await client.query<JobStateRow>(
          `UPDATE jobs SET status = 'IN_QUEUE', output = NULL, error = NULL, started_at = NULL, completed_at = NULL, worker_id = NULL,
             lease_expires_at = NULL, retries = retries + 1, lease_losses = 0, expires_at = $1, submitted_at = $1 - ttl_ms,
             stream_read = 0, stream_written = 0,
             queue_generation = ${ROW_GENERATION}
           WHERE id = $2 AND status = ANY($3) RETURNING ${jobStateColumns()}`,
          [expiresAt, id, from],
        )
      ).rows[0];
      if (updated) await client.query('DELETE FROM job_stream WHERE job_id = $1', [id]);
      return updated;
    });
    return row && jobStateFromRow(row);
  }

  async setExpiry(id: string, expiresAt: number): Promise<void> {
    await this.pool.query('UPDATE jobs SET expires_at = $1 WHERE id = $2', [expiresAt, id]);
  }

  purgeQueued(endpointId: string): Promise<number> {
    return purgeQueue(this.pool, endpointId);
  }

  deletePurged(limit: number): Promise<number> {
    return deletePurged(this.pool, limit);
  }

  async counts(endpointId: string): Promise<JobCounts> {
    // Queued jobs through jobs_queue (of the current generation: a purge's hidden ones are not
    // counted), the others through jobs_by_endpoint_status, which holds no queued job, and the
    // retried ones through jobs_retried: no row is read from the table itself.
    const rows = await this.rows<{ status: JobStatus | typeof RETRIED; n: number }>(
      `SELECT status, count(*) AS n FROM jobs WHERE endpoint_id = $1 AND status <> 'IN_QUEUE' GROUP BY status
       UNION ALL
       SELECT 'IN_QUEUE', count(*) FROM jobs WHERE endpoint_id = $1 AND queue_generation = ${generationOf('$1')} AND status = 'IN_QUEUE'
       UNION ALL
       SELECT '${RETRIED}', count(*) FROM jobs WHERE endpoint_id = $1 AND retries > 0 AND NOT ${purgedRow(generationOf('$1'))}`,
      [endpointId],
    );
    const retried = rows.find((row) => row.status === RETRIED)!;
    return countsFromRows(
      rows.filter((row): row is { status: JobStatus; n: number } => row !== retried),
      retried.n,
    );
  }

  async queueStats(endpointId: string): Promise<QueueStats> {
    const [row] = await this.rows<{ queued: number; low: number; running: number; oldest: number | null }>(
      `SELECT
         (SELECT count(*) FROM (SELECT 1 FROM jobs WHERE endpoint_id = $1 AND queue_generation = ${generationOf('$1')}
           AND status = 'IN_QUEUE' AND NOT low_priority LIMIT $2) q) AS queued,
         (SELECT count(*) FROM (SELECT 1 FROM jobs WHERE endpoint_id = $1 AND queue_generation = ${generationOf('$1')}
           AND status = 'IN_QUEUE' AND low_priority LIMIT $2) l) AS low,
         (SELECT count(*) FROM (SELECT 1 FROM jobs WHERE endpoint_id = $1 AND status = 'IN_PROGRESS' LIMIT $2) r) AS running,
         (SELECT submitted_at FROM jobs WHERE endpoint_id = $1 AND queue_generation = ${generationOf('$1')}
           AND status = 'IN_QUEUE' AND NOT low_priority ORDER BY low_priority, seq LIMIT 1) AS oldest`,
      [endpointId, QUEUE_STATS_CAP],
    );
    return { queued: row!.queued, queuedLowPriority: row!.low, inProgress: row!.running, oldestQueuedAt: row!.oldest };
  }

  async oldestQueuedAt(endpointId: string): Promise<number | null> {
    const [row] = await this.rows<{ submitted_at: number }>(
      `SELECT submitted_at FROM jobs WHERE endpoint_id = $1 AND queue_generation = ${generationOf('$1')}
       AND status = 'IN_QUEUE' AND NOT low_priority ORDER BY low_priority, seq LIMIT 1`,
      [endpointId],
    );
    return row?.submitted_at ?? null;
  }

  async appendStream(id: string, outputs: string[], writer: JobWriter): Promise<{ workerId: string | null } | undefined> {
    // One statement: the chunks and the written position commit together, as readStream needs.
    const [row] = await this.rows<{ worker_id: string | null }>(APPEND_STREAM, [
      id,
      outputs,
      writer.endpointId,
      writer.workerId,
      writer.leaseUntil,
    ]);
    return row && { workerId: row.worker_id };
  }

  async readStream(id: string): Promise<StreamRead> {
    // Chunks and the written position commit together, so everything up to `written` is visible here.
    const [position] = await this.rows<{ read: number; written: number }>(
      `WITH old AS (SELECT stream_read, stream_written FROM jobs WHERE id = $1 FOR UPDATE)
       UPDATE jobs SET stream_read = old.stream_written FROM old WHERE jobs.id = $1
       RETURNING old.stream_read AS read, old.stream_written AS written`,
      [id],
    );
    const at = position?.read ?? 0;
    if (!position || position.read >= position.written) return { chunks: [], from: at, through: at };
    const chunks = await this.rows<{ output: string }>(
      'SELECT output FROM job_stream WHERE job_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq',
      [id, position.read, position.written],
    );
    return { chunks: chunks.map((c) => c.output), from: position.read, through: position.written };
  }

  async unreadStream(id: string, read: StreamRead): Promise<boolean> {
    if (read.chunks.length === 0) return false;
    const [row] = await this.rows<{ id: string }>('UPDATE jobs SET stream_read = $2 WHERE id = $1 AND stream_read = $3 RETURNING id', [
      id,
      read.from,
      read.through,
    ]);
    return row !== undefined;
  }

  deleteExpired(now: number, limit: number): Promise<DisplacedJob[]> {
    return this.sweeps.deleteExpired(now, limit);
  }

  timeOutOverdue(now: number, limit: number): Promise<DisplacedJob[]> {
    return this.sweeps.timeOutOverdue(now, limit);
  }

  releaseLapsedLeases(now: number, maxLosses: number, limit: number): Promise<{ requeued: DisplacedJob[]; failed: DisplacedJob[] }> {
    return this.sweeps.releaseLapsedLeases(now, maxLosses, limit);
  }

  /** A crashed worker's jobs returned too often fail; the rest return, counted as a loss ($2 = 1) or not (0). */
  releaseWorker(workerId: string, lost?: { now: number; maxLosses: number }) {
    return transaction(this.pool, async (client) => {
      const failed = lost
        ? (
            await client.query<DisplacedJob>(
              `UPDATE jobs SET status = 'FAILED', completed_at = $1, error = $2, lease_expires_at = NULL,
                 lease_losses = lease_losses + 1, expires_at = least(expires_at, $1 + retention_ms)
               WHERE worker_id = $3 AND status = 'IN_PROGRESS' AND lease_losses >= $4 RETURNING ${REQUEUED}`,
              [lost.now, LOST_WORKER_ERROR, workerId, lost.maxLosses - 1],
            )
          ).rows
        : [];
      const requeued = (
        await client.query<DisplacedJob>(
          `UPDATE jobs SET status = 'IN_QUEUE', started_at = NULL, lease_expires_at = NULL, worker_id = NULL, retries = retries + 1,
             lease_losses = lease_losses + $2, queue_generation = ${ROW_GENERATION}
           WHERE worker_id = $1 AND status = 'IN_PROGRESS' RETURNING ${REQUEUED}`,
          [workerId, lost ? 1 : 0],
        )
      ).rows;
      return { requeued, failed };
    });
  }

  handBack(workerId: string, ids: readonly string[]): Promise<DisplacedJob[]> {
    return this.rows<DisplacedJob>(
      `UPDATE jobs SET status = 'IN_QUEUE', started_at = NULL, lease_expires_at = NULL, worker_id = NULL,
         queue_generation = ${ROW_GENERATION}
       WHERE id = ANY($1) AND worker_id = $2 AND status = 'IN_PROGRESS' RETURNING ${REQUEUED}`,
      [ids, workerId],
    );
  }

  async requestStop(endpointId: string, workerId: string, jobId: string, at: number): Promise<void> {
    const sql = 'INSERT INTO job_stops (worker_id, job_id, endpoint_id, requested_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING';
    await this.pool.query(sql, [workerId, jobId, endpointId, at]);
  }

  async drainStops(endpointId: string, workerId: string): Promise<string[]> {
    const sql = 'DELETE FROM job_stops WHERE worker_id = $1 AND (endpoint_id = $2 OR endpoint_id IS NULL) RETURNING job_id';
    return (await this.rows<{ job_id: string }>(sql, [workerId, endpointId])).map((r) => r.job_id);
  }

  async forgetStops(requestedBefore: number): Promise<void> {
    await this.pool.query('DELETE FROM job_stops WHERE requested_at < $1', [requestedBefore]);
  }

  claimWebhooks(now: number, claimMs: number, limit: number): Promise<DueWebhook[]> {
    return this.webhooks.claim(now, claimMs, limit);
  }

  webhookAttempted(jobId: string, nextDueAt: number | null): Promise<void> {
    return this.webhooks.attempted(jobId, nextDueAt);
  }

  async insertWorkerCredential(c: WorkerCredentialRecord): Promise<void> {
    const insert = () =>
      this.pool.query('INSERT INTO worker_credentials (id, endpoint_id, secret_hash, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5)', [
        c.id,
        c.endpointId,
        c.secretHash,
        c.createdAt,
        c.revokedAt,
      ]);
    await uniquely(insert, () => conflictText.workerCredential(c.id));
  }

  async getWorkerCredential(id: string): Promise<WorkerCredentialRecord | undefined> {
    const [row] = await this.rows<WorkerCredentialRow>('SELECT * FROM worker_credentials WHERE id = $1', [id]);
    return row && workerCredentialFromRow(row);
  }
}
