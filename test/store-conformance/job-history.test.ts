// Reading an endpoint's jobs back: newest first, filtered and paged without repeats, other
// endpoints' jobs never mixed in; stream chunks read without moving the clients' position;
// a window's job times.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import { aJob, aQueue, aStreamWriter, NOW } from './records.js';

const suite = useTestStore();

test(`[${TEST_STORE}] jobs list newest first, by status, in pages that follow one another`, async () => {
  const { jobs, jobHistory } = suite.store;
  const queue = aQueue();
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const job = aJob(queue);
    await jobs.insert(job);
    ids.push(job.id);
  }
  await jobs.insert(aJob(aQueue()));
  await jobs.complete(ids[1]!, ['IN_QUEUE'], { status: 'CANCELLED', output: null, error: null, completedAt: NOW + 100 });

  const all = await jobHistory.list(queue, { statuses: [], limit: 10 });
  assert.deepEqual(
    all.jobs.map((j) => j.id),
    [...ids].reverse(),
  );
  assert.equal(all.next, null);

  const first = await jobHistory.list(queue, { statuses: [], limit: 2 });
  const second = await jobHistory.list(queue, { statuses: [], limit: 2, before: first.next! });
  const third = await jobHistory.list(queue, { statuses: [], limit: 2, before: second.next! });
  assert.deepEqual(
    [...first.jobs, ...second.jobs, ...third.jobs].map((j) => j.id),
    [...ids].reverse(),
  );
  assert.equal(third.next, null);

  const cancelled = await jobHistory.list(queue, { statuses: ['CANCELLED', 'FAILED'], limit: 10 });
  assert.deepEqual(
    cancelled.jobs.map((j) => [j.id, j.status]),
    [[ids[1], 'CANCELLED']],
  );
});

test(`[${TEST_STORE}] every stream chunk is read back in order, and clients still get theirs`, async () => {
  const { jobs, jobHistory } = suite.store;
  const job = aJob(aQueue());
  await jobs.insert(job);
  await jobs.appendStream(job.id, ['{"i":0}', '{"i":1}'], aStreamWriter(job.endpointId));
  assert.deepEqual((await jobs.readStream(job.id)).chunks, ['{"i":0}', '{"i":1}']);
  await jobs.appendStream(job.id, ['{"i":2}'], aStreamWriter(job.endpointId));
  assert.deepEqual(await jobHistory.chunks(job.id, 10), ['{"i":0}', '{"i":1}', '{"i":2}']);
  assert.deepEqual(await jobHistory.chunks(job.id, 2), ['{"i":0}', '{"i":1}']);
  assert.deepEqual((await jobs.readStream(job.id)).chunks, ['{"i":2}'], "reading the history does not move the client's position");
});

test(`[${TEST_STORE}] a window holds the jobs submitted or finished in it, and those not finished`, async () => {
  const { jobs, jobHistory } = suite.store;
  const queue = aQueue();
  const old = aJob(queue, { submittedAt: NOW - 10_000_000 });
  const oldQueued = aJob(queue, { submittedAt: NOW - 9_000_000 });
  const recent = aJob(queue, { submittedAt: NOW - 1000 });
  for (const job of [old, oldQueued, recent]) await jobs.insert(job);
  await jobs.complete(old.id, ['IN_QUEUE'], { status: 'CANCELLED', output: null, error: null, completedAt: NOW - 9_500_000 });
  const window = await jobHistory.window(queue, NOW - 60_000);
  assert.deepEqual(window.map((j) => [j.submittedAt, j.status]).sort(), [
    [NOW - 9_000_000, 'IN_QUEUE'],
    [NOW - 1000, 'IN_QUEUE'],
  ]);
});
