// Takes of one endpoint arriving together (several workers' long-polls woken in one turn, or
// while the previous take is at the database) go out as one statement: it locks up to the sum of
// their limits of the oldest queued jobs with SKIP LOCKED and hands them out in order, the first
// caller the oldest. Each row is updated once, so no job reaches two workers, here or on another
// replica taking at the same time. Only the endpoint's current queue generation is taken (a purge
// hides the older ones: docs/decisions/0015).
import type pg from 'pg';
import type { JobRecord } from '../job-store.js';
import { jobFromRow, type JobRow } from '../rows.js';
import { inTakeOrder } from '../shared/job-results.js';
import { KeyedTurnBatches } from './turn-batch.js';
import { generationOf } from '../shared/queue-generation-sql.js';
import { jobRecordColumns } from '../shared/job-sql.js';
import { carriedNotification, type NotificationCarrier } from './notifications.js';

const TOLD = carriedNotification(8);

const TAKE = {
  name: 'gantry_jobs_take',
  // The take's commit does not wait for the WAL flush (docs/decisions/0028): a take lost to a
  // database crash leaves its jobs queued, to be taken again, which at-least-once allows.
  text: `WITH ${TOLD.cte}, unflushed AS (SELECT set_config('synchronous_commit', 'off', true) AS setting), want AS (
           SELECT w.worker_id, w.n, w.started_at, w.lease_until, sum(w.n) OVER (ORDER BY w.ord) - w.n AS first
           FROM unnest($1::text[], $2::int[], $3::bigint[], $4::bigint[]) WITH ORDINALITY AS w(worker_id, n, started_at, lease_until, ord)
         ), picked AS MATERIALIZED (
           SELECT seq, row_number() OVER (ORDER BY low_priority, seq) - 1 AS i
           FROM (SELECT seq, low_priority FROM jobs WHERE endpoint_id = $5 AND queue_generation = ${generationOf('$5')}
                   AND status = 'IN_QUEUE' AND expires_at > $6
                 ORDER BY low_priority, seq LIMIT $7 FOR UPDATE SKIP LOCKED) AS free
         )
         UPDATE jobs SET status = 'IN_PROGRESS', worker_id = want.worker_id, started_at = want.started_at, lease_expires_at = want.lease_until
         FROM picked JOIN want ON picked.i >= want.first AND picked.i < want.first + want.n
         WHERE jobs.seq = picked.seq AND ${TOLD.condition} AND (SELECT setting FROM unflushed) = 'off'
         RETURNING ${jobRecordColumns('jobs')}`,
};

interface TakeCall {
  workerId: string;
  limit: number;
  now: number;
  leaseUntil: number;
}

export class TakeBatches {
  // One worker's takes never share a statement: each gets its own rows.
  private readonly byEndpoint = new KeyedTurnBatches<TakeCall, JobRecord[]>((endpointId, calls) => this.takeAll(endpointId, calls), {
    key: (c) => c.workerId,
  });

  constructor(
    private readonly pool: pg.Pool,
    private readonly carrier: NotificationCarrier,
  ) {}

  take(endpointId: string, call: TakeCall): Promise<JobRecord[]> {
    return this.byEndpoint.add(endpointId, call);
  }

  private async takeAll(endpointId: string, calls: TakeCall[]): Promise<JobRecord[][]> {
    // Every caller's own time stamps its jobs; the latest decides what has expired.
    const now = Math.max(...calls.map((c) => c.now));
    const { rows } = await this.carrier.carry((told) =>
      this.pool.query<JobRow>({
        ...TAKE,
        values: [
          calls.map((c) => c.workerId),
          calls.map((c) => c.limit),
          calls.map((c) => c.now),
          calls.map((c) => c.leaseUntil),
          endpointId,
          now,
          calls.reduce((sum, c) => sum + c.limit, 0),
          told,
        ],
      }),
    );
    const byWorker = new Map<string, JobRecord[]>();
    for (const row of rows) {
      const list = byWorker.get(row.worker_id!) ?? [];
      list.push(jobFromRow(row));
      byWorker.set(row.worker_id!, list);
    }
    return calls.map((c) => inTakeOrder(byWorker.get(c.workerId) ?? []));
  }
}
