// The job counts the health answer shows, through every way a job changes status: each store must
// agree (SQLite keeps them as the jobs change, PostgreSQL counts the rows).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import { aJob, aQueue, NOW } from './records.js';
import type { JobCounts } from '../../src/store/job-store.js';

const suite = useTestStore();

const NONE: JobCounts = { inQueue: 0, inProgress: 0, completed: 0, failed: 0, cancelled: 0, timedOut: 0, retried: 0 };

test(`[${TEST_STORE}] counts follow a job through every way it changes: handoff, take, hand-back, sweeps, results, retry, purge, expiry`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  const counted = async (expected: Partial<JobCounts>, step: string) =>
    assert.deepEqual(await jobs.counts(queue), { ...NONE, ...expected }, step);
  const [a, b, c, d, e, f] = [aJob(queue), aJob(queue), aJob(queue, { executionTimeoutMs: 10 }), aJob(queue), aJob(queue), aJob(queue)];
  for (const job of [a, b, c, d, e, f]) await jobs.insert(job!);
  await jobs.insert(aJob(queue, { handedTo: { workerId: 'w2', startedAt: NOW, leaseUntil: NOW + 100_000 } }));
  await counted({ inQueue: 6, inProgress: 1 }, 'six queued, one handed to a waiting worker');

  const taken = await jobs.take(queue, 'w1', 4, NOW, NOW + 1000);
  assert.deepEqual(taken.map((job) => job.id).sort(), [a!.id, b!.id, c!.id, d!.id].sort());
  await counted({ inQueue: 2, inProgress: 5 }, 'four taken');
  await jobs.handBack('w1', [a!.id]);
  await counted({ inQueue: 3, inProgress: 4 }, 'one handed back');
  await jobs.complete(b!.id, ['IN_PROGRESS'], { status: 'COMPLETED', output: '1', error: null, completedAt: NOW + 1 });
  await counted({ inQueue: 3, inProgress: 3, completed: 1 }, 'one completed');
  assert.equal((await jobs.timeOutOverdue(NOW + 100, 10)).length, 1);
  await counted({ inQueue: 3, inProgress: 2, completed: 1, timedOut: 1 }, 'one timed out');
  assert.equal((await jobs.releaseLapsedLeases(NOW + 2000, 3, 10)).requeued.length, 1);
  await counted({ inQueue: 4, inProgress: 1, completed: 1, timedOut: 1, retried: 1 }, 'a lapsed lease back in the queue');
  assert.equal((await jobs.releaseWorker('w2')).requeued.length, 1);
  await counted({ inQueue: 5, completed: 1, timedOut: 1, retried: 2 }, "a gone worker's job back in the queue");
  await jobs.complete(e!.id, ['IN_QUEUE'], { status: 'CANCELLED', output: null, error: null, completedAt: NOW + 3000 });
  await counted({ inQueue: 4, completed: 1, timedOut: 1, cancelled: 1, retried: 2 }, 'a queued job cancelled');

  const [next] = await jobs.take(queue, 'w3', 1, NOW + 3000, NOW + 9000);
  await jobs.complete(next!.id, ['IN_PROGRESS'], { status: 'FAILED', output: null, error: 'boom', completedAt: NOW + 3001 });
  await counted({ inQueue: 3, completed: 1, timedOut: 1, cancelled: 1, failed: 1, retried: 2 }, 'one failed');
  await jobs.requeue(next!.id, ['FAILED'], NOW + 99_000);
  await counted({ inQueue: 4, completed: 1, timedOut: 1, cancelled: 1, retried: 3 }, 'the failed one retried');
  assert.equal(await jobs.purgeQueued(queue), 4);
  await counted({ completed: 1, timedOut: 1, cancelled: 1 }, 'the queue purged, the three retried jobs in it with it');

  await jobs.deleteExpired(NOW + 10 ** 10, 100);
  await counted({}, 'every job expired');
});

test(`[${TEST_STORE}] an endpoint's running jobs are its own: its counts, queue figures and list leave other endpoints' out`, async () => {
  const { jobs, jobHistory } = suite.store;
  const [mine, theirs] = [aQueue(), aQueue()];
  const [running, done] = [aJob(mine), aJob(mine)];
  for (const job of [running, done, aJob(theirs), aJob(theirs)]) await jobs.insert(job);
  await jobs.take(mine, 'w1', 2, NOW, NOW + 1000);
  await jobs.take(theirs, 'w2', 2, NOW, NOW + 1000);
  await jobs.complete(done.id, ['IN_PROGRESS'], { status: 'COMPLETED', output: '1', error: null, completedAt: NOW + 1 });
  const listed = async (endpointId: string) =>
    (await jobHistory.list(endpointId, { statuses: ['IN_PROGRESS', 'COMPLETED'], limit: 10 })).jobs.map((job) => `${job.id} ${job.status}`);

  assert.deepEqual(await jobs.counts(mine), { ...NONE, inProgress: 1, completed: 1 });
  assert.equal((await jobs.queueStats(mine)).inProgress, 1);
  assert.deepEqual(await listed(mine), [`${done.id} COMPLETED`, `${running.id} IN_PROGRESS`]);
  assert.equal((await jobs.counts(theirs)).inProgress, 2);
  assert.equal((await jobs.queueStats(theirs)).inProgress, 2);

  await jobs.complete(running.id, ['IN_PROGRESS'], { status: 'COMPLETED', output: '2', error: null, completedAt: NOW + 2 });
  assert.deepEqual(await jobs.counts(mine), { ...NONE, completed: 2 }, 'the running job moved on to the finished ones');
  assert.equal((await jobs.queueStats(mine)).inProgress, 0);
  assert.deepEqual(await listed(mine), [`${done.id} COMPLETED`, `${running.id} COMPLETED`]);
});
