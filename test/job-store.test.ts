// The job store's contract, run on whichever store the suite runs on (SQLite, or PostgreSQL
// with GANTRY_TEST_STORE=postgres): order, exclusivity of takes, conditional completion, streams,
// lease sweeps and stop requests.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTestStore, TEST_STORE, type TestStore } from './support/test-store.js';
import type { NewJob } from '../src/store/job-store.js';

const dataDir = mkdtempSync(join(tmpdir(), 'gantry-jobstore-'));
let t: TestStore;
let seq = 0;
const NOW = 1_800_000_000_000;

function newJob(endpointId: string, extra: Partial<NewJob> = {}): NewJob {
  seq++;
  return {
    id: `job-${seq}`, endpointId, accountId: 'acct', input: JSON.stringify({ n: seq }), webhook: null, s3Config: null,
    executionTimeoutMs: 60_000, lowPriority: false, retentionMs: 60_000, ttlMs: 3_600_000,
    submittedAt: NOW + seq, expiresAt: NOW + 3_600_000, ...extra,
  };
}

before(async () => {
  t = await openTestStore(dataDir);
});
after(async () => {
  await t.store.close();
  await t.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

test(`[${TEST_STORE}] takes hand out the oldest normal-priority jobs first and low-priority ones last`, async () => {
  const jobs = t.store.jobs;
  const low = newJob('ep-order', { lowPriority: true });
  const first = newJob('ep-order');
  const second = newJob('ep-order');
  for (const job of [low, first, second]) await jobs.insert(job);
  const taken = await jobs.take('ep-order', 'w1', 2, NOW, NOW + 1000);
  assert.deepEqual(taken.map((j) => j.id), [first.id, second.id]);
  assert.ok(taken.every((j) => j.status === 'IN_PROGRESS' && j.workerId === 'w1' && j.leaseExpiresAt === NOW + 1000));
  assert.deepEqual((await jobs.take('ep-order', 'w2', 5, NOW, NOW + 1000)).map((j) => j.id), [low.id]);
  assert.deepEqual(await jobs.take('ep-order', 'w2', 5, NOW, NOW + 1000), []);
});

test(`[${TEST_STORE}] concurrent takes never hand the same job to two workers`, async () => {
  const jobs = t.store.jobs;
  const ids = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const job = newJob('ep-race');
    ids.add(job.id);
    await jobs.insert(job);
  }
  const takers = Array.from({ length: 8 }, async (_, w) => {
    const mine: string[] = [];
    for (;;) {
      const batch = await jobs.take('ep-race', `w${w}`, 3, NOW, NOW + 1000);
      if (batch.length === 0) return mine;
      mine.push(...batch.map((j) => j.id));
    }
  });
  const handedOut = (await Promise.all(takers)).flat();
  assert.equal(handedOut.length, 200, 'every job handed out exactly once');
  assert.deepEqual(new Set(handedOut), ids);
});

test(`[${TEST_STORE}] a job completes once; a repeated or late completion changes nothing`, async () => {
  const jobs = t.store.jobs;
  const job = newJob('ep-done');
  await jobs.insert(job);
  await jobs.take('ep-done', 'w1', 1, NOW, NOW + 1000);
  const done = await jobs.complete(job.id, ['IN_PROGRESS'], { status: 'COMPLETED', output: '"ok"', error: null, completedAt: NOW + 10 });
  assert.equal(done?.status, 'COMPLETED');
  assert.equal(done?.expiresAt, NOW + 10 + job.retentionMs, 'the result is kept for the retention period');
  assert.equal(await jobs.complete(job.id, ['IN_QUEUE', 'IN_PROGRESS'], { status: 'FAILED', output: null, error: 'late', completedAt: NOW + 20 }), undefined);
  assert.equal((await jobs.get(job.id))?.output, '"ok"');
});

test(`[${TEST_STORE}] stream chunks are read in order, each once`, async () => {
  const jobs = t.store.jobs;
  const job = newJob('ep-stream');
  await jobs.insert(job);
  await jobs.appendStream(job.id, ['1', '2']);
  await jobs.appendStream(job.id, ['3']);
  assert.deepEqual(await jobs.readStream(job.id), ['1', '2', '3']);
  assert.deepEqual(await jobs.readStream(job.id), []);
  await jobs.appendStream(job.id, ['4']);
  assert.deepEqual(await jobs.readStream(job.id), ['4']);
});

test(`[${TEST_STORE}] a lapsed lease requeues the job, and fails it after the last allowed loss`, async () => {
  const jobs = t.store.jobs;
  const job = newJob('ep-lease');
  await jobs.insert(job);
  await jobs.take('ep-lease', 'w1', 1, NOW, NOW + 100);
  const first = await jobs.releaseLapsedLeases(NOW + 200, 2, 100);
  assert.deepEqual(first.requeued.map((j) => j.id), [job.id]);
  assert.equal((await jobs.get(job.id))?.status, 'IN_QUEUE');
  await jobs.take('ep-lease', 'w2', 1, NOW + 300, NOW + 400);
  const second = await jobs.releaseLapsedLeases(NOW + 500, 2, 100);
  assert.deepEqual(second.failed.map((j) => [j.id, j.workerId]), [[job.id, 'w2']]);
  const failed = await jobs.get(job.id);
  assert.equal(failed?.status, 'FAILED');
  assert.match(failed?.error ?? '', /lost by its workers/);
});

test(`[${TEST_STORE}] stop requests are handed out once, and forgotten when nobody collects them`, async () => {
  const jobs = t.store.jobs;
  await jobs.requestStop('w-stop', 'job-a', NOW);
  await jobs.requestStop('w-stop', 'job-a', NOW + 1);
  await jobs.requestStop('w-stop', 'job-b', NOW + 2);
  assert.deepEqual((await jobs.drainStops('w-stop')).sort(), ['job-a', 'job-b']);
  assert.deepEqual(await jobs.drainStops('w-stop'), []);
  await jobs.requestStop('w-gone', 'job-c', NOW);
  await jobs.forgetStops(NOW + 1);
  assert.deepEqual(await jobs.drainStops('w-gone'), []);
});

test(`[${TEST_STORE}] purge drops queued jobs only`, async () => {
  const jobs = t.store.jobs;
  const running = newJob('ep-purge');
  await jobs.insert(running);
  await jobs.take('ep-purge', 'w1', 1, NOW, NOW + 1000);
  for (let i = 0; i < 5; i++) await jobs.insert(newJob('ep-purge'));
  assert.equal(await jobs.purgeQueued('ep-purge'), 5);
  const counts = await jobs.counts('ep-purge');
  assert.deepEqual([counts.inQueue, counts.inProgress], [0, 1]);
});
