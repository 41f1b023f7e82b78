// On SQLite a large input is kept apart from its job's row (decision 35): a take and a result
// change the row's size, and SQLite writes such a row again whole, input and all. These tests
// hold the input's way through the store and the disk writes it no longer causes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type Database from 'better-sqlite3';
import type { NewJob } from '../src/store/job-store.js';
import { aNewJob, MB_JSON as MB_INPUT, openSqliteJobs as openJobs } from './support/sqlite-jobs.js';

const aJob = (id: string, input: string, endpointId = 'endpoint-1', expiresAt = 900_000): NewJob =>
  aNewJob(id, { input, endpointId, expiresAt });

const storedInputs = (db: Database.Database) => (db.prepare('SELECT count(*) AS n FROM job_inputs').get() as { n: number }).n;
const rowInput = (db: Database.Database, id: string) =>
  (db.prepare('SELECT input FROM jobs WHERE id = ?').get(id) as { input: string }).input;

test('a large input comes back whole from every read that hands it out, and a small one stays in its row', async () => {
  const { db, jobs } = openJobs();
  await jobs.insert(aJob('large', MB_INPUT));
  await jobs.insert(aJob('small', '{"prompt":"hi"}'));
  assert.equal(rowInput(db, 'large'), '', 'the large input is not in its row');
  assert.equal(rowInput(db, 'small'), '{"prompt":"hi"}');
  assert.equal(storedInputs(db), 1);

  assert.equal((await jobs.get('large'))?.input, MB_INPUT);
  const taken = await jobs.take('endpoint-1', 'worker-1', 2, 2_000, 60_000);
  assert.deepEqual(
    taken.map((job) => [job.id, job.input]),
    [
      ['large', MB_INPUT],
      ['small', '{"prompt":"hi"}'],
    ],
  );
  await jobs.complete('large', ['IN_PROGRESS'], { status: 'FAILED', output: null, error: 'boom', completedAt: 3_000 });
  await jobs.requeue('large', ['FAILED'], 800_000);
  assert.equal((await jobs.take('endpoint-1', 'worker-2', 1, 4_000, 60_000))[0]?.input, MB_INPUT, 'a retry is taken with its input');
  db.close();
});

test('an input is kept apart once it is over 2 KB as UTF-8, however few its characters', async () => {
  const { db, jobs } = openJobs();
  const inputs = {
    'ascii-2048': JSON.stringify('a'.repeat(2046)),
    'ascii-2049': JSON.stringify('a'.repeat(2047)),
    'euro-682': JSON.stringify('€'.repeat(682)), // 2,048 bytes in 684 characters
    'euro-683': JSON.stringify('€'.repeat(683)), // 2,051 bytes in 685 characters
  };
  for (const [id, input] of Object.entries(inputs)) await jobs.insert(aJob(id, input));
  assert.deepEqual(
    Object.keys(inputs).map((id) => [id, rowInput(db, id) === '' ? 'apart' : 'in its row']),
    [
      ['ascii-2048', 'in its row'],
      ['ascii-2049', 'apart'],
      ['euro-682', 'in its row'],
      ['euro-683', 'apart'],
    ],
  );
  for (const [id, input] of Object.entries(inputs)) assert.equal((await jobs.get(id))?.input, input);
  db.close();
});

test('taking a job with a 1 MB input and reporting its result do not write the input again', async () => {
  const { db, jobs, walGrowth } = openJobs();
  const bySubmit = walGrowth();
  await jobs.insert(aJob('large', MB_INPUT));
  assert.ok(bySubmit() > 1_000_000, `the submit wrote the input once (${bySubmit()} bytes)`);
  const sinceSubmit = walGrowth();
  await jobs.take('endpoint-1', 'worker-1', 1, 2_000, 60_000);
  await jobs.complete('large', ['IN_PROGRESS'], { status: 'COMPLETED', output: '{"ok":true}', error: null, completedAt: 3_000 });
  const written = sinceSubmit();
  assert.ok(written < 64 * 1024, `the take and the result wrote ${written} bytes`);
  db.close();
});

test('a job deleted by expiry, by a purge of its queue or with its endpoint takes its kept input along', async () => {
  const { db, jobs } = openJobs();
  await jobs.insert(aJob('expiring', MB_INPUT, 'endpoint-1', 10_000));
  await jobs.insert(aJob('purged', MB_INPUT, 'endpoint-2'));
  await jobs.insert(aJob('of-deleted-endpoint', MB_INPUT, 'endpoint-3'));
  await jobs.insert(aJob('kept', MB_INPUT, 'endpoint-1'));
  assert.equal(storedInputs(db), 4);

  assert.equal((await jobs.deleteExpired(10_000, 100)).length, 1);
  assert.equal(storedInputs(db), 3);
  assert.equal(await jobs.purgeQueued('endpoint-2'), 1);
  while ((await jobs.deletePurged(100)) > 0);
  assert.equal(storedInputs(db), 2);
  jobs.hideJobsOfEndpoint('endpoint-3');
  while ((await jobs.deleteJobsOfDeletedEndpoint('endpoint-3', 100)) > 0);
  assert.equal(storedInputs(db), 1);
  assert.equal((await jobs.get('kept'))?.input, MB_INPUT);
  db.close();
});

test('a submit whose id is taken leaves neither a row nor an input behind', async () => {
  const { db, jobs } = openJobs();
  await jobs.insert(aJob('same-id', MB_INPUT));
  await assert.rejects(jobs.insert(aJob('same-id', JSON.stringify({ other: 'x'.repeat(4096) }))));
  assert.equal(storedInputs(db), 1);
  assert.equal((await jobs.get('same-id'))?.input, MB_INPUT);
  db.close();
});
