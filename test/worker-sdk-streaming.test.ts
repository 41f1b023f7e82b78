// The worker SDK's output before the result: progress updates as IN_PROGRESS posts, and streaming
// handlers' chunks on job-stream, or aggregated into the final output. Against the fake queue of
// support/worker-sdk-rig.ts.
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { doneBodies, fake, startWorker, stopWorkerAndQueue, until } from './support/worker-sdk-rig.js';

afterEach(stopWorkerAndQueue);

test('progress updates reach job-done as IN_PROGRESS before the result, even when not awaited', async () => {
  await startWorker();
  fake.progressDelayMs = 60; // slow answers: the result must still wait for the updates before it
  fake.jobs.push({ id: 'p', input: { progress: 2, result: 'done' } });
  await until(() => doneBodies('p').length === 3, 'two updates and the result');
  assert.deepEqual(doneBodies('p'), [
    { status: 'IN_PROGRESS', output: { step: 1 } },
    { status: 'IN_PROGRESS', output: { step: 2 } },
    { output: 'done' },
  ]);
  assert.deepEqual(
    fake.requests('job-done', 'p').map((s) => s.query.get('isStream')),
    ['false', 'false', 'false'],
  );
});

test('a streaming handler posts each chunk in order, then job-done with isStream=true', async () => {
  await startWorker();
  fake.jobs.push({ id: 's', input: { stream: 3 } });
  await until(() => doneBodies('s').length > 0, 'the end of the stream');
  const chunks = fake.requests('job-stream', 's');
  assert.deepEqual(
    chunks.map((s) => s.body),
    [{ output: { i: 0 } }, { output: { i: 1 } }, { output: { i: 2 } }],
  );
  assert.deepEqual(
    chunks.map((s) => [s.path, s.query.get('isStream')]),
    Array(3).fill(['/v2/ep/job-stream/w1/s', 'false']),
  );
  const [done] = fake.requests('job-done', 's');
  assert.deepEqual([done!.query.get('isStream'), done!.body], ['true', {}], 'no output unless aggregated');
  assert.ok(done!.at >= chunks[2]!.at);
});

test('returnAggregateStream makes the chunks the final output', async () => {
  await startWorker({ returnAggregateStream: true });
  fake.jobs.push({ id: 's', input: { stream: 2 } });
  await until(() => doneBodies('s').length > 0, 'the end of the stream');
  assert.deepEqual(doneBodies('s'), [{ output: [{ i: 0 }, { i: 1 }] }]);
  assert.equal(fake.requests('job-stream', 's').length, 2);
});
