// On SQLite an endpoint's running jobs are read through the index of the jobs workers hold now,
// which leads with the endpoint, and its finished jobs through the index of finished jobs, which
// running jobs never enter (PostgreSQL keeps one index of jobs by status). On both stores the
// counts, the queue's figures and the job list must show each endpoint its own jobs, in each
// status, as a job moves from one to the next; and a SQLite database made before those indexes
// must show the same after its upgrade.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Store } from '../src/store/store.js';
import type { NewJob } from '../src/store/job-store.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { migrateSqlite, readMigrations } from '../src/store/sqlite/migrate.js';
import { prepareJobStatements } from '../src/store/sqlite/sqlite-job-statements.js';
import { openTestStore, TEST_STORE, type TestStore } from './support/test-store.js';

const NOW = 1_800_000_000_000;
const LEASE = NOW + 600_000;
let dir: string;
let opened: TestStore;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gantry-running-reads-'));
  opened = await openTestStore(dir);
});

after(async () => {
  await opened.store.close();
  await opened.drop();
  rmSync(dir, { recursive: true, force: true });
});

function newJob(id: string, endpointId: string, submittedAt: number): NewJob {
  return {
    id,
    endpointId,
    accountId: 'account-1',
    input: '{}',
    webhook: null,
    s3Config: null,
    executionTimeoutMs: 600_000,
    lowPriority: false,
    retentionMs: 600_000,
    ttlMs: 600_000,
    submittedAt,
    expiresAt: submittedAt + 600_000,
  };
}

/** Three jobs on each of two endpoints, all taken; on `a`, one is then completed and one failed. */
async function jobsInEachStatus(store: Store, a: string, b: string): Promise<void> {
  for (const [i, endpointId] of [a, a, a, b, b, b].entries()) await store.jobs.insert(newJob(`${endpointId}-${i}`, endpointId, NOW + i));
  await store.jobs.take(a, 'worker-a', 3, NOW + 10, LEASE);
  await store.jobs.take(b, 'worker-b', 2, NOW + 10, LEASE);
  await store.jobs.complete(`${a}-0`, ['IN_PROGRESS'], { status: 'COMPLETED', output: '1', error: null, completedAt: NOW + 20 });
  await store.jobs.complete(`${a}-1`, ['IN_PROGRESS'], { status: 'FAILED', output: null, error: 'boom', completedAt: NOW + 21 });
}

async function listed(store: Store, endpointId: string, statuses: ('IN_PROGRESS' | 'COMPLETED' | 'FAILED' | 'IN_QUEUE')[]) {
  return (await store.jobHistory.list(endpointId, { statuses, limit: 10 })).jobs.map((job) => `${job.id} ${job.status}`);
}

test('each endpoint counts and lists its own running and finished jobs as they move on', async () => {
  const { store } = opened;
  await jobsInEachStatus(store, 'a', 'b');
  const counts = await store.jobs.counts('a');
  assert.deepEqual([counts.inQueue, counts.inProgress, counts.completed, counts.failed], [0, 1, 1, 1]);
  assert.equal((await store.jobs.counts('b')).inProgress, 2, "the other endpoint's running jobs are its own");
  assert.equal((await store.jobs.queueStats('a')).inProgress, 1);
  assert.equal((await store.jobs.queueStats('b')).inProgress, 2);
  assert.deepEqual(await listed(store, 'a', ['IN_PROGRESS']), ['a-2 IN_PROGRESS']);
  assert.deepEqual(await listed(store, 'b', ['IN_PROGRESS', 'IN_QUEUE']), ['b-5 IN_QUEUE', 'b-4 IN_PROGRESS', 'b-3 IN_PROGRESS']);
  assert.deepEqual(await listed(store, 'a', ['IN_PROGRESS', 'COMPLETED', 'FAILED']), ['a-2 IN_PROGRESS', 'a-1 FAILED', 'a-0 COMPLETED']);

  // The running job finishes: it leaves the running reads and joins the finished ones.
  await store.jobs.complete('a-2', ['IN_PROGRESS'], { status: 'COMPLETED', output: '2', error: null, completedAt: NOW + 30 });
  const after = await store.jobs.counts('a');
  assert.deepEqual([after.inProgress, after.completed, after.failed], [0, 2, 1]);
  assert.equal((await store.jobs.queueStats('a')).inProgress, 0);
  assert.deepEqual(await listed(store, 'a', ['IN_PROGRESS']), []);
  assert.deepEqual(await listed(store, 'a', ['COMPLETED']), ['a-2 COMPLETED', 'a-0 COMPLETED']);
});

test(
  'a SQLite database made before the index of finished jobs counts and lists its jobs the same after its upgrade',
  { skip: TEST_STORE !== 'sqlite' },
  async () => {
    const file = join(dir, 'older.db');
    const older = new Database(file);
    // The schema as it was, every migration before the one that made jobs_finished, with jobs of
    // every status on two endpoints in it.
    migrateSqlite(
      older,
      readMigrations().filter((migration) => migration.version < 26),
    );
    const insert = older.prepare(`INSERT INTO jobs (id, endpoint_id, account_id, status, input, execution_timeout_ms,
    retention_ms, ttl_ms, submitted_at, expires_at, worker_id, started_at, lease_expires_at, completed_at)
    VALUES (?, ?, 'account-1', ?, '{}', 600000, 600000, 600000, ?, ?, ?, ?, ?, ?)`);
    const rows: [string, string, string][] = [
      ['a-0', 'a', 'COMPLETED'],
      ['a-1', 'a', 'FAILED'],
      ['a-2', 'a', 'IN_PROGRESS'],
      ['b-3', 'b', 'IN_PROGRESS'],
      ['b-4', 'b', 'IN_PROGRESS'],
      ['b-5', 'b', 'IN_QUEUE'],
    ];
    for (const [i, [id, endpointId, status]] of rows.entries()) {
      const taken = status !== 'IN_QUEUE';
      const finished = status === 'COMPLETED' || status === 'FAILED';
      insert.run(
        id,
        endpointId,
        status,
        NOW + i,
        NOW + 600_000,
        taken ? 'worker' : null,
        taken ? NOW + 10 : null,
        taken && !finished ? LEASE : null,
        finished ? NOW + 20 : null,
      );
    }
    older.close();
    const upgraded = new SqliteStore(file);
    try {
      const counts = await upgraded.jobs.counts('a');
      assert.deepEqual([counts.inProgress, counts.completed, counts.failed], [1, 1, 1]);
      assert.equal((await upgraded.jobs.queueStats('b')).inProgress, 2);
      assert.deepEqual(await listed(upgraded, 'b', ['IN_PROGRESS']), ['b-4 IN_PROGRESS', 'b-3 IN_PROGRESS']);
      assert.deepEqual(await listed(upgraded, 'a', ['COMPLETED', 'FAILED']), ['a-1 FAILED', 'a-0 COMPLETED']);
    } finally {
      await upgraded.close();
    }
  },
);

test(
  "on SQLite an endpoint's running jobs are counted among its own, not among every endpoint's",
  { skip: TEST_STORE !== 'sqlite' },
  () => {
    // The autoscaler counts each endpoint's running jobs every tick: a scan of every running job
    // for each endpoint would grow with endpoints times running jobs.
    const db = new Database(':memory:');
    try {
      migrateSqlite(db);
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${prepareJobStatements(db).countRunning.source}`).all('a', 10) as { detail: string }[];
      const reads = plan.map((step) => step.detail).filter((detail) => / jobs /.test(detail));
      assert.deepEqual(reads, ['SEARCH jobs USING COVERING INDEX jobs_running (endpoint_id=?)']);
    } finally {
      db.close();
    }
  },
);
