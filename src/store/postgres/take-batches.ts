// Takes arriving together (workers' long-polls woken in one turn, or while the previous take is at
// the database) go out as one statement, whatever their endpoints: for each endpoint it locks up
// to the sum of its callers' limits of the oldest queued jobs with SKIP LOCKED and hands them out
// in order, the first caller the oldest. Each row is updated once, so no job reaches two workers,
// here or on another replica taking at the same time. Only each endpoint's current queue
// generation is taken (a purge hides the older ones: docs/decisions/0015). A statement per
// endpoint made a deployment of many endpoints with few workers each pay a round trip per take;
// takes of one endpoint cost the same in this statement as in one made for them (round 26).
import type pg from 'pg';
import type { JobRecord } from '../job-store.js';
import { jobFromRow, type JobRow } from '../rows.js';
import { inTakeOrder } from '../shared/job-results.js';
import { TurnBatch } from './turn-batch.js';
import { generationOf } from '../shared/queue-generation-sql.js';
import { jobRecordColumns } from '../shared/job-sql.js';
import { carriedNotification, type NotificationCarrier } from './notifications.js';

const TOLD = carriedNotification(7);
const UNFLUSHED = `unflushed AS (SELECT set_config('synchronous_commit', 'off', true) AS setting)`;

/**
 * The takes of one turn, a lateral subquery per endpoint among them. The take's commit does not
 * wait for the WAL flush (docs/decisions/0028): a take lost to a database crash leaves its jobs
 * queued, to be taken again, which at-least-once allows.
 */
const TAKE = {
  name: 'gantry_jobs_take',
  text: `WITH ${TOLD.cte}, ${UNFLUSHED}, want AS (
           SELECT w.worker_id, w.endpoint_id, w.n, w.started_at, w.lease_until,
             sum(w.n) OVER (PARTITION BY w.endpoint_id ORDER BY w.ord) - w.n AS first
           FROM unnest($1::text[], $2::text[], $3::int[], $4::bigint[], $5::bigint[])
             WITH ORDINALITY AS w(worker_id, endpoint_id, n, started_at, lease_until, ord)
         ), wanted AS (
           SELECT endpoint_id, sum(n) AS total FROM want GROUP BY endpoint_id
         ), picked AS MATERIALIZED (
           SELECT free.seq, wanted.endpoint_id, row_number() OVER (PARTITION BY wanted.endpoint_id ORDER BY free.low_priority, free.seq) - 1 AS i
           FROM wanted CROSS JOIN LATERAL (
             SELECT seq, low_priority FROM jobs WHERE endpoint_id = wanted.endpoint_id
               AND queue_generation = ${generationOf('wanted.endpoint_id')} AND status = 'IN_QUEUE' AND expires_at > $6
             ORDER BY low_priority, seq LIMIT wanted.total FOR UPDATE SKIP LOCKED) AS free
         )
         UPDATE jobs SET status = 'IN_PROGRESS', worker_id = want.worker_id, started_at = want.started_at, lease_expires_at = least(want.lease_until, want.started_at + jobs.execution_timeout_ms)
         FROM picked JOIN want ON want.endpoint_id = picked.endpoint_id AND picked.i >= want.first AND picked.i < want.first + want.n
         WHERE jobs.seq = picked.seq AND ${TOLD.condition} AND (SELECT setting FROM unflushed) = 'off'
         RETURNING ${jobRecordColumns('jobs')}`,
};

interface TakeCall {
  endpointId: string;
  workerId: string;
  limit: number;
  now: number;
  leaseUntil: number;
}

/** A worker of an endpoint: one worker's takes never share a statement, each gets its own rows. */
const takerOf = (endpointId: string, workerId: string) => `${endpointId} ${workerId}`;

export class TakeBatches {
  private readonly batch = new TurnBatch<TakeCall, JobRecord[]>((calls) => this.takeAll(calls), {
    key: (c) => takerOf(c.endpointId, c.workerId),
  });

  constructor(
    private readonly pool: pg.Pool,
    private readonly carrier: NotificationCarrier,
  ) {}

  take(endpointId: string, call: Omit<TakeCall, 'endpointId'>): Promise<JobRecord[]> {
    return this.batch.add({ ...call, endpointId });
  }

  private async takeAll(calls: TakeCall[]): Promise<JobRecord[][]> {
    // Every caller's own time stamps its jobs; the latest decides what has expired.
    const now = Math.max(...calls.map((c) => c.now));
    const [workerIds, limits, starts, leases] = [
      calls.map((c) => c.workerId),
      calls.map((c) => c.limit),
      calls.map((c) => c.now),
      calls.map((c) => c.leaseUntil),
    ];
    const endpointIds = calls.map((c) => c.endpointId);
    const { rows } = await this.carrier.carry((told) =>
      this.pool.query<JobRow>({ ...TAKE, values: [workerIds, endpointIds, limits, starts, leases, now, told] }),
    );
    const byTaker = new Map<string, JobRecord[]>();
    for (const row of rows) {
      const taker = takerOf(row.endpoint_id, row.worker_id!);
      const list = byTaker.get(taker) ?? [];
      list.push(jobFromRow(row));
      byTaker.set(taker, list);
    }
    return calls.map((c) => inTakeOrder(byTaker.get(takerOf(c.endpointId, c.workerId)) ?? []));
  }
}
