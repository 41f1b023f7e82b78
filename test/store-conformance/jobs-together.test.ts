// Job calls made at the same moment (as a busy replica makes them, and as the PostgreSQL store
// groups them into one statement): each still gets its own answer, exactly as if made one by one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import { aJob, aQueue, NOW } from './records.js';
import { StoreConflictError } from '../../src/store/shared/conflicts.js';
import type { JobRecord } from '../../src/store/job-store.js';

const suite = useTestStore();

test(`[${TEST_STORE}] takes made together on two replicas hand every job to one worker, within each worker's limit`, async () => {
  const queue = aQueue();
  const inserted = Array.from({ length: 90 }, () => aJob(queue));
  await Promise.all(inserted.map((job) => suite.store.jobs.insert(job)));
  const stores = [suite.store, await suite.another()];
  const handedOut: string[] = [];
  for (let round = 0; round < 10; round++) {
    // Twelve workers, six per replica, all asking in the same turn.
    const batches = await Promise.all(
      Array.from({ length: 12 }, (_, w) => stores[w % 2]!.jobs.take(queue, `w${w}`, 1 + (w % 4), NOW, NOW + 1000)),
    );
    batches.forEach((batch, w) => {
      assert.ok(batch.length <= 1 + (w % 4), `worker w${w} got ${batch.length} jobs`);
      for (const job of batch) assert.deepEqual([job.status, job.workerId], ['IN_PROGRESS', `w${w}`]);
      const submitted = batch.map((job) => job.submittedAt);
      assert.deepEqual(
        submitted,
        [...submitted].sort((a, b) => a - b),
        'each batch in queue order',
      );
    });
    handedOut.push(...batches.flat().map((job) => job.id));
    if (batches.every((batch) => batch.length === 0)) break;
  }
  assert.equal(handedOut.length, inserted.length, 'no job handed out twice');
  assert.deepEqual(new Set(handedOut), new Set(inserted.map((job) => job.id)));
  for (const job of inserted) {
    const stored = await suite.store.jobs.get(job.id);
    assert.equal(stored?.status, 'IN_PROGRESS');
  }
});

test(`[${TEST_STORE}] two results sent together for one job: exactly one is kept, and its sender is told so`, async () => {
  const queue = aQueue();
  const jobs = Array.from({ length: 20 }, () => aJob(queue));
  for (const job of jobs) await suite.store.jobs.insert(job);
  await suite.store.jobs.take(queue, 'w1', 20, NOW, NOW + 1000);
  const other = await suite.another();
  const answers = await Promise.all(
    jobs.flatMap((job, i) => [
      suite.store.jobs.complete(job.id, ['IN_PROGRESS'], { status: 'COMPLETED', output: `"a${i}"`, error: null, completedAt: NOW + 1 }),
      (i % 2 ? other : suite.store).jobs.complete(job.id, ['IN_PROGRESS'], {
        status: 'FAILED',
        output: null,
        error: `b${i}`,
        completedAt: NOW + 2,
      }),
    ]),
  );
  for (const [i, job] of jobs.entries()) {
    const pair = [answers[2 * i], answers[2 * i + 1]];
    const kept = pair.filter((answer): answer is JobRecord => answer !== undefined);
    assert.equal(kept.length, 1, `job ${i}: one result kept`);
    const stored = await suite.store.jobs.get(job.id);
    assert.deepEqual([stored?.status, stored?.output, stored?.error], [kept[0]!.status, kept[0]!.output, kept[0]!.error]);
  }
});

test(`[${TEST_STORE}] jobs submitted together are all stored, and only the one whose id clashes fails`, async () => {
  const queue = aQueue();
  const existing = aJob(queue);
  await suite.store.jobs.insert(existing);
  const fresh = Array.from({ length: 8 }, () => aJob(queue));
  const outcomes = await Promise.allSettled([
    ...fresh.map((job) => suite.store.jobs.insert(job)),
    suite.store.jobs.insert({ ...aJob(queue), id: existing.id, input: '"clash"' }),
  ]);
  assert.deepEqual(
    outcomes.map((o) => o.status),
    [...fresh.map(() => 'fulfilled'), 'rejected'],
  );
  const clash = outcomes[fresh.length] as PromiseRejectedResult;
  assert.ok(clash.reason instanceof StoreConflictError);
  for (const job of fresh) assert.equal((await suite.store.jobs.get(job.id))?.input, job.input);
  assert.equal((await suite.store.jobs.get(existing.id))?.input, existing.input, 'the first job is untouched');
});

test(`[${TEST_STORE}] a batch of jobs inserted as one is stored whole, large inputs and jobs handed to a worker included`, async () => {
  const queue = aQueue();
  const first = aJob(queue);
  const large = aJob(queue, { input: JSON.stringify('x'.repeat(300_000)) });
  const handed = aJob(queue, { handedTo: { workerId: 'w1', startedAt: NOW + 5, leaseUntil: NOW + 60_000 } });
  const batch = [first, large, handed, aJob(queue)];
  await suite.store.jobs.insertAll(batch);
  for (const job of batch) assert.equal((await suite.store.jobs.get(job.id))?.input, job.input);
  const handedRow = await suite.store.jobs.get(handed.id);
  assert.deepEqual([handedRow?.status, handedRow?.workerId], ['IN_PROGRESS', 'w1']);
  const taken = await suite.store.jobs.take(queue, 'w2', 10, NOW + 10, NOW + 60_000);
  assert.deepEqual(
    taken.map((job) => job.id),
    [batch[0]!.id, large.id, batch[3]!.id],
    'the queued ones are taken in their order',
  );
});

test(`[${TEST_STORE}] a batch of jobs with one clashing id stores none of them`, async () => {
  const queue = aQueue();
  const existing = aJob(queue);
  await suite.store.jobs.insert(existing);
  const fresh = [aJob(queue), aJob(queue, { input: JSON.stringify('y'.repeat(300_000)) })];
  await assert.rejects(suite.store.jobs.insertAll([...fresh, { ...aJob(queue), id: existing.id }]), StoreConflictError);
  for (const job of fresh) assert.equal(await suite.store.jobs.get(job.id), undefined, `${job.id} was not stored`);
  assert.equal((await suite.store.jobs.get(existing.id))?.input, existing.input, 'the first job is untouched');
  // The store goes on: the same fresh jobs can be inserted afterwards.
  await suite.store.jobs.insertAll(fresh);
  assert.equal((await suite.store.jobs.get(fresh[1]!.id))?.input, fresh[1]!.input);
});

test(`[${TEST_STORE}] reads made together each answer their own job, or nothing for an unknown one`, async () => {
  const queue = aQueue();
  const jobs = Array.from({ length: 5 }, () => aJob(queue));
  for (const job of jobs) await suite.store.jobs.insert(job);
  const ids = [jobs[3]!.id, 'job-missing', jobs[0]!.id, jobs[3]!.id, jobs[4]!.id];
  const read = await Promise.all(ids.map((id) => suite.store.jobs.get(id)));
  assert.deepEqual(
    read.map((job) => job?.id),
    [jobs[3]!.id, undefined, jobs[0]!.id, jobs[3]!.id, jobs[4]!.id],
  );
  assert.deepEqual(
    read.map((job) => job?.input),
    [jobs[3]!.input, undefined, jobs[0]!.input, jobs[3]!.input, jobs[4]!.input],
  );
});
