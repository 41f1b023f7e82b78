// On SQLite a large output or error is kept apart from its job's row (decision 36), as a large
// input is: a finished job's row still changes size (a webhook's claim and delivery), and SQLite
// writes such a row again whole, output and all. These tests hold the way of both through the
// store and the disk writes they no longer cause.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type Database from 'better-sqlite3';
import type { Completion, NewJob } from '../src/store/job-store.js';
import type { SqliteJobStore } from '../src/store/sqlite/sqlite-job-store.js';
import { aNewJob, MB_JSON as MB_OUTPUT, openSqliteJobs as openJobs, type SqliteJobs } from './support/sqlite-jobs.js';

const aJob = (id: string, webhook: string | null = null, expiresAt = 900_000): NewJob => aNewJob(id, { webhook, expiresAt });

const done = (output: string | null, completedAt = 3_000): Completion => ({ status: 'COMPLETED', output, error: null, completedAt });
const failed = (error: string, output: string | null = null): Completion => ({ status: 'FAILED', output, error, completedAt: 3_000 });
/** A long error text, as a traceback is, in characters of two UTF-8 bytes. */
const MB_ERROR = `Traceback (most recent call last):\n${'ü'.repeat(512 * 1024)}`;

/** Submits and takes these jobs, then reports each one's output. */
async function finish(jobs: SqliteJobStore, outputs: Record<string, string>, webhook: string | null = null): Promise<void> {
  for (const id of Object.keys(outputs)) await jobs.insert(aJob(id, webhook));
  await jobs.take('endpoint-1', 'worker-1', Object.keys(outputs).length, 2_000, 60_000);
  for (const [id, output] of Object.entries(outputs)) {
    const state = await jobs.complete(id, ['IN_PROGRESS'], done(output), 'endpoint-1', { workerId: 'worker-1', late: false });
    assert.equal(state?.output, output, `the completion answers ${id}'s output`);
  }
}

const storedOutputs = (db: Database.Database) => (db.prepare('SELECT count(*) AS n FROM job_outputs').get() as { n: number }).n;
const storedErrors = (db: Database.Database) => (db.prepare('SELECT count(*) AS n FROM job_errors').get() as { n: number }).n;
const rowOutput = (db: Database.Database, id: string) =>
  (db.prepare('SELECT output FROM jobs WHERE id = ?').get(id) as { output: string | null }).output;
const rowError = (db: Database.Database, id: string) =>
  (db.prepare('SELECT error FROM jobs WHERE id = ?').get(id) as { error: string | null }).error;

/** Submits these jobs with a webhook, takes them, and fails each with its error (and output, if given). */
async function fail(jobs: SqliteJobStore, results: Record<string, [string, string?]>): Promise<void> {
  for (const id of Object.keys(results)) await jobs.insert(aJob(id, 'https://hooks.example.com/failed'));
  await jobs.take('endpoint-1', 'worker-1', Object.keys(results).length, 2_000, 60_000);
  for (const [id, [error, output]] of Object.entries(results)) {
    const state = await jobs.complete(id, ['IN_PROGRESS'], failed(error, output ?? null), 'endpoint-1', {
      workerId: 'worker-1',
      late: false,
    });
    assert.deepEqual([state?.status, state?.error, state?.output], ['FAILED', error, output ?? null]);
  }
}

/** A finished job's output and error, as one read gives them. */
type Result = [output: string | null | undefined, error: string | null | undefined];

/**
 * What every read that shows a finished job gives as its output and error, per job: its state, the
 * whole job, its line in a page of history, and its webhook's claim.
 */
async function everyRead({ jobs, history }: SqliteJobs, ids: string[]): Promise<Record<string, Result[]>> {
  const page = await history.list('endpoint-1', { statuses: [], limit: 10 });
  const claimed = await jobs.claimWebhooks(4_000, 30_000, 10);
  const reads: Record<string, Result[]> = {};
  for (const id of ids) {
    const [state, job] = [await jobs.getState(id), await jobs.get(id)];
    const listed = page.jobs.find((j) => j.id === id);
    const hooked = claimed.find((webhook) => webhook.job.id === id)?.job;
    reads[id] = [state, job, listed, hooked].map((read): Result => [read?.output, read?.error]);
  }
  return reads;
}

/** everyRead's answer when all four reads give each job's result. */
const everywhere = (results: Record<string, Result>) =>
  Object.fromEntries(Object.entries(results).map(([id, result]) => [id, [result, result, result, result]]));

test('a large output comes back whole from every read that shows it, and a small one stays in its row', async () => {
  const opened = openJobs();
  await finish(opened.jobs, { large: MB_OUTPUT, small: '{"ok":true}' }, 'https://hooks.example.com/done');
  assert.equal(rowOutput(opened.db, 'large'), '', 'the large output is not in its row');
  assert.equal(rowOutput(opened.db, 'small'), '{"ok":true}');
  assert.equal(storedOutputs(opened.db), 1);
  assert.deepEqual(await everyRead(opened, ['large', 'small']), everywhere({ large: [MB_OUTPUT, null], small: ['{"ok":true}', null] }));
  opened.db.close();
});

test('an output is kept apart once it is over 2 KB as UTF-8, as an input is', async () => {
  const { db, jobs } = openJobs();
  const outputs = {
    'ascii-2048': JSON.stringify('a'.repeat(2046)),
    'ascii-2049': JSON.stringify('a'.repeat(2047)),
    'euro-683': JSON.stringify('€'.repeat(683)), // 2,051 bytes in 685 characters
  };
  await finish(jobs, outputs);
  assert.deepEqual(
    Object.keys(outputs).map((id) => [id, rowOutput(db, id) === '' ? 'apart' : 'in its row']),
    [
      ['ascii-2048', 'in its row'],
      ['ascii-2049', 'apart'],
      ['euro-683', 'apart'],
    ],
  );
  for (const [id, output] of Object.entries(outputs)) assert.equal((await jobs.getState(id))?.output, output);
  db.close();
});

/** Claims the one finished job's webhook and records its delivery: the job as claimed, and the bytes both wrote. */
async function deliverWebhook({ jobs, walGrowth }: SqliteJobs, id: string) {
  const sinceResult = walGrowth();
  const [claimed] = await jobs.claimWebhooks(4_000, 30_000, 10);
  await jobs.webhookAttempted(id, null);
  const written = sinceResult();
  assert.ok(written < 64 * 1024, `the webhook's claim and delivery wrote ${written} bytes`);
  return claimed?.job;
}

test('claiming and delivering the webhook of a job with a 1 MB output do not write the output again', async () => {
  const opened = openJobs();
  await finish(opened.jobs, { large: MB_OUTPUT }, 'https://hooks.example.com/done');
  assert.equal((await deliverWebhook(opened, 'large'))?.output, MB_OUTPUT);
  opened.db.close();
});

test('a result refused (the job already finished) leaves the first output in place', async () => {
  const { db, jobs } = openJobs();
  await finish(jobs, { large: MB_OUTPUT });
  const again = JSON.stringify({ other: 'x'.repeat(4096) });
  assert.equal(
    await jobs.complete('large', ['IN_PROGRESS'], done(again, 5_000), 'endpoint-1', { workerId: 'worker-1', late: false }),
    undefined,
  );
  assert.equal((await jobs.getState('large'))?.output, MB_OUTPUT);
  assert.equal(storedOutputs(db), 1);
  db.close();
});

test('a retried job drops its kept output, and its next result is the one read', async () => {
  const { db, jobs } = openJobs();
  await finish(jobs, { large: MB_OUTPUT });
  const retried = await jobs.requeue('large', ['COMPLETED'], 800_000);
  assert.equal(retried?.output, null);
  assert.equal(storedOutputs(db), 0, 'the first output is gone with the retry');
  await jobs.take('endpoint-1', 'worker-2', 1, 6_000, 60_000);
  await jobs.complete('large', ['IN_PROGRESS'], done('{"second":true}', 7_000), 'endpoint-1', { workerId: 'worker-2', late: false });
  assert.equal((await jobs.getState('large'))?.output, '{"second":true}');
  db.close();
});

test('a job deleted by expiry takes its kept output along', async () => {
  const { db, jobs } = openJobs();
  await jobs.insert(aJob('expiring', null, 10_000));
  await jobs.take('endpoint-1', 'worker-1', 1, 2_000, 60_000);
  await jobs.complete('expiring', ['IN_PROGRESS'], done(MB_OUTPUT), 'endpoint-1', { workerId: 'worker-1', late: false });
  assert.equal(storedOutputs(db), 1);
  assert.equal((await jobs.deleteExpired(10_000, 100)).length, 1);
  assert.equal(storedOutputs(db), 0);
  db.close();
});

test('a large output stored in its row, as before migration 023, still reads whole', async () => {
  const { db, jobs, history } = openJobs();
  await finish(jobs, { older: '{"ok":true}' });
  db.prepare('UPDATE jobs SET output = ? WHERE id = ?').run(MB_OUTPUT, 'older');
  assert.equal((await jobs.getState('older'))?.output, MB_OUTPUT);
  assert.equal((await history.list('endpoint-1', { statuses: ['COMPLETED'], limit: 10 })).jobs[0]?.output, MB_OUTPUT);
  db.close();
});

test('a large error comes back whole from every read that shows it, beside its output, and a small one stays in its row', async () => {
  const opened = openJobs();
  await fail(opened.jobs, { traceback: [MB_ERROR, MB_OUTPUT], short: ['CUDA out of memory'] });
  assert.deepEqual([rowError(opened.db, 'traceback'), rowOutput(opened.db, 'traceback')], ['', ''], 'neither is in its row');
  assert.equal(rowError(opened.db, 'short'), 'CUDA out of memory');
  assert.deepEqual([storedErrors(opened.db), storedOutputs(opened.db)], [1, 1]);
  assert.deepEqual(
    await everyRead(opened, ['traceback', 'short']),
    everywhere({ traceback: [MB_OUTPUT, MB_ERROR], short: [null, 'CUDA out of memory'] }),
  );
  opened.db.close();
});

test('claiming and delivering the webhook of a job failed with a 1 MB error do not write the error again', async () => {
  const opened = openJobs();
  await fail(opened.jobs, { traceback: [MB_ERROR] });
  assert.equal((await deliverWebhook(opened, 'traceback'))?.error, MB_ERROR);
  opened.db.close();
});

test('a retried job drops its kept error, and its next result is the one read', async () => {
  const { db, jobs } = openJobs();
  await fail(jobs, { traceback: [MB_ERROR] });
  const retried = await jobs.requeue('traceback', ['FAILED'], 800_000);
  assert.deepEqual([retried?.status, retried?.error], ['IN_QUEUE', null]);
  assert.equal(storedErrors(db), 0, 'the first error is gone with the retry');
  await jobs.take('endpoint-1', 'worker-2', 1, 6_000, 60_000);
  await jobs.complete('traceback', ['IN_PROGRESS'], done('{"second":true}', 7_000), 'endpoint-1', { workerId: 'worker-2', late: false });
  const state = await jobs.getState('traceback');
  assert.deepEqual([state?.status, state?.error, state?.output], ['COMPLETED', null, '{"second":true}']);
  db.close();
});

test('an error stored in its row before migration 024, large or empty, still reads as it was', async () => {
  const { db, jobs } = openJobs();
  await fail(jobs, { older: ['short'], empty: ['short'] });
  db.prepare('UPDATE jobs SET error = ? WHERE id = ?').run(MB_ERROR, 'older');
  db.prepare("UPDATE jobs SET error = '' WHERE id = ?").run('empty');
  assert.equal((await jobs.getState('older'))?.error, MB_ERROR);
  assert.equal((await jobs.getState('empty'))?.error, '');
  db.close();
});
