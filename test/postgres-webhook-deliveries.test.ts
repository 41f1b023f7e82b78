// On PostgreSQL webhook deliveries moved out of the job rows into a table of their own (migration
// 020, docs/decisions/0044); every store's outbox is checked in the conformance suite. Here: the
// deliveries a database owed before its upgrade are owed after it, with their due times and
// attempts, and the deletes of jobs take their deliveries with them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createPool } from '../src/store/postgres/database.js';
import { migratePostgres, POSTGRES_MIGRATIONS_DIR } from '../src/store/postgres/migrate.js';
import { readMigrationFiles } from '../src/store/shared/migrations.js';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { deleteJobsOfEndpoint } from '../src/store/postgres/postgres-job-store.js';
import { createPostgresSchema, NO_POSTGRES } from './support/test-store.js';
import { aJob, aQueue, NOW } from './store-conformance/records.js';

if (NO_POSTGRES) console.log(`# ${NO_POSTGRES} (webhook deliveries)`);
const skip = NO_POSTGRES ?? false;
const HOOK = 'https://example.test/hook';

test('deliveries owed before the upgrade are owed after it, with their due times and attempts', { skip }, async () => {
  const schema = await createPostgresSchema();
  const pool = createPool({ url: schema.url, max: 1 });
  try {
    await migratePostgres(
      pool,
      readMigrationFiles(POSTGRES_MIGRATIONS_DIR).filter((migration) => migration.version < 20),
    );
    const insert = `INSERT INTO jobs (id, endpoint_id, account_id, status, input, webhook, execution_timeout_ms, retention_ms, ttl_ms,
        submitted_at, expires_at, completed_at, webhook_due_at, webhook_attempts)
      VALUES ($1, 'e', 'account-1', 'COMPLETED', '{}', $2, 600000, 600000, 600000, $3, $4, $3, $5, $6)`;
    await pool.query(insert, ['retrying', HOOK, NOW, NOW + 600_000, NOW + 5000, 2]);
    await pool.query(insert, ['fresh', HOOK, NOW, NOW + 600_000, 0, 0]);
    await pool.query(insert, ['delivered', HOOK, NOW, NOW + 600_000, null, 1]);
    await migratePostgres(pool);
  } finally {
    await pool.end();
  }
  const store = await PostgresStore.open({ url: schema.url, max: 2 });
  try {
    const now = NOW + 10_000;
    const due = await store.jobs.claimWebhooks(now, 30_000, 10);
    assert.deepEqual(
      due.map((d) => [d.job.id, d.attempt]),
      [
        ['fresh', 1],
        ['retrying', 3],
      ],
    );
  } finally {
    await store.close();
    await schema.drop();
  }
});

test("a job's delivery goes with the job: by retention, and with its endpoint", { skip }, async () => {
  const schema = await createPostgresSchema();
  const store = await PostgresStore.open({ url: schema.url, max: 2 });
  const reader = new pg.Client({ connectionString: schema.url });
  await reader.connect();
  try {
    const [kept, expiring, ofDeleted] = [aQueue(), aQueue(), aQueue()];
    const jobs = [
      aJob(kept, { webhook: HOOK }),
      aJob(expiring, { webhook: HOOK, expiresAt: NOW + 10 }),
      aJob(ofDeleted, { webhook: HOOK }),
    ];
    for (const job of jobs) {
      await store.jobs.insert(job);
      await store.jobs.complete(job.id, ['IN_QUEUE'], { status: 'COMPLETED', output: '1', error: null, completedAt: NOW });
    }
    const owed = async () =>
      (await reader.query<{ job_id: string }>('SELECT job_id FROM webhook_deliveries ORDER BY job_seq')).rows.map((r) => r.job_id);
    assert.deepEqual(
      await owed(),
      jobs.map((job) => job.id),
    );
    await store.jobs.deleteExpired(NOW + 10, 100);
    await reader.query('BEGIN');
    await deleteJobsOfEndpoint(reader, ofDeleted);
    await reader.query('COMMIT');
    assert.deepEqual(await owed(), [jobs[0]!.id]);
  } finally {
    await reader.end();
    await store.close();
    await schema.drop();
  }
});
