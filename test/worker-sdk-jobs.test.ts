// The worker SDK taking jobs and posting their results, against the fake queue of
// support/worker-sdk-rig.ts: RunPod URL shapes and parameters with the raw credential, a slot
// freed as its handler returns, pings, error results, retried posts and takes, batch takes.
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { doneBodies, fake, logs, sleep, startWorker, stopWorkerAndQueue, until } from './support/worker-sdk-rig.js';

afterEach(stopWorkerAndQueue);

test('a job is taken and its output posted, on RunPod URL shapes with the raw credential', async () => {
  await startWorker();
  fake.jobs.push({ id: 'j1', input: { result: { a: 1 } } });
  const [done] = await until(() => fake.requests('job-done', 'j1').length > 0 && fake.requests('job-done', 'j1'), 'the result');
  const take = fake.requests('job-take')[0]!;
  assert.equal(take.path, '/v2/ep/job-take/w1');
  assert.deepEqual(
    [...take.query],
    [
      ['runtime', 'gantry'],
      ['job_in_progress', '0'],
    ],
  );
  assert.equal(done!.path, '/v2/ep/job-done/w1/j1');
  assert.deepEqual(
    [...done!.query],
    [
      ['runtime', 'gantry'],
      ['isStream', 'false'],
    ],
  );
  assert.deepEqual(done!.body, { output: { a: 1 } });
  assert.deepEqual([...new Set(fake.seen.map((s) => s.auth))], ['wk-secret'], 'no Bearer prefix, on every request');
});

test('a slot frees when its handler returns: the next job runs while the last result is still on its way', async () => {
  await startWorker();
  fake.resultDelayMs = 3000;
  fake.jobs.push({ id: 'first', input: { result: 1 } }, { id: 'second', input: { result: 2 } });
  const first = await until(() => fake.requests('job-done', 'first')[0], "the first job's result");
  const second = await until(() => fake.requests('job-done', 'second')[0], "the second job's result", 2500);
  assert.ok(second.at - first.at < 2500, 'with one slot, the second job ran before the first result was answered');
  // Both still count as held: a ping names them until their results are answered.
  await until(() => fake.requests('ping').some((p) => p.query.get('job_id') === 'first,second'), 'a ping naming both');
});

test('pings every interval: job_id lists the jobs in progress and is absent when idle', async () => {
  await startWorker({ concurrency: 2 });
  fake.jobs.push({ id: 'a', input: { sleepMs: 400 } }, { id: 'b', input: { sleepMs: 400 } });
  const busy = await until(() => fake.requests('ping').find((s) => s.query.get('job_id') === 'a,b'), 'a ping listing both jobs');
  assert.equal(busy.path, '/v2/ep/ping/w1');
  assert.equal(busy.query.get('runpod_version'), 'gantry-worker/1');
  await until(() => doneBodies('b').length > 0, 'both results');
  const idle = await until(() => fake.requests('ping').find((s) => s.at > busy.at && !s.query.has('job_id')), 'an idle ping');
  assert.ok(idle.query.has('runpod_version'));
  const first = fake.requests('ping')[0]!.at;
  assert.ok(fake.requests('ping').filter((s) => s.at - first < 550).length >= 4, 'about one ping per 100 ms');
});

test('a thrown error and an {error} result both post an error; refresh_worker asks for stopPod', async () => {
  await startWorker();
  fake.jobs.push(
    { id: 'thrown', input: { fail: 'model not loaded' } },
    { id: 'returned', input: { result: { error: 'bad prompt' } } },
    { id: 'partial', input: { result: { error: { code: 7 }, detail: 'half done' } } },
    { id: 'recycle', input: { result: { ok: true, refresh_worker: true } } },
  );
  await until(() => doneBodies('recycle').length > 0, 'the last result');
  assert.deepEqual(doneBodies('thrown'), [{ error: 'model not loaded' }]);
  assert.deepEqual(doneBodies('returned'), [{ error: 'bad prompt' }]);
  assert.deepEqual(doneBodies('partial'), [{ error: '{"code":7}', output: { detail: 'half done' } }]);
  assert.deepEqual(doneBodies('recycle'), [{ output: { ok: true }, stopPod: true }]);
});

test('job-done is retried after a 500 and a dropped connection, but not after a 400', async () => {
  await startWorker();
  fake.doneAnswers.push(500, 'drop');
  fake.jobs.push({ id: 'r', input: { result: 1 } });
  await until(() => doneBodies('r').length === 3, 'two retries');
  assert.deepEqual(doneBodies('r'), [{ output: 1 }, { output: 1 }, { output: 1 }]);
  fake.doneAnswers.push(400);
  fake.jobs.push({ id: 'rejected', input: { result: 2 } });
  await until(() => doneBodies('rejected').length > 0, 'the rejected post');
  await sleep(500);
  assert.equal(doneBodies('rejected').length, 1);
  assert.ok(
    logs.some((line) => line.includes('rejected') && line.includes('400')),
    logs.join('\n'),
  );
});

test('job-take survives a dropped connection and a 503 by asking again', async () => {
  await startWorker();
  fake.takeAnswers.push('drop', 503);
  fake.jobs.push({ id: 'j', input: { result: 'ok' } });
  await until(() => doneBodies('j').length > 0, 'the job, after the failed takes');
  assert.ok(fake.requests('job-take').length >= 3);
});

test('with several free slots the worker takes a batch; with one, a single job while others run', async () => {
  await startWorker({ concurrency: 3 }, [
    { id: 'a', input: { sleepMs: 800 } },
    { id: 'b', input: { sleepMs: 800 } },
  ]);
  const batch = await until(() => fake.requests('job-take-batch')[0], 'a batch take');
  assert.equal(batch.path, '/v2/ep/job-take-batch/w1');
  assert.deepEqual(
    [...batch.query],
    [
      ['runtime', 'gantry'],
      ['job_in_progress', '0'],
      ['batch_size', '3'],
    ],
  );
  const single = await until(() => fake.requests('job-take').find((s) => s.at > batch.at), 'a take for the last free slot');
  assert.deepEqual(
    [...single.query],
    [
      ['runtime', 'gantry'],
      ['job_in_progress', '1'],
    ],
  );
  fake.jobs.push({ id: 'c', input: { sleepMs: 250, result: 'c' } });
  await until(() => fake.requests('ping').some((s) => s.query.get('job_id') === 'a,b,c'), 'all three jobs at once');
  await until(() => doneBodies('c').length > 0, 'the third job');
  assert.equal(doneBodies('a').length, 0, 'the batch jobs are still running');
});
