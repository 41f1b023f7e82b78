// The job store's fixed statements on SQLite, prepared once per connection. Statements whose
// text depends on a call (a take's limit, a set of statuses) are made and kept by the store.
import type Database from 'better-sqlite3';
import { DEADLINE_SQL, TERMINAL_STATUS_LIST, TIMED_OUT_ERROR_SQL } from '../shared/job-sql.js';
import { generationOf, purgedRow, ROW_GENERATION } from '../shared/queue-generation-sql.js';
import { JOB_COLUMNS, JOB_STATE_COLUMNS_SQL } from './job-columns.js';

const DISPLACED = 'id, endpoint_id AS endpointId, worker_id AS workerId, status';
/** The current queue generation of the endpoint bound at this place. */
export const GENERATION = generationOf('?');
/**
 * A finished job: the predicate of the `jobs_finished` index (migration 026). SQLite uses a
 * partial index only for a query that states its predicate, so a statement that reads it repeats this.
 */
export const FINISHED_JOB_SQL = `status NOT IN ('IN_QUEUE', 'IN_PROGRESS')`;

/**
 * `ended`: the running jobs whose lease ended by the time bound first. `jobs_running` is keyed by
 * endpoint, then lease: the endpoints with running jobs are found one by one, each a seek of the
 * index, and each endpoint's ended leases are a range of it. A sweep so reads the leases that
 * ended, not every running job (which it did, every half second, before: 16 ms for 50,000).
 */
const ENDED_LEASES = `WITH RECURSIVE running(endpoint_id) AS (
    SELECT (SELECT min(endpoint_id) FROM jobs INDEXED BY jobs_running WHERE status = 'IN_PROGRESS')
    UNION ALL
    SELECT (SELECT min(endpoint_id) FROM jobs INDEXED BY jobs_running WHERE status = 'IN_PROGRESS' AND endpoint_id > running.endpoint_id)
    FROM running WHERE running.endpoint_id IS NOT NULL
  ), ended AS (
    SELECT jobs.seq, jobs.started_at, jobs.execution_timeout_ms, jobs.lease_losses
    FROM running JOIN jobs INDEXED BY jobs_running ON jobs.endpoint_id = running.endpoint_id
    WHERE jobs.status = 'IN_PROGRESS' AND jobs.lease_expires_at <= ?
  )`;

export type JobStatements = ReturnType<typeof prepareJobStatements>;

export function prepareJobStatements(db: Database.Database) {
  return {
    // A job handed to a waiting worker as it is submitted is stored taken (worker, start, lease).
    insert: db.prepare(`INSERT INTO jobs (id, endpoint_id, account_id, input, webhook, s3_config,
      execution_timeout_ms, low_priority, retention_ms, ttl_ms, submitted_at, expires_at, queue_generation,
      worker_id, started_at, lease_expires_at, status)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ${GENERATION}, ?, ?, ?, CASE WHEN ? IS NULL THEN 'IN_QUEUE' ELSE 'IN_PROGRESS' END)`),
    get: db.prepare(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = ? AND NOT ${purgedRow()}`).raw(true),
    getState: db.prepare(`SELECT ${JOB_STATE_COLUMNS_SQL} FROM jobs WHERE id = ? AND NOT ${purgedRow()}`).raw(true),
    takeOne: db
      .prepare(
        `UPDATE jobs SET status = 'IN_PROGRESS', worker_id = ?, started_at = ?, lease_expires_at = min(?, ? + execution_timeout_ms)
      WHERE seq = ? AND status = 'IN_QUEUE' RETURNING ${JOB_COLUMNS}`,
      )
      .raw(true),
    renew: db.prepare(
      `UPDATE jobs SET lease_expires_at = min(?, ${DEADLINE_SQL}) WHERE id = ? AND worker_id = ? AND endpoint_id = ? AND status = 'IN_PROGRESS'`,
    ),
    progress: db.prepare(`UPDATE jobs SET output = @output, lease_expires_at = min(@leaseUntil, ${DEADLINE_SQL})
      WHERE id = @id AND endpoint_id = @endpointId AND worker_id = @workerId AND status = 'IN_PROGRESS'`),
    setExpiry: db.prepare('UPDATE jobs SET expires_at = ? WHERE id = ?'),
    countQueuedNormal: db.prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM jobs
      WHERE endpoint_id = ? AND queue_generation = ${GENERATION} AND status = 'IN_QUEUE' AND low_priority = 0 LIMIT ?)`),
    countQueuedLow: db.prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM jobs
      WHERE endpoint_id = ? AND queue_generation = ${GENERATION} AND status = 'IN_QUEUE' AND low_priority = 1 LIMIT ?)`),
    // jobs_running: the jobs workers hold now, by endpoint; few, whatever the history.
    countRunning: db.prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM jobs INDEXED BY jobs_running
      WHERE endpoint_id = ? AND status = 'IN_PROGRESS' LIMIT ?)`),
    oldest: db.prepare(`SELECT submitted_at FROM jobs WHERE endpoint_id = ? AND queue_generation = ${GENERATION}
      AND status = 'IN_QUEUE' AND low_priority = 0
      ORDER BY low_priority, seq LIMIT 1`),
    deleteExpired: db.prepare(`DELETE FROM jobs WHERE seq IN (SELECT seq FROM jobs WHERE expires_at <= ? LIMIT ?)
      RETURNING ${DISPLACED}`),
    timeOut: db.prepare(`${ENDED_LEASES} UPDATE jobs SET status = 'TIMED_OUT', completed_at = ?, lease_expires_at = NULL,
      error = ${TIMED_OUT_ERROR_SQL},
      expires_at = min(expires_at, ? + retention_ms)
      WHERE seq IN (SELECT seq FROM ended WHERE ${DEADLINE_SQL} <= ? LIMIT ?)
      RETURNING ${DISPLACED}`),
    // A lease that ended before the job's deadline lapsed; one that ended at it is the timeout's.
    failLapsed: db.prepare(`${ENDED_LEASES} UPDATE jobs SET status = 'FAILED', completed_at = ?, error = ?, lease_expires_at = NULL,
      lease_losses = lease_losses + 1, expires_at = min(expires_at, ? + retention_ms)
      WHERE seq IN (SELECT seq FROM ended WHERE ${DEADLINE_SQL} > ? AND lease_losses >= ? LIMIT ?)
      RETURNING ${DISPLACED}`),
    requeueLapsed: db.prepare(`${ENDED_LEASES} UPDATE jobs SET status = 'IN_QUEUE', started_at = NULL, lease_expires_at = NULL,
      worker_id = NULL, retries = retries + 1, lease_losses = lease_losses + 1, queue_generation = ${ROW_GENERATION}
      WHERE seq IN (SELECT seq FROM ended WHERE ${DEADLINE_SQL} > ? LIMIT ?)
      RETURNING id, endpoint_id AS endpointId, NULL AS workerId, status`),
    // Rare (a worker gone): reads every running job rather than keep an index of jobs by worker. A
    // crashed worker's jobs returned too often fail; the rest return, counted as a loss (? adds 1) or not (0).
    failHeld: db.prepare(`UPDATE jobs INDEXED BY jobs_running SET status = 'FAILED', completed_at = ?, error = ?, lease_expires_at = NULL,
      lease_losses = lease_losses + 1, expires_at = min(expires_at, ? + retention_ms)
      WHERE worker_id = ? AND status = 'IN_PROGRESS' AND lease_losses >= ?
      RETURNING id, endpoint_id AS endpointId, NULL AS workerId, status`),
    releaseWorker: db.prepare(`UPDATE jobs INDEXED BY jobs_running SET status = 'IN_QUEUE', started_at = NULL, lease_expires_at = NULL,
      worker_id = NULL, retries = retries + 1, lease_losses = lease_losses + ?, queue_generation = ${ROW_GENERATION}
      WHERE worker_id = ? AND status = 'IN_PROGRESS'
      RETURNING id, endpoint_id AS endpointId, NULL AS workerId, status`),
    handBack: db.prepare(`UPDATE jobs SET status = 'IN_QUEUE', started_at = NULL, lease_expires_at = NULL, worker_id = NULL,
      queue_generation = ${ROW_GENERATION}
      WHERE id = ? AND worker_id = ? AND status = 'IN_PROGRESS'
      RETURNING id, endpoint_id AS endpointId, NULL AS workerId, status`),
    requestStop: db.prepare('INSERT OR IGNORE INTO job_stops (worker_id, job_id, endpoint_id, requested_at) VALUES (?, ?, ?, ?)'),
    drainStops: db.prepare('DELETE FROM job_stops WHERE worker_id = ? AND (endpoint_id = ? OR endpoint_id IS NULL) RETURNING job_id'),
    forgetStops: db.prepare('DELETE FROM job_stops WHERE requested_at < ?'),
    dueWebhooks: db.prepare('SELECT seq FROM jobs WHERE webhook_due_at <= ? ORDER BY webhook_due_at, seq LIMIT ?'),
    claimWebhook: db.prepare(`UPDATE jobs SET webhook_due_at = ?, webhook_attempts = webhook_attempts + 1 WHERE seq = ?
      RETURNING ${JOB_STATE_COLUMNS_SQL}, webhook_attempts,
        (SELECT sealed_webhook_secret FROM endpoints WHERE endpoints.id = jobs.endpoint_id) AS sealed_webhook_secret`),
    webhookAttempted: db.prepare(`UPDATE jobs SET webhook_due_at = ?
      WHERE id = ? AND webhook_due_at IS NOT NULL AND status IN (${TERMINAL_STATUS_LIST})`),
    insertCredential: db.prepare(`INSERT INTO worker_credentials (id, endpoint_id, secret_hash, created_at, revoked_at)
      VALUES (?, ?, ?, ?, ?)`),
    getCredential: db.prepare('SELECT * FROM worker_credentials WHERE id = ?'),
  };
}
