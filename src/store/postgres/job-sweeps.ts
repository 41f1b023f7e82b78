// The sweeps of jobs on PostgreSQL: expiry, execution timeout and lapsed leases, in bounded
// batches, skipping rows another replica's sweep holds. Each statement reads its index in order
// (ORDER BY the indexed column): a range with a LIMIT is then read from the index's start whatever
// the statistics say. Without them (a table just filled, before autovacuum analyzes it) the planner
// took the expiry range for a third of the table and scanned all of it, every half second.
import type pg from 'pg';
import type { DisplacedJob } from '../job-store.js';
import { LOST_LEASE_ERROR } from '../rows.js';
import { DEADLINE_SQL, TIMED_OUT_ERROR_SQL } from '../shared/job-sql.js';
import { ROW_GENERATION } from '../shared/queue-generation-sql.js';
import { transaction } from './database.js';

const DISPLACED = 'id, endpoint_id AS "endpointId", worker_id AS "workerId", status';
/** A job sent back to the queue, as the sweeps and the releases of a worker's jobs report it. */
export const REQUEUED = `id, endpoint_id AS "endpointId", NULL AS "workerId", status`;

/** The sweeps' statements; exported for the test of their plans. */
export const SWEEPS = {
  /** $1 now, $2 limit. */
  deleteExpired: `DELETE FROM jobs WHERE seq IN (SELECT seq FROM jobs WHERE expires_at <= $1
      ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING ${DISPLACED}`,
  /** $1 now, $2 limit. A lease ends by the deadline (decision 43): timed-out jobs are among the ended leases. */
  timeOut: `UPDATE jobs SET status = 'TIMED_OUT', completed_at = $1, lease_expires_at = NULL,
      error = ${TIMED_OUT_ERROR_SQL}, expires_at = least(expires_at, $1 + retention_ms)
    WHERE seq IN (SELECT seq FROM jobs WHERE status = 'IN_PROGRESS' AND lease_expires_at <= $1 AND ${DEADLINE_SQL} <= $1
      ORDER BY lease_expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
    RETURNING ${DISPLACED}`,
  /** $1 now, $2 error, $3 losses before this one that fail a job, $4 limit. */
  failLapsed: `UPDATE jobs SET status = 'FAILED', completed_at = $1, error = $2, lease_expires_at = NULL,
      lease_losses = lease_losses + 1, expires_at = least(expires_at, $1 + retention_ms)
    WHERE seq IN (SELECT seq FROM jobs WHERE status = 'IN_PROGRESS' AND lease_expires_at <= $1 AND ${DEADLINE_SQL} > $1
      AND lease_losses >= $3 ORDER BY lease_expires_at LIMIT $4 FOR UPDATE SKIP LOCKED)
    RETURNING ${DISPLACED}`,
  /** $1 now, $2 limit. */
  requeueLapsed: `UPDATE jobs SET status = 'IN_QUEUE', started_at = NULL, lease_expires_at = NULL, worker_id = NULL,
      retries = retries + 1, lease_losses = lease_losses + 1, queue_generation = ${ROW_GENERATION}
    WHERE seq IN (SELECT seq FROM jobs WHERE status = 'IN_PROGRESS' AND lease_expires_at <= $1 AND ${DEADLINE_SQL} > $1
      ORDER BY lease_expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
    RETURNING ${REQUEUED}`,
};

export class PostgresJobSweeps {
  constructor(private readonly pool: pg.Pool) {}

  /** Deletes expired jobs with their streams and webhook deliveries. */
  deleteExpired(now: number, limit: number): Promise<DisplacedJob[]> {
    return transaction(this.pool, async (client) => {
      const gone = (await client.query<DisplacedJob>(SWEEPS.deleteExpired, [now, limit])).rows;
      if (gone.length > 0) {
        const ids = gone.map((job) => job.id);
        await client.query('DELETE FROM job_stream WHERE job_id = ANY($1)', [ids]);
        await client.query('DELETE FROM webhook_deliveries WHERE job_id = ANY($1)', [ids]);
      }
      return gone;
    });
  }

  async timeOutOverdue(now: number, limit: number): Promise<DisplacedJob[]> {
    return (await this.pool.query<DisplacedJob>(SWEEPS.timeOut, [now, limit])).rows;
  }

  releaseLapsedLeases(now: number, maxLosses: number, limit: number): Promise<{ requeued: DisplacedJob[]; failed: DisplacedJob[] }> {
    return transaction(this.pool, async (client) => {
      const failed = (await client.query<DisplacedJob>(SWEEPS.failLapsed, [now, LOST_LEASE_ERROR, maxLosses - 1, limit])).rows;
      const requeued = (await client.query<DisplacedJob>(SWEEPS.requeueLapsed, [now, limit])).rows;
      return { requeued, failed };
    });
  }
}
