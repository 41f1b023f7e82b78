// The sweeps that take jobs away from workers: expiry, execution timeout, lapsed leases, a gone
// worker. Each reports what it changed, so the workers can be told to stop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import { aJob, aQueue, aStreamWriter, NOW } from './records.js';
import type { DisplacedJob } from '../../src/store/job-store.js';

const suite = useTestStore();

function byId(jobs: DisplacedJob[]): DisplacedJob[] {
  return [...jobs].sort((a, b) => a.id.localeCompare(b.id));
}

test(`[${TEST_STORE}] expired jobs are deleted with their streams, whatever their status, up to the limit`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  const running = aJob(queue, { expiresAt: NOW + 10 });
  const queued = aJob(queue, { expiresAt: NOW + 10 });
  const alive = aJob(queue, { expiresAt: NOW + 11 });
  await jobs.insert(running);
  await jobs.take(queue, 'w1', 1, NOW, NOW + 1000);
  for (const job of [queued, alive]) await jobs.insert(job);
  await jobs.appendStream(running.id, ['chunk'], aStreamWriter(running.endpointId));

  const first = await jobs.deleteExpired(NOW + 10, 1);
  const second = await jobs.deleteExpired(NOW + 10, 100);
  assert.deepEqual(
    byId([...first, ...second]),
    byId([
      { id: running.id, endpointId: queue, workerId: 'w1', status: 'IN_PROGRESS' },
      { id: queued.id, endpointId: queue, workerId: null, status: 'IN_QUEUE' },
    ]),
  );
  assert.equal(first.length, 1, 'the limit bounds one sweep');
  assert.equal(await jobs.get(running.id), undefined);
  assert.deepEqual((await jobs.readStream(running.id)).chunks, []);
  assert.ok(await jobs.get(alive.id));
  assert.deepEqual(await jobs.deleteExpired(NOW + 10, 100), []);
});

test(`[${TEST_STORE}] a job running past its execution timeout times out with a stated reason`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  const slow = aJob(queue, { executionTimeoutMs: 500, retentionMs: 1000 });
  const fast = aJob(queue, { executionTimeoutMs: 5000 });
  for (const job of [slow, fast]) await jobs.insert(job);
  await jobs.take(queue, 'w1', 2, NOW, NOW + 10_000);
  assert.deepEqual(await jobs.timeOutOverdue(NOW + 499, 100), []);
  assert.deepEqual(await jobs.timeOutOverdue(NOW + 500, 100), [{ id: slow.id, endpointId: queue, workerId: 'w1', status: 'TIMED_OUT' }]);
  const timedOut = await jobs.get(slow.id);
  assert.deepEqual(
    [timedOut?.status, timedOut?.completedAt, timedOut?.leaseExpiresAt, timedOut?.expiresAt, timedOut?.error],
    ['TIMED_OUT', NOW + 500, null, NOW + 1500, 'the job ran longer than its execution timeout of 500 ms'],
  );
  assert.equal((await jobs.get(fast.id))?.status, 'IN_PROGRESS');
});

test(`[${TEST_STORE}] a lapsed lease requeues the job, and fails it after the last allowed loss`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  const job = aJob(queue);
  const renewed = aJob(queue);
  for (const j of [job, renewed]) await jobs.insert(j);
  await jobs.take(queue, 'w1', 2, NOW, NOW + 100);
  await jobs.renewLeases(queue, 'w1', [renewed.id], NOW + 10_000);

  const first = await jobs.releaseLapsedLeases(NOW + 200, 2, 100);
  assert.deepEqual(first, { requeued: [{ id: job.id, endpointId: queue, workerId: null, status: 'IN_QUEUE' }], failed: [] });
  const requeued = await jobs.get(job.id);
  assert.deepEqual([requeued?.status, requeued?.workerId, requeued?.retries, requeued?.leaseLosses], ['IN_QUEUE', null, 1, 1]);

  await jobs.take(queue, 'w2', 1, NOW + 300, NOW + 400);
  const second = await jobs.releaseLapsedLeases(NOW + 500, 2, 100);
  assert.deepEqual(second, { requeued: [], failed: [{ id: job.id, endpointId: queue, workerId: 'w2', status: 'FAILED' }] });
  const failed = await jobs.get(job.id);
  assert.deepEqual([failed?.status, failed?.completedAt, failed?.leaseLosses], ['FAILED', NOW + 500, 2]);
  assert.equal(failed?.error, 'the job was lost by its workers too many times (their leases lapsed without a result)');
  assert.equal((await jobs.get(renewed.id))?.status, 'IN_PROGRESS', 'a renewed lease is kept');
});

test(`[${TEST_STORE}] a gone worker's jobs all go back to the queue at once, and no one else's`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  const batch = [aJob(queue), aJob(queue), aJob(queue)];
  for (const job of batch) await jobs.insert(job);
  await jobs.take(queue, 'w-gone', 2, NOW, NOW + 1000);
  await jobs.take(queue, 'w-alive', 1, NOW, NOW + 1000);
  const { requeued: released, failed } = await jobs.releaseWorker('w-gone');
  assert.deepEqual(failed, []);
  assert.deepEqual(
    byId(released),
    byId(batch.slice(0, 2).map((job) => ({ id: job.id, endpointId: queue, workerId: null, status: 'IN_QUEUE' as const }))),
  );
  const again = await jobs.get(batch[0]!.id);
  assert.deepEqual([again?.status, again?.retries, again?.leaseLosses, again?.startedAt], ['IN_QUEUE', 1, 0, null]);
  assert.equal((await jobs.get(batch[2]!.id))?.workerId, 'w-alive');
  assert.deepEqual(await jobs.releaseWorker('w-gone'), { requeued: [], failed: [] });
});

test(`[${TEST_STORE}] a crashed worker's jobs count the loss, and one lost as often as leases may lapse fails`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  const job = aJob(queue);
  await jobs.insert(job);
  const lost = { now: NOW + 500, maxLosses: 3 };
  for (const [round, worker] of ['w-crash-1', 'w-crash-2'].entries()) {
    await jobs.take(queue, worker, 1, NOW, NOW + 1000);
    const { requeued, failed } = await jobs.releaseWorker(worker, lost);
    assert.deepEqual([requeued.length, failed.length], [1, 0], `crash ${round + 1} returns the job`);
    const back = await jobs.get(job.id);
    assert.deepEqual([back?.status, back?.retries, back?.leaseLosses], ['IN_QUEUE', round + 1, round + 1]);
  }
  await jobs.take(queue, 'w-crash-3', 1, NOW, NOW + 1000);
  const { requeued, failed } = await jobs.releaseWorker('w-crash-3', lost);
  assert.deepEqual(requeued, []);
  assert.deepEqual(byId(failed), [{ id: job.id, endpointId: queue, workerId: null, status: 'FAILED' }]);
  const ended = await jobs.get(job.id);
  assert.deepEqual([ended?.status, ended?.completedAt, ended?.leaseLosses], ['FAILED', NOW + 500, 3]);
  assert.match(ended?.error ?? '', /lost by its workers too many times \(the last one stopped without sending a result\)/);
});

test(`[${TEST_STORE}] jobs handed back go to the queue as they were, only while the same worker holds them`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  const [first, second] = [aJob(queue), aJob(queue)];
  for (const job of [first, second]) await jobs.insert(job);
  const taken = await jobs.take(queue, 'w-left', 2, NOW, NOW + 1000);
  await jobs.complete(second.id, ['IN_PROGRESS'], { status: 'COMPLETED', output: '1', error: null, completedAt: NOW + 1 });
  const back = await jobs.handBack(
    'w-other',
    taken.map((job) => job.id),
  );
  assert.deepEqual(back, [], "another worker's hand-back changes nothing");
  const handed = await jobs.handBack(
    'w-left',
    taken.map((job) => job.id),
  );
  assert.deepEqual(handed, [{ id: first.id, endpointId: queue, workerId: null, status: 'IN_QUEUE' }], 'a finished job stays finished');
  const again = await jobs.get(first.id);
  assert.deepEqual([again?.status, again?.retries, again?.workerId, again?.startedAt], ['IN_QUEUE', 0, null, null]);
  const retaken = await jobs.take(queue, 'w2', 2, NOW + 2, NOW + 1000);
  assert.deepEqual(
    retaken.map((job) => job.id),
    [first.id],
    'it is taken again like any queued job',
  );
});

test(`[${TEST_STORE}] a lease ends by its job's execution deadline, however it is set`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  const handed = aJob(queue, { executionTimeoutMs: 500, handedTo: { workerId: 'w1', startedAt: NOW, leaseUntil: NOW + 10_000 } });
  const taken = aJob(queue, { executionTimeoutMs: 500 });
  const long = aJob(queue, { executionTimeoutMs: 5000 });
  await jobs.insert(handed);
  for (const job of [taken, long]) await jobs.insert(job);
  await jobs.take(queue, 'w1', 2, NOW, NOW + 10_000);
  const leaseOf = async (id: string) => (await jobs.get(id))?.leaseExpiresAt;
  assert.deepEqual([await leaseOf(handed.id), await leaseOf(taken.id), await leaseOf(long.id)], [NOW + 500, NOW + 500, NOW + 5000]);

  await jobs.renewLeases(queue, 'w1', [taken.id, long.id], NOW + 3000);
  assert.deepEqual([await leaseOf(taken.id), await leaseOf(long.id)], [NOW + 500, NOW + 3000], 'a renewal inside the deadline is kept');
  assert.equal(await jobs.recordProgress(long.id, '"half"', { endpointId: queue, workerId: 'w1', leaseUntil: NOW + 20_000 }), true);
  assert.equal(await leaseOf(long.id), NOW + 5000);
  await jobs.renewLeases(queue, 'w1', [long.id], NOW + 4000);
  await jobs.appendStream(long.id, ['chunk'], { endpointId: queue, workerId: 'w1', leaseUntil: NOW + 30_000 });
  assert.equal(await leaseOf(long.id), NOW + 5000);
});

test(`[${TEST_STORE}] the sweeps find ended leases on every endpoint; a lease that ended with the deadline is the timeout's`, async () => {
  const jobs = suite.store.jobs;
  const queues = [aQueue(), aQueue(), aQueue()];
  const lapsed: string[] = [];
  const overdue: string[] = [];
  for (const queue of queues) {
    const [gone, slow, alive] = [aJob(queue), aJob(queue, { executionTimeoutMs: 500 }), aJob(queue)];
    for (const job of [gone, slow, alive]) await jobs.insert(job);
    await jobs.take(queue, `w-${queue}`, 3, NOW, NOW + 100);
    await jobs.renewLeases(queue, `w-${queue}`, [alive.id], NOW + 10_000);
    lapsed.push(gone.id);
    overdue.push(slow.id);
  }
  // Past both ends: the lapse sweep leaves the overdue jobs to the timeout, whichever runs first.
  // The file's earlier tests left jobs of their own: only this test's endpoints are compared.
  const ours = (displaced: DisplacedJob[]) => displaced.filter((job) => queues.includes(job.endpointId));
  const { requeued, failed } = await jobs.releaseLapsedLeases(NOW + 600, 3, 100);
  assert.deepEqual(
    ours(requeued)
      .map((job) => job.id)
      .sort(),
    [...lapsed].sort(),
  );
  assert.deepEqual(ours(failed), []);
  const timedOut = ours(await jobs.timeOutOverdue(NOW + 600, 100));
  assert.deepEqual(timedOut.map((job) => job.id).sort(), [...overdue].sort());
  assert.ok(timedOut.every((job) => job.status === 'TIMED_OUT'));
  const after = await jobs.releaseLapsedLeases(NOW + 600, 3, 100);
  assert.deepEqual([ours(after.requeued), ours(after.failed)], [[], []], 'the renewed leases are kept');
});
