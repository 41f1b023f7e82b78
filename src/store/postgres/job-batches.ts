// The job statements every job makes (submit, read, complete), each grouped over the calls of a
// turn into one statement (see turn-batch.ts) and prepared once per connection by name.
import type pg from 'pg';
import { leaseEnd, type JobStatus } from '../../domain/job-state.js';
import type { Completion, JobState, NewJob } from '../job-store.js';
import { jobStateFromRow, type JobStateRow } from '../rows.js';
import { isUniqueViolation } from '../shared/conflicts.js';
import { TurnBatch } from './turn-batch.js';
import { transaction, type Queryable } from './database.js';
import { generationOf, purgedRow } from '../shared/queue-generation-sql.js';
import { jobStateColumns, jobStateColumnsBut, WRITTEN_BY_COMPLETION } from '../shared/job-sql.js';
import { carriedNotification, type NotificationCarrier } from './notifications.js';

const INSERT_TOLD = carriedNotification(16);
const GET_TOLD = carriedNotification(2);
const COMPLETE_TOLD = carriedNotification(10);

/** A job handed to a waiting worker as it is submitted is stored taken (worker, start, lease). */
const INSERT = {
  name: 'gantry_jobs_insert',
  text: `WITH ${INSERT_TOLD.cte}
         INSERT INTO jobs (id, endpoint_id, account_id, status, input, webhook, s3_config, execution_timeout_ms, low_priority,
           retention_ms, ttl_ms, submitted_at, expires_at, queue_generation, worker_id, started_at, lease_expires_at)
         SELECT id, endpoint_id, account_id, CASE WHEN worker_id IS NULL THEN 'IN_QUEUE' ELSE 'IN_PROGRESS' END,
           input, webhook, s3_config, execution_timeout_ms, low_priority,
           retention_ms, ttl_ms, submitted_at, expires_at, ${generationOf('n.endpoint_id')}, worker_id, started_at, lease_until
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::boolean[],
           $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[], $13::text[], $14::bigint[], $15::bigint[])
           AS n(id, endpoint_id, account_id, input, webhook, s3_config, execution_timeout_ms, low_priority,
           retention_ms, ttl_ms, submitted_at, expires_at, worker_id, started_at, lease_until)
         WHERE ${INSERT_TOLD.condition}`,
};

/** Status reads: a job's state, without the input no status answer shows. */
const GET_STATE = {
  name: 'gantry_jobs_get',
  text: `WITH ${GET_TOLD.cte}
         SELECT ${jobStateColumns()} FROM jobs WHERE id = ANY($1::text[]) AND NOT ${purgedRow()} AND ${GET_TOLD.condition}`,
};

/**
 * Each job moves only from one of the statuses its caller allows (listed with commas), of its
 * endpoint and held by its worker when those are named. It returns neither the output nor the
 * error it wrote: the caller sent them.
 */
const COMPLETE = {
  name: 'gantry_jobs_complete',
  text: `WITH ${COMPLETE_TOLD.cte}
         UPDATE jobs SET status = c.status, output = c.output, error = c.error, completed_at = c.at, lease_expires_at = NULL,
           expires_at = least(jobs.expires_at, c.at + jobs.retention_ms)
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::boolean[])
           AS c(id, status, output, error, at, from_list, endpoint_id, worker_id, late)
         WHERE jobs.id = c.id AND jobs.status = ANY(string_to_array(c.from_list, ','))
           AND (c.endpoint_id IS NULL OR jobs.endpoint_id = c.endpoint_id)
           AND (c.worker_id IS NULL OR jobs.worker_id = c.worker_id OR (c.late AND jobs.lease_losses > 0))
           AND NOT ${purgedRow()} AND ${COMPLETE_TOLD.condition}
         RETURNING ${jobStateColumnsBut(WRITTEN_BY_COMPLETION, 'jobs')}`,
};

function noticesOf(jobs: readonly NewJob[]): string[] {
  return jobs.flatMap((job) => (job.notice === undefined ? [] : [job.notice]));
}

/** One completion as JobStore.complete names it; null where it names no endpoint or worker. */
interface CompleteCall {
  id: string;
  from: readonly JobStatus[];
  completion: Completion;
  endpointId: string | null;
  workerId: string | null;
  /** A late result of a worker that lost its lease is taken too (JobStore.complete). */
  late: boolean;
}

export class JobBatches {
  private readonly inserts: TurnBatch<NewJob, unknown>;
  private readonly states: TurnBatch<string, JobState | undefined>;
  private readonly completes: TurnBatch<CompleteCall, JobState | undefined>;

  constructor(
    private readonly pool: pg.Pool,
    private readonly carrier: NotificationCarrier,
  ) {
    this.inserts = new TurnBatch((jobs) => this.insertTurn(jobs));
    this.states = new TurnBatch((ids) => this.statesOf(ids));
    // One job twice in one statement would be updated once with either call's values: a later
    // call for the same job waits for the next batch, so the two apply in order as before.
    this.completes = new TurnBatch((calls) => this.completeAll(calls), { key: (call) => call.id });
  }

  /** Resolves once the job is committed; a clash of ids rejects with the database's error. */
  async insert(job: NewJob): Promise<void> {
    const outcome = await this.inserts.add(job);
    if (outcome) throw outcome;
  }

  getState(id: string): Promise<JobState | undefined> {
    return this.states.add(id);
  }

  complete(call: CompleteCall): Promise<JobState | undefined> {
    return this.completes.add(call);
  }

  /** Answers, per job, undefined when it was stored or the error that kept it out. */
  private async insertTurn(jobs: NewJob[]): Promise<unknown[]> {
    try {
      await this.insertTogether(jobs);
      return jobs.map(() => undefined);
    } catch (error) {
      // The whole statement rolled back: only the clashing job may fail, so each goes again alone.
      if (!isUniqueViolation(error) || jobs.length === 1) throw error;
      return Promise.all(
        jobs.map((job) =>
          this.insertTogether([job]).then(
            () => undefined,
            (single: unknown) => single,
          ),
        ),
      );
    }
  }

  /** Inserts these jobs in one statement of their own: all are committed, or none. */
  insertTogether(jobs: readonly NewJob[]): Promise<unknown> {
    return this.carrier.carry((told) => this.pool.query({ ...INSERT, values: [...insertColumns(jobs), told] }), noticesOf(jobs));
  }

  /**
   * As insertTogether, in a transaction on `pool` that runs `before` first: all of it is committed,
   * or none. The notifications it carries count as sent only once the transaction has committed.
   */
  insertAfter(pool: pg.Pool, before: (client: Queryable) => Promise<unknown>, jobs: readonly NewJob[]): Promise<unknown> {
    const insert = (told: string | null) =>
      transaction(pool, async (client) => {
        await before(client);
        await client.query({ ...INSERT, values: [...insertColumns(jobs), told] });
      });
    return this.carrier.carry(insert, noticesOf(jobs));
  }

  private async statesOf(ids: string[]): Promise<(JobState | undefined)[]> {
    const { rows } = await this.carrier.carry((told) => this.pool.query<JobStateRow>({ ...GET_STATE, values: [[...new Set(ids)], told] }));
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => {
      const row = byId.get(id);
      return row && jobStateFromRow(row);
    });
  }

  private async completeAll(calls: CompleteCall[]): Promise<(JobState | undefined)[]> {
    const { rows } = await this.carrier.carry((told) =>
      this.pool.query<Omit<JobStateRow, (typeof WRITTEN_BY_COMPLETION)[number]>>({
        ...COMPLETE,
        values: [
          calls.map((c) => c.id),
          calls.map((c) => c.completion.status),
          calls.map((c) => c.completion.output),
          calls.map((c) => c.completion.error),
          calls.map((c) => c.completion.completedAt),
          calls.map((c) => c.from.join(',')),
          calls.map((c) => c.endpointId),
          calls.map((c) => c.workerId),
          calls.map((c) => c.late),
          told,
        ],
      }),
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    return calls.map((c) => {
      const row = byId.get(c.id);
      // Added to the row rather than spread into a copy of it, one per completed job.
      return row && jobStateFromRow(Object.assign(row, { output: c.completion.output, error: c.completion.error }));
    });
  }
}

function insertColumns(jobs: readonly NewJob[]): unknown[] {
  return [
    jobs.map((j) => j.id),
    jobs.map((j) => j.endpointId),
    jobs.map((j) => j.accountId),
    jobs.map((j) => j.input),
    jobs.map((j) => j.webhook),
    jobs.map((j) => j.s3Config),
    jobs.map((j) => j.executionTimeoutMs),
    jobs.map((j) => j.lowPriority),
    jobs.map((j) => j.retentionMs),
    jobs.map((j) => j.ttlMs),
    jobs.map((j) => j.submittedAt),
    jobs.map((j) => j.expiresAt),
    jobs.map((j) => j.handedTo?.workerId ?? null),
    jobs.map((j) => j.handedTo?.startedAt ?? null),
    jobs.map((j) => (j.handedTo ? leaseEnd(j.handedTo.leaseUntil, j.handedTo.startedAt, j.executionTimeoutMs) : null)),
  ];
}
