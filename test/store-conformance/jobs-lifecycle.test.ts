// A job from submit to a terminal status and back to the queue, and the counts that summarise a queue.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import { aJob, aQueue, aStreamWriter, NOW } from './records.js';
import type { Completion } from '../../src/store/job-store.js';

const suite = useTestStore();

function done(at: number, status: Completion['status'] = 'COMPLETED'): Completion {
  return { status, output: status === 'COMPLETED' ? '"ok"' : null, error: status === 'COMPLETED' ? null : 'boom', completedAt: at };
}

test(`[${TEST_STORE}] a submitted job reads back as submitted, queued and untouched`, async () => {
  const job = aJob(aQueue(), { webhook: 'https://example.test/hook', s3Config: '{"bucket":"b"}', lowPriority: true });
  await suite.store.jobs.insert(job);
  assert.deepEqual(await suite.store.jobs.get(job.id), {
    ...job,
    status: 'IN_QUEUE',
    startedAt: null,
    completedAt: null,
    output: null,
    error: null,
    workerId: null,
    leaseExpiresAt: null,
    retries: 0,
    leaseLosses: 0,
  });
  assert.equal(await suite.store.jobs.get('job-missing'), undefined);
});

test(`[${TEST_STORE}] a job's state is the job without its input and S3 settings, through every status`, async () => {
  const { jobs } = suite.store;
  const endpointId = aQueue();
  // An input of a megabyte: a status read or a completion that carried it would copy it each time.
  const job = aJob(endpointId, {
    input: JSON.stringify('x'.repeat(1 << 20)),
    s3Config: '{"bucket":"b"}',
    webhook: 'https://example.test/h',
  });
  await jobs.insert(job);
  const withoutWorkerFields = ({ input: _input, s3Config: _s3, ...state }: NonNullable<Awaited<ReturnType<typeof jobs.get>>>) => state;
  const stateNow = async () => {
    const whole = await jobs.get(job.id);
    const state = await jobs.getState(job.id);
    assert.ok(whole && state);
    assert.deepEqual(state, withoutWorkerFields(whole));
    return state;
  };
  assert.equal((await stateNow()).status, 'IN_QUEUE');
  const [taken] = await jobs.take(endpointId, 'w1', 1, NOW + 10, NOW + 5000);
  assert.equal(taken?.input, job.input, 'a take hands the worker its input');
  assert.equal((await stateNow()).status, 'IN_PROGRESS');
  const completed = await jobs.complete(job.id, ['IN_PROGRESS'], done(NOW + 20));
  assert.ok(completed);
  assert.ok(!('input' in completed) && !('s3Config' in completed), 'a completion answers the state only');
  assert.deepEqual(completed, await stateNow());
  assert.equal(await jobs.getState('job-missing'), undefined);
});

test(`[${TEST_STORE}] a job id is unique`, async () => {
  const job = aJob(aQueue());
  await suite.store.jobs.insert(job);
  await assert.rejects(suite.store.jobs.insert({ ...job, input: '"again"' }), {
    name: 'StoreConflictError',
    message: `job ${job.id} already exists`,
  });
  assert.equal((await suite.store.jobs.get(job.id))?.input, job.input);
});

test(`[${TEST_STORE}] a job completes once; a repeated or late completion changes nothing`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  const job = aJob(queue);
  await jobs.insert(job);
  await jobs.take(queue, 'w1', 1, NOW, NOW + 1000);
  const completed = await jobs.complete(job.id, ['IN_PROGRESS'], done(NOW + 10));
  assert.deepEqual(
    [completed?.status, completed?.output, completed?.completedAt, completed?.leaseExpiresAt, completed?.workerId],
    ['COMPLETED', '"ok"', NOW + 10, null, 'w1'],
  );
  assert.equal(completed?.expiresAt, NOW + 10 + job.retentionMs, 'the result is kept for the retention period');
  assert.equal(await jobs.complete(job.id, ['IN_QUEUE', 'IN_PROGRESS'], done(NOW + 20, 'FAILED')), undefined);
  assert.equal((await jobs.get(job.id))?.output, '"ok"');
  assert.equal(await jobs.complete('job-missing', ['IN_PROGRESS'], done(NOW)), undefined);
});

test(`[${TEST_STORE}] a completion naming an endpoint moves only that endpoint's job, and never a purged one`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  const job = aJob(queue);
  await jobs.insert(job);
  await jobs.take(queue, 'w1', 1, NOW, NOW + 1000);
  assert.equal(await jobs.complete(job.id, ['IN_PROGRESS'], done(NOW + 10), aQueue()), undefined, "another endpoint's job");
  assert.equal((await jobs.get(job.id))?.status, 'IN_PROGRESS');
  const completed = await jobs.complete(job.id, ['IN_PROGRESS'], done(NOW + 10), queue);
  assert.deepEqual([completed?.status, completed?.workerId], ['COMPLETED', 'w1'], 'the row answers which worker held it');

  const purged = aJob(queue);
  await jobs.insert(purged);
  await jobs.purgeQueued(queue);
  assert.equal(await jobs.complete(purged.id, ['IN_QUEUE'], done(NOW + 10, 'CANCELLED')), undefined, 'a purged job is not found');
});

test(`[${TEST_STORE}] a completion naming a worker moves the job only while that worker holds it`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  const [held, queued] = [aJob(queue), aJob(queue)];
  await jobs.insert(held);
  await jobs.take(queue, 'w1', 1, NOW, NOW + 1000);
  await jobs.insert(queued);
  assert.equal(
    await jobs.complete(held.id, ['IN_PROGRESS'], done(NOW + 10), queue, { workerId: 'w2', late: false }),
    undefined,
    "another worker's job",
  );
  assert.equal(
    await jobs.complete(queued.id, ['IN_QUEUE'], done(NOW + 10), queue, { workerId: 'w1', late: false }),
    undefined,
    'a job nobody holds',
  );
  assert.deepEqual(
    [(await jobs.get(held.id))?.status, (await jobs.get(queued.id))?.status],
    ['IN_PROGRESS', 'IN_QUEUE'],
    'neither job moved',
  );
  const completed = await jobs.complete(held.id, ['IN_PROGRESS'], done(NOW + 10), queue, { workerId: 'w1', late: false });
  assert.deepEqual([completed?.status, completed?.workerId], ['COMPLETED', 'w1']);
});

test(`[${TEST_STORE}] a late result is taken after a lost lease, never for an attempt before a retry or a job the worker never took`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  const [lapsed, retried, never] = [aJob(queue), aJob(queue), aJob(queue)];
  const late = (workerId: string) => ({ workerId, late: true });
  await jobs.insert(lapsed);
  await jobs.take(queue, 'w1', 1, NOW, NOW + 1000);
  assert.equal((await jobs.releaseLapsedLeases(NOW + 2000, 3, 10)).requeued.length, 1);
  const taken = await jobs.complete(lapsed.id, ['IN_QUEUE', 'IN_PROGRESS'], done(NOW + 2100), queue, late('w1'));
  assert.equal(taken?.status, 'COMPLETED', "the lost lease's late result ends the job");

  await jobs.insert(retried);
  await jobs.take(queue, 'w2', 1, NOW, NOW + 60_000);
  await jobs.complete(retried.id, ['IN_PROGRESS'], { ...done(NOW + 10), status: 'FAILED' }, queue, late('w2'));
  const requeued = await jobs.requeue(retried.id, ['FAILED'], NOW + 500 + retried.ttlMs);
  assert.equal(requeued?.submittedAt, NOW + 500, "a retry starts the job's life, and its queue delay, again");
  assert.equal(
    await jobs.complete(retried.id, ['IN_QUEUE', 'IN_PROGRESS'], done(NOW + 20), queue, late('w2')),
    undefined,
    'a repeat of the attempt before the retry',
  );
  await jobs.insert(never);
  assert.equal(
    await jobs.complete(never.id, ['IN_QUEUE', 'IN_PROGRESS'], done(NOW + 20), queue, late('w9')),
    undefined,
    'a job w9 never took',
  );
  assert.deepEqual([(await jobs.get(retried.id))?.status, (await jobs.get(never.id))?.status], ['IN_QUEUE', 'IN_QUEUE']);
});

test(`[${TEST_STORE}] completion never extends a job's life past its expiry`, async () => {
  const job = aJob(aQueue(), { expiresAt: NOW + 100, retentionMs: 60_000 });
  await suite.store.jobs.insert(job);
  const cancelled = await suite.store.jobs.complete(job.id, ['IN_QUEUE'], done(NOW + 10, 'CANCELLED'));
  assert.deepEqual([cancelled?.status, cancelled?.expiresAt, cancelled?.error], ['CANCELLED', NOW + 100, 'boom']);
});

test(`[${TEST_STORE}] a retried job goes back to the queue as new, with its input and a retry counted`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  const job = aJob(queue);
  await jobs.insert(job);
  await jobs.take(queue, 'w1', 1, NOW, NOW + 1000);
  await jobs.appendStream(job.id, ['old chunk'], aStreamWriter(job.endpointId));
  await jobs.complete(job.id, ['IN_PROGRESS'], done(NOW + 10, 'FAILED'));
  assert.equal(await jobs.requeue(job.id, ['COMPLETED'], NOW + 99_000), undefined, 'only from the statuses given');
  const requeued = await jobs.requeue(job.id, ['FAILED', 'TIMED_OUT'], NOW + 99_000);
  const { input, s3Config, ...state } = job;
  const stateAfterRetry = {
    ...state,
    status: 'IN_QUEUE',
    startedAt: null,
    completedAt: null,
    output: null,
    error: null,
    workerId: null,
    leaseExpiresAt: null,
    retries: 1,
    leaseLosses: 0,
    expiresAt: NOW + 99_000,
    submittedAt: NOW + 99_000 - job.ttlMs,
  };
  assert.deepEqual(requeued, stateAfterRetry, 'the answer is the new state, without the input');
  assert.deepEqual(await jobs.get(job.id), { ...stateAfterRetry, input, s3Config }, 'the input is kept');
  assert.deepEqual((await jobs.readStream(job.id)).chunks, [], 'the old stream is gone');
  await jobs.appendStream(job.id, ['new chunk'], aStreamWriter(job.endpointId));
  assert.deepEqual((await jobs.readStream(job.id)).chunks, ['new chunk']);
  assert.deepEqual(
    (await jobs.take(queue, 'w2', 1, NOW + 20, NOW + 1000)).map((j) => j.id),
    [job.id],
  );
});

test(`[${TEST_STORE}] the expiry of a job can be moved`, async () => {
  const job = aJob(aQueue());
  await suite.store.jobs.insert(job);
  await suite.store.jobs.setExpiry(job.id, NOW + 42);
  assert.equal((await suite.store.jobs.get(job.id))?.expiresAt, NOW + 42);
  await suite.store.jobs.setExpiry('job-missing', NOW + 42);
});

test(`[${TEST_STORE}] purge drops queued jobs only, of its endpoint only`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  const neighbour = aJob(aQueue());
  await jobs.insert(neighbour);
  await jobs.insert(aJob(queue));
  await jobs.take(queue, 'w1', 1, NOW, NOW + 1000);
  for (let i = 0; i < 5; i++) await jobs.insert(aJob(queue, { lowPriority: i % 2 === 0 }));
  assert.equal(await jobs.purgeQueued(queue), 5);
  const counts = await jobs.counts(queue);
  assert.deepEqual([counts.inQueue, counts.inProgress], [0, 1]);
  assert.equal((await jobs.get(neighbour.id))?.status, 'IN_QUEUE');
  assert.equal(await jobs.purgeQueued(queue), 0);
});

test(`[${TEST_STORE}] counts give every status of the endpoint, and how many jobs were ever retried`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  assert.deepEqual(await jobs.counts(queue), { inQueue: 0, inProgress: 0, completed: 0, failed: 0, cancelled: 0, timedOut: 0, retried: 0 });
  const ids: string[] = [];
  for (let i = 0; i < 7; i++) {
    const job = aJob(queue);
    ids.push(job.id);
    await jobs.insert(job);
  }
  await jobs.take(queue, 'w1', 5, NOW, NOW + 1000);
  await jobs.complete(ids[0]!, ['IN_PROGRESS'], done(NOW + 1));
  await jobs.complete(ids[1]!, ['IN_PROGRESS'], done(NOW + 1, 'FAILED'));
  await jobs.complete(ids[2]!, ['IN_PROGRESS'], done(NOW + 1, 'TIMED_OUT'));
  await jobs.complete(ids[5]!, ['IN_QUEUE'], done(NOW + 1, 'CANCELLED'));
  await jobs.requeue(ids[1]!, ['FAILED'], NOW + 99_000);
  await jobs.insert(aJob(aQueue()));
  assert.deepEqual(await jobs.counts(queue), { inQueue: 2, inProgress: 2, completed: 1, failed: 0, cancelled: 1, timedOut: 1, retried: 1 });
});

test(`[${TEST_STORE}] queue stats split queued jobs by priority and name the oldest normal-priority submit`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  assert.deepEqual(await jobs.queueStats(queue), { queued: 0, queuedLowPriority: 0, inProgress: 0, oldestQueuedAt: null });
  assert.equal(await jobs.oldestQueuedAt(queue), null);
  const low = aJob(queue, { lowPriority: true });
  await jobs.insert(low);
  assert.equal(await jobs.oldestQueuedAt(queue), null, 'low-priority jobs do not count as waiting');
  const running = aJob(queue);
  const oldest = aJob(queue);
  const newer = aJob(queue);
  await jobs.insert(running);
  await jobs.take(queue, 'w1', 1, NOW, NOW + 1000);
  for (const job of [oldest, newer]) await jobs.insert(job);
  assert.deepEqual(await jobs.queueStats(queue), { queued: 2, queuedLowPriority: 1, inProgress: 1, oldestQueuedAt: oldest.submittedAt });
  assert.equal(await jobs.oldestQueuedAt(queue), oldest.submittedAt);
});
