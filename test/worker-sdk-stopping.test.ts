// Stopping, in the worker SDK: a job stopped through the stop channel, whether or not its handler
// heeds its signal, and the whole worker stopped through `signal` (graceful shutdown). Against the
// fake queue of support/worker-sdk-rig.ts.
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { aborted, doneBodies, fake, logs, sleep, startWorker, stopWorker, stopWorkerAndQueue, until } from './support/worker-sdk-rig.js';

afterEach(stopWorkerAndQueue);

test('the stop channel aborts the named job, whose result is not posted, and the worker moves on', async () => {
  await startWorker();
  await sleep(250);
  assert.equal(fake.requests('job-stop').length, 0, 'no stop long-poll while idle');
  fake.jobs.push({ id: 'victim', input: { sleepMs: 5000, result: 'too late' } });
  const poll = await until(() => fake.requests('job-stop')[0], 'a stop long-poll while the job runs');
  assert.equal(poll.path, '/v2/ep/job-stop/w1');
  assert.equal(poll.query.get('runtime'), 'gantry');
  fake.stops.push('victim');
  await until(() => aborted.includes('victim'), "the job's signal to abort");
  fake.jobs.push({ id: 'next', input: { result: 'ok' } });
  await until(() => doneBodies('next').length > 0, 'the next job');
  assert.deepEqual(doneBodies('victim'), []);
});

test('a stopped handler that ignores its signal no longer holds the slot, and its result is dropped', async () => {
  await startWorker();
  fake.jobs.push({ id: 'stubborn', input: { sleepMs: 600, ignoreStop: true, result: 'late' } });
  await until(() => fake.requests('job-stop')[0], 'a stop long-poll');
  fake.stops.push('stubborn');
  fake.jobs.push({ id: 'next', input: { result: 'ok' } });
  await until(() => doneBodies('next').length > 0, 'the next job', 500);
  await sleep(700);
  assert.deepEqual(doneBodies('stubborn'), []);
});

test('aborting `signal` stops taking at once, lets the running job finish and post, then resolves', async () => {
  const { served: stopped } = await startWorker({ concurrency: 2 });
  fake.holdMs = 5000; // the idle slot's long-poll must be cut, not sat out
  fake.jobs.push({ id: 'last', input: { sleepMs: 300, result: 'finished' } });
  await until(() => fake.requests('ping').some((s) => s.query.get('job_id') === 'last'), 'the job to run');
  const stoppedAt = Date.now();
  stopWorker.abort();
  await stopped;
  assert.ok(Date.now() - stoppedAt < 1500, 'the held take did not delay the stop');
  assert.deepEqual(doneBodies('last'), [{ output: 'finished' }]);
  const takes = fake.requests('job-take').length + fake.requests('job-take-batch').length;
  await sleep(300);
  assert.equal(fake.requests('job-take').length + fake.requests('job-take-batch').length, takes, 'no take after the stop');
});

test('a ping still on its way when the worker has stopped is cut: nothing outlives serve()', async () => {
  const { served } = await startWorker();
  fake.holdMs = 5000;
  fake.pingDelayMs = 5000;
  await until(() => fake.requests('ping').length > 0, 'a ping');
  stopWorker.abort();
  await served;
  await until(() => fake.open === 0, 'no request of the worker still open', 1000);
  assert.deepEqual(logs, [], 'a ping cut at the end is no failure');
});
