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

test(`[${TEST_STORE}] a window holds the jobs submitted or finished in it and those not finished, each with its status and times as stored`, async () => {
  const { jobs, jobHistory } = suite.store;
  const queue = aQueue();
  const old = aJob(queue, { submittedAt: NOW - 10_000_000 });
  const oldQueued = aJob(queue, { submittedAt: NOW - 9_000_000 });
  const finished = aJob(queue, { submittedAt: NOW - 5000 });
  const running = aJob(queue, { submittedAt: NOW - 4000 });
  for (const job of [old, oldQueued, finished, running]) await jobs.insert(job);
  await jobs.complete(old.id, ['IN_QUEUE'], { status: 'CANCELLED', output: null, error: null, completedAt: NOW - 9_500_000 });
  // Taken in queue order: oldQueued first, so it goes back to the queue before the others finish.
  await jobs.take(queue, 'worker-1', 3, NOW - 2000, NOW + 60_000);
  await jobs.handBack('worker-1', [oldQueued.id]);
  await jobs.complete(finished.id, ['IN_PROGRESS'], { status: 'FAILED', output: null, error: 'boom', completedAt: NOW - 1000 });
  // Newest first; the job cancelled long before the window is not in it.
  assert.deepEqual(await jobHistory.window(queue, NOW - 60_000), [
    { status: 'IN_PROGRESS', submittedAt: NOW - 4000, startedAt: NOW - 2000, completedAt: null },
    { status: 'FAILED', submittedAt: NOW - 5000, startedAt: NOW - 2000, completedAt: NOW - 1000 },
    { status: 'IN_QUEUE', submittedAt: NOW - 9_000_000, startedAt: null, completedAt: null },
  ]);
});

test(`[${TEST_STORE}] a list of some statuses holds every job of them, newest first across priorities and statuses, page by page`, async () => {
  const { jobs, jobHistory } = suite.store;
  const queue = aQueue();
  // Submitted in this order: normal, low, normal, low, normal, low; the first two are then taken
  // and the first of them completed, so each status and both priorities interleave by age.
  const submitted: string[] = [];
  for (let i = 0; i < 6; i++) {
    const job = aJob(queue, { lowPriority: i % 2 === 1 });
    await jobs.insert(job);
    submitted.push(job.id);
  }
  const taken = await jobs.take(queue, 'worker-1', 1, NOW, NOW + 60_000);
  assert.deepEqual(
    taken.map((j) => j.id),
    [submitted[0]],
  );
  await jobs.complete(submitted[0]!, ['IN_PROGRESS'], { status: 'COMPLETED', output: '{}', error: null, completedAt: NOW + 10 });
  await jobs.take(queue, 'worker-1', 1, NOW, NOW + 60_000); // the next normal one: submitted[2]
  const newestFirst = [...submitted].reverse();

  const pages: string[][] = [];
  let before: number | undefined;
  do {
    const page = await jobHistory.list(queue, { statuses: ['IN_QUEUE', 'IN_PROGRESS', 'COMPLETED'], limit: 2, before });
    pages.push(page.jobs.map((j) => j.id));
    before = page.next ?? undefined;
  } while (before !== undefined);
  assert.deepEqual(pages, [newestFirst.slice(0, 2), newestFirst.slice(2, 4), newestFirst.slice(4, 6)]);

  const queued = await jobHistory.list(queue, { statuses: ['IN_QUEUE'], limit: 10 });
  assert.deepEqual(
    queued.jobs.map((j) => j.id),
    [submitted[5], submitted[4], submitted[3], submitted[1]],
  );
  const running = await jobHistory.list(queue, { statuses: ['IN_PROGRESS'], limit: 10 });
  assert.deepEqual(
    running.jobs.map((j) => [j.id, j.status]),
    [[submitted[2], 'IN_PROGRESS']],
  );
  assert.deepEqual((await jobHistory.list(queue, { statuses: ['FAILED', 'TIMED_OUT'], limit: 10 })).jobs, []);
});

test(`[${TEST_STORE}] jobs a purge hid are neither listed nor in a window`, async () => {
  const { jobs, jobHistory } = suite.store;
  const queue = aQueue();
  const purged = aJob(queue);
  await jobs.insert(purged);
  assert.equal(await jobs.purgeQueued(queue), 1);
  const after = aJob(queue);
  await jobs.insert(after);

  for (const statuses of [[], ['IN_QUEUE']] as const) {
    const page = await jobHistory.list(queue, { statuses, limit: 10 });
    assert.deepEqual(
      page.jobs.map((j) => j.id),
      [after.id],
      `statuses ${JSON.stringify(statuses)}`,
    );
  }
  const window = await jobHistory.window(queue, NOW - 60_000);
  assert.deepEqual(
    window.map((j) => j.submittedAt),
    [after.submittedAt],
  );
});
