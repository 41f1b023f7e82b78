// The SQLite job store reads its hot rows as arrays of named columns in a fixed order; each field
// must land where a read of the whole row by name puts it, through every statement that returns one
// (the whole job, or its state: every field but the input and the S3 settings).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteDatabase } from '../src/store/sqlite/sqlite-file.js';
import { SqliteJobStore } from '../src/store/sqlite/sqlite-job-store.js';
import { SqliteSubmitKeys } from '../src/store/sqlite/sqlite-submit-keys.js';
import { HistoryReader } from '../src/store/sqlite/history-reader.js';
import { GroupCommit } from '../src/store/sqlite/group-commit.js';
import { jobFromRow, jobStateFromRow, type JobRow } from '../src/store/rows.js';

test('every field of a job read, taken, completed or requeued, or of its state, is the one stored in its column', async () => {
  const db = openSqliteDatabase(join(mkdtempSync(join(tmpdir(), 'gantry-columns-')), 'gantry.db'));
  const jobs = new SqliteJobStore(db, new HistoryReader(db, new GroupCommit(db), (error) => assert.fail(error)), new SqliteSubmitKeys(db));
  const row = (id: string) => db.prepare('SELECT * FROM jobs WHERE id = ?').get(id) as JobRow;
  const stored = (id: string) => jobFromRow(row(id));
  const storedState = (id: string) => jobStateFromRow(row(id));
  // Every field distinct, so a swapped pair of columns cannot go unnoticed.
  await jobs.insert({
    id: 'job-1',
    endpointId: 'endpoint-1',
    accountId: 'account-1',
    input: '{"in":1}',
    webhook: 'https://hooks.example.test/a',
    s3Config: '{"bucket":"b"}',
    executionTimeoutMs: 111_000,
    lowPriority: true,
    retentionMs: 222,
    ttlMs: 333_000,
    submittedAt: 1_000,
    expiresAt: 900_000,
  });
  assert.deepEqual(await jobs.get('job-1'), stored('job-1'));
  assert.deepEqual(await jobs.getState('job-1'), storedState('job-1'));
  const [taken] = await jobs.take('endpoint-1', 'worker-1', 1, 2_000, 55_555);
  assert.deepEqual(taken, stored('job-1'));
  assert.equal(taken!.leaseExpiresAt, 55_555);
  const failed = await jobs.complete('job-1', ['IN_PROGRESS'], { status: 'FAILED', output: '"out"', error: 'boom', completedAt: 3_000 });
  assert.deepEqual(failed, storedState('job-1'));
  assert.deepEqual(await jobs.getState('job-1'), storedState('job-1'));
  assert.deepEqual([failed!.output, failed!.error, failed!.completedAt, failed!.expiresAt], ['"out"', 'boom', 3_000, 3_222]);
  const requeued = await jobs.requeue('job-1', ['FAILED'], 800_000);
  assert.deepEqual(requeued, storedState('job-1'));
  assert.deepEqual([requeued!.status, requeued!.retries, requeued!.lowPriority], ['IN_QUEUE', 1, true]);
  db.close();
});
