// Results that answer nothing a worker holds, over a real socket: a repeat of the attempt before a
// retry, or a result for a queued job the worker never took, is answered 200 (the SDK is done
// with it) and changes nothing; a late result after a lost lease still ends the job.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLive, type Live } from './support/live.js';

let g: Live;
before(async () => {
  g = await startLive({ takeWaitMs: '200', jobLeaseMs: '300', sweepIntervalMs: '50' });
});
after(() => g.close());

const take = async (worker: string) => (await g.worker('GET', `/job-take/${worker}?gpu=none&job_in_progress=0`)).json as { id: string };
const done = (jobId: string, body: unknown, worker: string) =>
  g.worker('POST', `/job-done/${worker}/${jobId}?gpu=none&isStream=false`, JSON.stringify(body));
const run = async () => (await g.queue('POST', '/run', { input: {} })).json.id as string;
const status = async (id: string) => (await g.queue('GET', `/status/${id}`)).json;

test('a repeat of the result before a retry does not end the retried job', async () => {
  const id = await run();
  assert.equal((await take('w-first')).id, id);
  assert.equal((await done(id, { error: 'oom' }, 'w-first')).status, 200);
  assert.equal((await g.queue('POST', `/retry/${id}`)).json.status, 'IN_QUEUE');
  const repeat = await done(id, { error: 'oom' }, 'w-first');
  assert.equal(repeat.status, 200, 'the worker is told it was received');
  const late = await done(id, { output: { late: true } }, 'w-first');
  assert.equal(late.status, 200);
  const after = await status(id);
  assert.deepEqual([after.status, after.retries, after.output], ['IN_QUEUE', 1, undefined], 'the retry still waits for a worker');
  assert.equal((await take('w-second')).id, id);
  assert.equal((await done(id, { output: 'second' }, 'w-second')).status, 200);
  assert.deepEqual([(await status(id)).status, (await status(id)).output], ['COMPLETED', 'second']);
});

test('a result for a queued job the worker never took changes nothing', async () => {
  const id = await run();
  assert.equal((await done(id, { output: 'forged' }, 'w-stranger')).status, 200);
  assert.equal((await status(id)).status, 'IN_QUEUE');
  assert.equal((await take('w-real')).id, id);
  await done(id, { output: 'real' }, 'w-real');
  assert.equal((await status(id)).output, 'real');
});

test('after a lost lease, the late result of that worker still ends the job', async () => {
  const id = await run();
  assert.equal((await take('w-slow')).id, id);
  // The lease (300 ms) lapses and the sweeper puts the job back in the queue.
  for (let i = 0; i < 50 && (await status(id)).status !== 'IN_QUEUE'; i++) await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual([(await status(id)).status, (await status(id)).retries], ['IN_QUEUE', 1]);
  assert.equal((await done(id, { output: 'late but good' }, 'w-slow')).status, 200);
  assert.deepEqual([(await status(id)).status, (await status(id)).output], ['COMPLETED', 'late but good']);
});
