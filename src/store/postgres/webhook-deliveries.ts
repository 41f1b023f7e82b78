// Webhook deliveries on PostgreSQL: claiming the due ones, and recording each attempt. Attempts
// end one by one, each a commit (and a WAL flush) of its own, so those of one turn are recorded
// by one statement (turn-batch.ts), as a job's own statements are.
import type pg from 'pg';
import type { DueWebhook } from '../job-store.js';
import { dueWebhookFromRow, type WebhookRow } from '../rows.js';
import { jobStateColumns, TERMINAL_STATUS_LIST } from '../shared/job-sql.js';
import { TurnBatch } from './turn-batch.js';

/** Due deliveries, claimed until `$1`; RETURNING keeps no order, so they are sorted by the due time they had. */
const CLAIM = `WITH due AS (SELECT seq, webhook_due_at FROM jobs WHERE webhook_due_at <= $2
                 ORDER BY webhook_due_at, seq LIMIT $3 FOR UPDATE SKIP LOCKED),
    claimed AS (UPDATE jobs SET webhook_due_at = $1, webhook_attempts = webhook_attempts + 1 FROM due
                WHERE jobs.seq = due.seq
                RETURNING ${jobStateColumns('jobs')}, jobs.webhook_attempts, jobs.seq, due.webhook_due_at AS due_before)
    SELECT claimed.*, endpoints.sealed_webhook_secret FROM claimed LEFT JOIN endpoints ON endpoints.id = claimed.endpoint_id
    ORDER BY claimed.due_before, claimed.seq`;

/** Each attempt: its next due time, or NULL when none is owed (delivered, or given up). */
const ATTEMPTED = {
  name: 'gantry_webhooks_attempted',
  text: `UPDATE jobs SET webhook_due_at = a.next_due_at
         FROM unnest($1::text[], $2::bigint[]) AS a(id, next_due_at)
         WHERE jobs.id = a.id AND jobs.webhook_due_at IS NOT NULL AND jobs.status IN (${TERMINAL_STATUS_LIST})`,
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
    const { rows } = await this.pool.query<WebhookRow>(CLAIM, [now + claimMs, now, limit]);
    return rows.map(dueWebhookFromRow);
  }

  attempted(jobId: string, nextDueAt: number | null): Promise<void> {
    return this.attempts.add({ jobId, nextDueAt });
  }
}
