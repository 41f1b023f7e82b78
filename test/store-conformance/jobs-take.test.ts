// Taking jobs: order, exclusivity among concurrent takers, and the leases takers then hold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import { aJob, aQueue, NOW } from './records.js';

const suite = useTestStore();

test(`[${TEST_STORE}] takes hand out the oldest normal-priority jobs first and low-priority ones last`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  const low = aJob(queue, { lowPriority: true });
  const first = aJob(queue);
  const second = aJob(queue);
  for (const job of [low, first, second]) await jobs.insert(job);
  const taken = await jobs.take(queue, 'w1', 2, NOW, NOW + 1000);
  assert.deepEqual(
    taken.map((j) => j.id),
    [first.id, second.id],
  );
  for (const job of taken) {
    assert.deepEqual([job.status, job.workerId, job.startedAt, job.leaseExpiresAt], ['IN_PROGRESS', 'w1', NOW, NOW + 1000]);
  }
  assert.deepEqual(
    (await jobs.take(queue, 'w2', 5, NOW, NOW + 1000)).map((j) => j.id),
    [low.id],
  );
  assert.deepEqual(await jobs.take(queue, 'w2', 5, NOW, NOW + 1000), []);
});

test(`[${TEST_STORE}] one take returns its batch in queue order`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  const inserted = [aJob(queue, { lowPriority: true }), aJob(queue), aJob(queue, { lowPriority: true }), aJob(queue)];
  for (const job of inserted) await jobs.insert(job);
  const taken = await jobs.take(queue, 'w1', 10, NOW, NOW + 1000);
  assert.deepEqual(
    taken.map((j) => j.id),
    [inserted[1]!.id, inserted[3]!.id, inserted[0]!.id, inserted[2]!.id],
  );
});

test(`[${TEST_STORE}] a take skips expired jobs and other endpoints' jobs`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  const expired = aJob(queue, { expiresAt: NOW });
  const elsewhere = aJob(aQueue());
  const live = aJob(queue);
  for (const job of [expired, elsewhere, live]) await jobs.insert(job);
  assert.deepEqual(
    (await jobs.take(queue, 'w1', 10, NOW, NOW + 1000)).map((j) => j.id),
    [live.id],
  );
  assert.equal((await jobs.get(expired.id))?.status, 'IN_QUEUE', 'left for the expiry sweep');
  assert.equal((await jobs.get(elsewhere.id))?.status, 'IN_QUEUE');
});

test(`[${TEST_STORE}] concurrent takes from several connections never hand the same job to two workers`, async () => {
  const queue = aQueue();
  const ids = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const job = aJob(queue);
    ids.add(job.id);
    await suite.store.jobs.insert(job);
  }
  const stores = [suite.store, await suite.another()];
  const takers = Array.from({ length: 8 }, async (_, w) => {
    const mine: string[] = [];
    for (;;) {
      const batch = await stores[w % stores.length]!.jobs.take(queue, `w${w}`, 3, NOW, NOW + 1000);
      if (batch.length === 0) return mine;
      mine.push(...batch.map((j) => j.id));
    }
  });
  const handedOut = (await Promise.all(takers)).flat();
  assert.equal(handedOut.length, 200, 'every job handed out exactly once');
  assert.deepEqual(new Set(handedOut), ids);
});

test(`[${TEST_STORE}] takes of several endpoints at once each get their own endpoint's jobs, in order`, async () => {
  const jobs = suite.store.jobs;
  const [a, b] = [aQueue(), aQueue()];
  const ofA = [aJob(a, { lowPriority: true }), aJob(a), aJob(a), aJob(a)];
  const ofB = [aJob(b), aJob(b)];
  for (const job of [...ofA, ...ofB]) await jobs.insert(job);
  // One turn: the same worker name on both endpoints, and two workers of one endpoint.
  const [a1, b1, a2, none] = await Promise.all([
    jobs.take(a, 'w1', 2, NOW, NOW + 1000),
    jobs.take(b, 'w1', 5, NOW, NOW + 1000),
    jobs.take(a, 'w2', 5, NOW, NOW + 1000),
    jobs.take(aQueue(), 'w1', 5, NOW, NOW + 1000),
  ]);
  const ids = (taken: { id: string }[]) => taken.map((j) => j.id);
  assert.deepEqual(ids(a1!), [ofA[1]!.id, ofA[2]!.id], 'the first taker of an endpoint gets its oldest jobs');
  assert.deepEqual(ids(a2!), [ofA[3]!.id, ofA[0]!.id], 'the next one the rest, low priority last');
  assert.deepEqual(ids(b1!), ids(ofB));
  assert.deepEqual(none, []);
  for (const job of [...a1!, ...a2!]) assert.equal(job.endpointId, a);
  assert.deepEqual(
    [...a1!, ...b1!, ...a2!].map((j) => j.workerId),
    ['w1', 'w1', 'w1', 'w1', 'w2', 'w2'],
  );
});

test(`[${TEST_STORE}] a worker renews only the leases it still holds`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  const mine = aJob(queue);
  const theirs = aJob(queue);
  const finished = aJob(queue);
  for (const job of [mine, finished, theirs]) await jobs.insert(job);
  await jobs.take(queue, 'w1', 2, NOW, NOW + 1000);
  await jobs.take(queue, 'w2', 1, NOW, NOW + 1000);
  await jobs.complete(finished.id, ['IN_PROGRESS'], { status: 'COMPLETED', output: null, error: null, completedAt: NOW + 1 });
  const held = await jobs.renewLeases(queue, 'w1', [mine.id, theirs.id, finished.id, 'job-missing'], NOW + 5000);
  assert.equal(held, 1);
  assert.equal((await jobs.get(mine.id))?.leaseExpiresAt, NOW + 5000);
  assert.equal((await jobs.get(theirs.id))?.leaseExpiresAt, NOW + 1000, 'another worker keeps its lease');
  assert.equal(await jobs.renewLeases(queue, 'w1', [], NOW + 5000), 0);
  assert.equal(await jobs.renewLeases(queue, 'w1', [mine.id, mine.id], NOW + 6000), 1, 'a job named twice is held once');
  assert.equal(await jobs.renewLeases(aQueue(), 'w1', [mine.id], NOW + 7000), 0, 'another endpoint renews nothing');
  assert.equal((await jobs.get(mine.id))?.leaseExpiresAt, NOW + 6000);
});

test(`[${TEST_STORE}] progress is recorded only on a running job by the worker that holds it, and extends the lease`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  const running = aJob(queue);
  const queued = aJob(queue);
  await jobs.insert(running);
  await jobs.take(queue, 'w1', 1, NOW, NOW + 1000);
  await jobs.insert(queued);
  const as = (workerId: string, endpointId = queue) => ({ endpointId, workerId, leaseUntil: NOW + 9000 });
  assert.equal(await jobs.recordProgress(running.id, '"50%"', as('w1')), true);
  const record = await jobs.get(running.id);
  assert.deepEqual([record?.output, record?.leaseExpiresAt], ['"50%"', NOW + 9000]);
  assert.equal(await jobs.recordProgress(running.id, '"60%"', as('w2')), false, 'a worker that does not hold it');
  assert.equal(await jobs.recordProgress(running.id, '"60%"', as('w1', aQueue())), false, 'another endpoint');
  assert.equal((await jobs.get(running.id))?.output, '"50%"');
  assert.equal(await jobs.recordProgress(queued.id, '"50%"', as('w1')), false);
  assert.equal((await jobs.get(queued.id))?.output, null);
  assert.equal(await jobs.recordProgress('job-missing', '"50%"', as('w1')), false);
});

test(`[${TEST_STORE}] a job stored handed to a worker is held as a take would hold it, and handed back like one`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  const queued = aJob(queue);
  const handed = aJob(queue, { handedTo: { workerId: 'w1', startedAt: NOW + 5, leaseUntil: NOW + 1000 } });
  // Submitted together, as one turn's submits are: one of them handed, the other queued.
  await Promise.all([jobs.insert(queued), jobs.insert(handed)]);
  const row = await jobs.get(handed.id);
  assert.deepEqual(
    [row?.status, row?.workerId, row?.startedAt, row?.leaseExpiresAt, row?.retries],
    ['IN_PROGRESS', 'w1', NOW + 5, NOW + 1000, 0],
  );
  assert.equal((await jobs.get(queued.id))?.status, 'IN_QUEUE');
  assert.deepEqual(
    (await jobs.take(queue, 'w2', 5, NOW, NOW + 1000)).map((j) => j.id),
    [queued.id],
    'a handed job is not offered to takes',
  );
  assert.deepEqual(
    (await jobs.handBack('w1', [handed.id])).map((j) => j.id),
    [handed.id],
  );
  const back = await jobs.take(queue, 'w3', 5, NOW, NOW + 1000);
  assert.deepEqual(
    back.map((j) => [j.id, j.workerId, j.retries]),
    [[handed.id, 'w3', 0]],
  );
});
