// On SQLite an endpoint's running jobs are read through the index of the jobs workers hold now,
// which leads with the endpoint, and its finished jobs through the index of finished jobs, which
// running jobs never enter (migration 026; every store's reads are checked in the conformance
// suite). Here: a database made before those indexes shows its jobs the same after its upgrade,
// counting an endpoint's running jobs reads only its own entries, and the sweeps read only the
// leases that ended (migration 027), including those set before it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { migrateSqlite, readMigrations } from '../src/store/sqlite/migrate.js';
import { prepareJobStatements } from '../src/store/sqlite/sqlite-job-statements.js';

const NOW = 1_800_000_000_000;
const LEASE = NOW + 600_000;
let dir: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'gantry-running-index-'));
});

after(() => rmSync(dir, { recursive: true, force: true }));

async function listed(store: SqliteStore, endpointId: string, statuses: ('IN_PROGRESS' | 'COMPLETED' | 'FAILED')[]) {
  return (await store.jobHistory.list(endpointId, { statuses, limit: 10 })).jobs.map((job) => `${job.id} ${job.status}`);
}

test('a database made before the index of finished jobs counts and lists its jobs the same after its upgrade', async () => {
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
});

test("an endpoint's running jobs are counted among its own, not among every endpoint's", () => {
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
});

test('the sweeps seek the ended leases of each endpoint in jobs_running, never scan the jobs', () => {
  const db = new Database(':memory:');
  try {
    migrateSqlite(db);
    const statements = prepareJobStatements(db);
    for (const sweep of [statements.timeOut, statements.failLapsed, statements.requeueLapsed]) {
      const parameters = sweep.source.split('?').length - 1;
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${sweep.source}`).all(...Array<number>(parameters).fill(1)) as { detail: string }[];
      const reads = plan.map((step) => step.detail).filter((detail) => / jobs /.test(detail));
      assert.ok(
        reads.every((detail) => detail.startsWith('SEARCH jobs USING')),
        reads.join('\n'),
      );
      assert.ok(reads.includes('SEARCH jobs USING INDEX jobs_running (endpoint_id=? AND lease_expires_at<?)'), reads.join('\n'));
    }
  } finally {
    db.close();
  }
});

test('a lease set past its deadline before the upgrade ends at the deadline after it, and the job times out then', async () => {
  const file = join(dir, 'leases.db');
  const older = new Database(file);
  migrateSqlite(
    older,
    readMigrations().filter((migration) => migration.version < 27),
  );
  older
    .prepare(
      `INSERT INTO jobs (id, endpoint_id, account_id, status, input, execution_timeout_ms, retention_ms, ttl_ms,
        submitted_at, expires_at, worker_id, started_at, lease_expires_at)
      VALUES (?, 'a', 'account-1', 'IN_PROGRESS', '{}', ?, 600000, 600000, ?, ?, 'worker', ?, ?)`,
    )
    .run('long-lease', 5000, NOW, NOW + 600_000, NOW, NOW + 60_000);
  older.close();
  const upgraded = new SqliteStore(file);
  try {
    assert.equal((await upgraded.jobs.get('long-lease'))?.leaseExpiresAt, NOW + 5000);
    assert.deepEqual(await upgraded.jobs.releaseLapsedLeases(NOW + 5000, 3, 10), { requeued: [], failed: [] });
    assert.deepEqual(
      (await upgraded.jobs.timeOutOverdue(NOW + 5000, 10)).map((job) => [job.id, job.status]),
      [['long-lease', 'TIMED_OUT']],
    );
  } finally {
    await upgraded.close();
  }
});
