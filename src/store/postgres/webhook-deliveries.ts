// Webhook deliveries on PostgreSQL, in a table of their own (docs/decisions/0044): claiming the
// due ones, and recording each attempt. A trigger on jobs adds a delivery as its job finishes and
// removes it if the job is sent back to the queue. Attempts end one by one, each a commit (and a
// WAL flush) of its own, so those of one turn are recorded by one statement (turn-batch.ts), as
// a job's own statements are.
import type pg from 'pg';
import type { DueWebhook } from '../job-store.js';
import { dueWebhookFromRow, type WebhookRow } from '../rows.js';
import { jobStateColumns } from '../shared/job-sql.js';
import { TurnBatch } from './turn-batch.js';

/**
 * Due deliveries, claimed until `$1`, with their jobs. RETURNING keeps no order, so they are sorted
 * by the due time they had. A delivery whose job is gone (which no path should leave) comes back
 * with no job, to be deleted.
 */
const CLAIM = `WITH due AS (SELECT job_id, due_at FROM webhook_deliveries WHERE due_at <= $2
                 ORDER BY due_at, job_seq LIMIT $3 FOR UPDATE SKIP LOCKED),
    claimed AS (UPDATE webhook_deliveries d SET due_at = $1, attempts = d.attempts + 1 FROM due
                WHERE d.job_id = due.job_id
                RETURNING d.job_id, d.job_seq, d.attempts, due.due_at AS due_before)
    SELECT ${jobStateColumns('jobs')}, claimed.job_id AS delivery_job_id, claimed.attempts AS webhook_attempts,
      endpoints.sealed_webhook_secret
    FROM claimed LEFT JOIN jobs ON jobs.id = claimed.job_id LEFT JOIN endpoints ON endpoints.id = jobs.endpoint_id
    ORDER BY claimed.due_before, claimed.job_seq`;

/** Each attempt: its next due time, or NULL when none is owed (delivered, or given up). */
const ATTEMPTED = {
  name: 'gantry_webhooks_attempted',
  text: `WITH a AS (SELECT * FROM unnest($1::text[], $2::bigint[]) AS a(job_id, next_due_at)),
         ended AS (DELETE FROM webhook_deliveries d USING a WHERE d.job_id = a.job_id AND a.next_due_at IS NULL)
         UPDATE webhook_deliveries d SET due_at = a.next_due_at FROM a WHERE d.job_id = a.job_id AND a.next_due_at IS NOT NULL`,
};

interface Attempt {
  jobId: string;
  nextDueAt: number | null;
}

export class PostgresWebhookDeliveries {
  private readonly attempts: TurnBatch<Attempt, undefined>;

  /** `batchPool`: the sessions of the batched statements (decision 33). */
  constructor(
    private readonly pool: pg.Pool,
    batchPool: pg.Pool,
  ) {
    this.attempts = new TurnBatch(
      async (items) => {
        await batchPool.query({ ...ATTEMPTED, values: [items.map((a) => a.jobId), items.map((a) => a.nextDueAt)] });
        return items.map(() => undefined);
      },
      { key: (a) => a.jobId },
    );
  }

  async claim(now: number, claimMs: number, limit: number): Promise<DueWebhook[]> {
    const { rows } = await this.pool.query<WebhookRow & { delivery_job_id: string }>(CLAIM, [now + claimMs, now, limit]);
    const orphans = rows.filter((row) => row.id === null).map((row) => row.delivery_job_id);
    if (orphans.length > 0) await this.pool.query('DELETE FROM webhook_deliveries WHERE job_id = ANY($1)', [orphans]);
    return rows.filter((row) => row.id !== null).map(dueWebhookFromRow);
  }

  attempted(jobId: string, nextDueAt: number | null): Promise<void> {
    return this.attempts.add({ jobId, nextDueAt });
  }
}
