// Purge: the queued jobs of an endpoint go at once and their rows are deleted later, in batches.
// In between, what a client or worker can see must already be the queue without them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import { aJob, anAccount, anEndpoint, aQueue, aRelease, NOW } from './records.js';
import type { JobStore } from '../../src/store/job-store.js';

const suite = useTestStore();

async function queued(jobs: JobStore, queue: string, n: number, extra: { lowPriority?: boolean } = {}): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const job = aJob(queue, extra);
    ids.push(job.id);
    await jobs.insert(job);
  }
  return ids;
}

async function takeAll(jobs: JobStore, queue: string): Promise<string[]> {
  return (await jobs.take(queue, 'w-taker', 64, NOW, NOW + 1000)).map((job) => job.id);
}

async function drain(jobs: JobStore): Promise<void> {
  while ((await jobs.deletePurged(3)) > 0);
}

test(`[${TEST_STORE}] purged jobs are never taken, shown or counted; jobs submitted after the purge are`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  const before = [...(await queued(jobs, queue, 4)), ...(await queued(jobs, queue, 2, { lowPriority: true }))];
  assert.equal(await jobs.purgeQueued(queue), 6);
  const after = await queued(jobs, queue, 3);
  // Nothing deleted yet: the rows are still there, hidden.
  for (const id of before) assert.equal(await jobs.get(id), undefined, 'a purged job reads as gone');
  assert.equal((await jobs.counts(queue)).inQueue, 3);
  const stats = await jobs.queueStats(queue);
  assert.deepEqual([stats.queued, stats.queuedLowPriority], [3, 0]);
  assert.equal(await jobs.oldestQueuedAt(queue), (await jobs.get(after[0]!))!.submittedAt);
  assert.deepEqual(await takeAll(jobs, queue), after, 'only what came after the purge, in order');
  assert.deepEqual(await takeAll(jobs, queue), []);
});

test(`[${TEST_STORE}] the rows go in batches behind the purge, and the counts stay right throughout`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  const neighbour = aQueue();
  await queued(jobs, queue, 7);
  const [kept] = await queued(jobs, neighbour, 1);
  assert.equal(await jobs.purgeQueued(queue), 7);
  const fresh = await queued(jobs, queue, 2);
  let deleted = 0;
  for (;;) {
    const n = await jobs.deletePurged(3);
    assert.ok(n <= 3, 'a batch stays within its limit');
    if (n === 0) break;
    deleted += n;
    const counts = await jobs.counts(queue);
    assert.deepEqual([counts.inQueue, counts.inProgress, counts.completed], [2, 0, 0], 'counts do not move while rows go');
  }
  assert.ok(deleted >= 7, 'every purged row was deleted');
  assert.equal((await jobs.get(kept!))?.status, 'IN_QUEUE', "another endpoint's queue is untouched");
  for (const id of fresh) assert.equal((await jobs.get(id))?.status, 'IN_QUEUE');
  assert.equal(await jobs.purgeQueued(queue), 2, 'a second purge takes what came after the first');
  assert.equal(await jobs.purgeQueued(queue), 0);
  await drain(jobs);
});

test(`[${TEST_STORE}] jobs running at the purge stay, and come back to the queue after it if their worker is lost`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  const [lapsing, released, retried] = await queued(jobs, queue, 3);
  await jobs.take(queue, 'w-lapse', 1, NOW, NOW + 100);
  await jobs.take(queue, 'w-gone', 1, NOW, NOW + 100_000);
  await jobs.take(queue, 'w-fail', 1, NOW, NOW + 100_000);
  await jobs.complete(retried!, ['IN_PROGRESS'], { status: 'FAILED', output: null, error: 'boom', completedAt: NOW + 1 });
  await queued(jobs, queue, 2);
  assert.equal(await jobs.purgeQueued(queue), 2, 'only the waiting jobs');
  assert.equal((await jobs.get(lapsing!))?.status, 'IN_PROGRESS');

  const { requeued } = await jobs.releaseLapsedLeases(NOW + 200, 5, 100);
  assert.deepEqual(
    requeued.map((job) => job.id),
    [lapsing],
  );
  await jobs.releaseWorker('w-gone');
  await jobs.requeue(retried!, ['FAILED'], NOW + 99_000);
  await drain(jobs);
  assert.equal((await jobs.counts(queue)).inQueue, 3);
  assert.deepEqual((await takeAll(jobs, queue)).sort(), [lapsing, released, retried].sort(), 'all three are delivered again');
});

test(`[${TEST_STORE}] deleting an endpoint clears its purges: a new queue of that id starts empty and works`, async () => {
  const jobs = suite.store.jobs;
  const owner = anAccount();
  await suite.store.ensureAccount(owner);
  const endpoint = anEndpoint(owner.id);
  await suite.store.insertEndpoint(endpoint, aRelease(endpoint.id, 1));
  const queue = endpoint.id;
  const [purged] = await queued(jobs, queue, 1);
  assert.equal(await jobs.purgeQueued(queue), 1);
  assert.equal(await jobs.get(purged!), undefined);
  assert.equal(await suite.store.deleteEndpoint(owner.id, endpoint.id), true);
  assert.equal(await jobs.deletePurged(10), 0, 'nothing left behind');
  await suite.store.insertEndpoint(endpoint, aRelease(endpoint.id, 1));
  const [later] = await queued(jobs, queue, 1);
  assert.deepEqual(await takeAll(jobs, queue), [later]);
});
