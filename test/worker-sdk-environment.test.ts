// The worker SDK reading its environment: a missing or malformed variable is named before any
// request, and ping URLs keep the parameters their template already holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readEnvironment, serve, WorkerConfigError, type ServeOptions } from '../src/worker/index.js';
import { FakeQueue, testHandler } from './support/worker-sdk-rig.js';

test('a missing variable, a template without ? or a bad concurrency is named', async () => {
  const env = { ...new FakeQueue().env(), RUNPOD_WEBHOOK_PING: '' };
  const rejects = (options: ServeOptions, message: RegExp) =>
    assert.rejects(serve(testHandler, options), (e: Error) => e instanceof WorkerConfigError && message.test(e.message));
  await rejects({ env: {} }, /^RUNPOD_WEBHOOK_GET_JOB is not set/);
  await rejects({ env: { ...env, RUNPOD_WEBHOOK_GET_JOB: 'http://h/v2/ep/job-take/$ID' } }, /^RUNPOD_WEBHOOK_GET_JOB must contain '\?'/);
  await rejects({ env: { ...env, RUNPOD_WEBHOOK_POST_OUTPUT: undefined } as any }, /^RUNPOD_WEBHOOK_POST_OUTPUT is not set/);
  await rejects({ env: { ...env, RUNPOD_WEBHOOK_POST_STREAM: 'http://h/s/$ID' } }, /^RUNPOD_WEBHOOK_POST_STREAM must contain '\?'/);
  await rejects({ env: { ...env, RUNPOD_AI_API_KEY: '' } }, /^RUNPOD_AI_API_KEY is not set/);
  await rejects({ env: { ...env, RUNPOD_PING_INTERVAL: 'soon' } }, /^RUNPOD_PING_INTERVAL must be a positive number/);
  await rejects({ env, concurrency: 0 }, /^concurrency must be a positive integer/);
});

test('ping URLs that already hold a ? get their parameters with &', () => {
  const e = readEnvironment({ ...new FakeQueue().env(), RUNPOD_WEBHOOK_PING: 'http://h/v2/ep/ping/$RUNPOD_POD_ID?gpu=A100' });
  assert.equal(e.pingUrl(['a', 'b']), 'http://h/v2/ep/ping/w1?gpu=A100&job_id=a,b&runpod_version=gantry-worker%2F1');
  assert.equal(e.pingUrl([]), 'http://h/v2/ep/ping/w1?gpu=A100&runpod_version=gantry-worker%2F1');
});
