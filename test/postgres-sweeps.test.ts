// The sweeps run every half second on the leading replica. On PostgreSQL each reads its index as a
// range even before the statistics of the table exist (a table just filled, before autovacuum
// analyzes it): without them the planner had taken the expiry sweep's range for a third of the
// table and scanned the whole table on every pass. And the timeout, which reads only the leases
// that ended (decision 43), finds the jobs taken before the migration that capped their leases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { createPool } from '../src/store/postgres/database.js';
import { migratePostgres, POSTGRES_MIGRATIONS_DIR } from '../src/store/postgres/migrate.js';
import { readMigrationFiles } from '../src/store/shared/migrations.js';
import { SWEEPS } from '../src/store/postgres/job-sweeps.js';
import { createPostgresSchema, NO_POSTGRES } from './support/test-store.js';
import { aJob, aQueue, NOW } from './store-conformance/records.js';

if (NO_POSTGRES) console.log(`# ${NO_POSTGRES} (sweep plans)`);
const skip = NO_POSTGRES ?? false;
const JOBS = 20_000;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Loops'?: number;
  'Actual Rows'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/** The rows that sequential scans of `table` read in a plan that ran. */
function seqScanned(node: PlanNode, table: string): number {
  const ran = node['Node Type'] === 'Seq Scan' && node['Relation Name'] === table && (node['Actual Loops'] ?? 0) > 0;
  const read = ran ? (node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) : 0;
  return read + (node.Plans ?? []).reduce((sum, child) => sum + seqScanned(child, table), 0);
}

test('the sweeps read their indexes, not the whole table, on a table not analyzed yet', { skip }, async () => {
  const schema = await createPostgresSchema();
  const store = await PostgresStore.open({ url: schema.url, max: 2 });
  const client = new pg.Client({ connectionString: schema.url });
  await client.connect();
  try {
    const queue = aQueue();
    const handedTo = { workerId: 'w1', startedAt: NOW, leaseUntil: NOW + 60_000 };
    for (let n = 0; n < JOBS; n += 2000) {
      await store.jobs.insertAll(Array.from({ length: 2000 }, (_, i) => aJob(queue, i % 2 === 0 ? { handedTo } : {})));
    }
    const analyzed = (
      await client.query<{ at: string | null }>(
        `SELECT coalesce(last_analyze, last_autoanalyze)::text AS at FROM pg_stat_user_tables WHERE relname = 'jobs'`,
      )
    ).rows[0]?.at;
    // Run, then rolled back: a scan the plan holds but never runs (the other side of a join with
    // nothing due) costs nothing.
    const scanned = async (sql: string, values: unknown[]) => {
      await client.query('BEGIN');
      try {
        const result = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, values);
        return seqScanned(result.rows[0]!['QUERY PLAN'][0].Plan, 'jobs');
      } finally {
        await client.query('ROLLBACK');
      }
    };
    const [now, limit] = [NOW + 1000, 500];
    const read = {
      deleteExpired: await scanned(SWEEPS.deleteExpired, [now, limit]),
      timeOut: await scanned(SWEEPS.timeOut, [now, limit]),
      failLapsed: await scanned(SWEEPS.failLapsed, [now, 'lost', 2, limit]),
      requeueLapsed: await scanned(SWEEPS.requeueLapsed, [now, limit]),
    };
    // A hash join reads the first row of its outer side before it builds its table: one row.
    for (const [sweep, rows] of Object.entries(read)) {
      assert.ok(rows <= 1, `${sweep} read ${rows} of the ${JOBS} jobs in turn (table analyzed: ${analyzed ?? 'never'})`);
    }
  } finally {
    await client.end();
    await store.close();
    await schema.drop();
  }
});

test('a lease set past its deadline before the upgrade ends at the deadline after it, and the job times out then', { skip }, async () => {
  const schema = await createPostgresSchema();
  const pool = createPool({ url: schema.url, max: 1 });
  try {
    await migratePostgres(
      pool,
      readMigrationFiles(POSTGRES_MIGRATIONS_DIR).filter((migration) => migration.version < 19),
    );
    await pool.query(
      `INSERT INTO jobs (id, endpoint_id, account_id, status, input, execution_timeout_ms, retention_ms, ttl_ms,
        submitted_at, expires_at, worker_id, started_at, lease_expires_at)
      VALUES ('long-lease', 'a', 'account-1', 'IN_PROGRESS', '{}', 5000, 600000, 600000, $1, $2, 'worker', $1, $3)`,
      [NOW, NOW + 600_000, NOW + 60_000],
    );
    await migratePostgres(pool);
  } finally {
    await pool.end();
  }
  const store = await PostgresStore.open({ url: schema.url, max: 2 });
  try {
    assert.equal((await store.jobs.get('long-lease'))?.leaseExpiresAt, NOW + 5000);
    assert.deepEqual(await store.jobs.releaseLapsedLeases(NOW + 5000, 3, 10), { requeued: [], failed: [] });
    assert.deepEqual(
      (await store.jobs.timeOutOverdue(NOW + 5000, 10)).map((job) => [job.id, job.status]),
      [['long-lease', 'TIMED_OUT']],
    );
  } finally {
    await store.close();
    await schema.drop();
  }
});
