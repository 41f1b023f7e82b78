// Streamed output: chunks read in the order written, each once, from any connection.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import { aJob, aQueue, aStreamWriter, NOW } from './records.js';

const suite = useTestStore();

test(`[${TEST_STORE}] stream chunks are read in order, each once`, async () => {
  const jobs = suite.store.jobs;
  const job = aJob(aQueue());
  await jobs.insert(job);
  assert.deepEqual((await jobs.readStream(job.id)).chunks, []);
  await jobs.appendStream(job.id, ['1', '2'], aStreamWriter(job.endpointId));
  await jobs.appendStream(job.id, [], aStreamWriter(job.endpointId));
  await jobs.appendStream(job.id, ['3'], aStreamWriter(job.endpointId));
  assert.deepEqual((await jobs.readStream(job.id)).chunks, ['1', '2', '3']);
  assert.deepEqual((await jobs.readStream(job.id)).chunks, []);
  await jobs.appendStream(job.id, ['4'], aStreamWriter(job.endpointId));
  assert.deepEqual((await jobs.readStream(job.id)).chunks, ['4']);
});

test(`[${TEST_STORE}] writing to the stream of a job that does not exist keeps nothing`, async () => {
  await suite.store.jobs.appendStream('job-missing', ['lost'], aStreamWriter(aQueue()));
  assert.deepEqual((await suite.store.jobs.readStream('job-missing')).chunks, []);
});

test(`[${TEST_STORE}] readers on two connections share one read position: no chunk is read twice`, async () => {
  const other = await suite.another();
  const job = aJob(aQueue());
  await suite.store.jobs.insert(job);
  const written: string[] = [];
  const read: string[] = [];
  for (let round = 0; round < 20; round++) {
    const chunks = [`${round}a`, `${round}b`];
    written.push(...chunks);
    const [, mine, theirs] = await Promise.all([
      other.jobs.appendStream(job.id, chunks, aStreamWriter(job.endpointId)),
      suite.store.jobs.readStream(job.id),
      other.jobs.readStream(job.id),
    ]);
    read.push(...mine.chunks, ...theirs.chunks);
  }
  read.push(...(await suite.store.jobs.readStream(job.id)).chunks);
  assert.deepEqual([...read].sort(), [...written].sort(), 'every chunk read exactly once');
});

test(`[${TEST_STORE}] a worker's chunks reach only a job of its endpoint that is not finished, and renew only its own lease`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  const [running, finished] = [aJob(queue), aJob(queue)];
  await jobs.insert(running);
  await jobs.insert(finished);
  await jobs.take(queue, 'w1', 2, NOW, NOW + 1000);
  await jobs.complete(finished.id, ['IN_PROGRESS'], { status: 'COMPLETED', output: '"done"', error: null, completedAt: NOW + 1 });
  const as = (workerId: string, endpointId = queue) => ({ endpointId, workerId, leaseUntil: NOW + 5000 });

  assert.deepEqual(await jobs.appendStream(running.id, ['1'], as('w2')), { workerId: 'w1' }, "another worker's chunk is kept");
  assert.equal((await jobs.get(running.id))?.leaseExpiresAt, NOW + 1000, "but does not renew w1's lease");
  assert.equal(await jobs.appendStream(running.id, ['x'], as('w1', aQueue())), undefined, "another endpoint's job");
  assert.equal(await jobs.appendStream(finished.id, ['late'], as('w1')), undefined, 'a finished job');
  assert.equal(await jobs.appendStream('job-missing', ['lost'], as('w1')), undefined, 'no job');
  assert.deepEqual(await jobs.appendStream(running.id, ['2', '3'], as('w1')), { workerId: 'w1' });
  assert.equal((await jobs.get(running.id))?.leaseExpiresAt, NOW + 5000, "the holder's chunk renews its lease");
  assert.deepEqual((await jobs.readStream(running.id)).chunks, ['1', '2', '3']);
  assert.deepEqual((await jobs.readStream(finished.id)).chunks, []);
});

test(`[${TEST_STORE}] a read put back is read again, unless the stream was read since`, async () => {
  const jobs = suite.store.jobs;
  const job = aJob(aQueue());
  await jobs.insert(job);
  const writer = aStreamWriter(job.endpointId);
  await jobs.appendStream(job.id, ['1', '2'], writer);
  const abandoned = await jobs.readStream(job.id);
  assert.equal(await jobs.unreadStream(job.id, abandoned), true);
  assert.deepEqual((await jobs.readStream(job.id)).chunks, ['1', '2'], 'the chunks of the abandoned read come again');

  await jobs.appendStream(job.id, ['3'], writer);
  const late = await jobs.readStream(job.id);
  await jobs.appendStream(job.id, ['4'], writer);
  assert.deepEqual((await jobs.readStream(job.id)).chunks, ['4']);
  assert.equal(await jobs.unreadStream(job.id, late), false, 'read again since: putting back would repeat chunk 4');
  assert.deepEqual((await jobs.readStream(job.id)).chunks, []);
  assert.equal(await jobs.unreadStream(job.id, await jobs.readStream(job.id)), false, 'an empty read has nothing to put back');
});
