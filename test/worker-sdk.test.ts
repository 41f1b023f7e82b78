// The worker SDK's environment handling and local mode.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readEnvironment, WorkerConfigError } from '../src/worker/index.js';

const env = {
  RUNPOD_POD_ID: 'w7',
  RUNPOD_AI_API_KEY: 'gantry_wk_x',
  RUNPOD_WEBHOOK_GET_JOB: 'http://h/v2/ep/job-take/$ID?runtime=gantry',
  RUNPOD_WEBHOOK_POST_OUTPUT: 'http://h/v2/ep/job-done/$RUNPOD_POD_ID/$ID?runtime=gantry',
  RUNPOD_WEBHOOK_POST_STREAM: 'http://h/v2/ep/job-stream/$RUNPOD_POD_ID/$ID?runtime=gantry',
  RUNPOD_WEBHOOK_PING: 'http://h/v2/ep/ping/$RUNPOD_POD_ID',
  RUNPOD_PING_INTERVAL: '500',
};

test('URLs are built the way RunPod SDK workers build them', () => {
  const e = readEnvironment(env);
  assert.equal(e.takeUrl(1, false), 'http://h/v2/ep/job-take/w7?runtime=gantry&job_in_progress=0');
  assert.equal(e.takeUrl(3, true), 'http://h/v2/ep/job-take-batch/w7?runtime=gantry&job_in_progress=1&batch_size=3');
  assert.equal(e.stopUrl(), 'http://h/v2/ep/job-stop/w7?runtime=gantry');
  assert.equal(e.doneUrl('j1', true), 'http://h/v2/ep/job-done/w7/j1?runtime=gantry&isStream=true');
  assert.equal(e.streamUrl('j1'), 'http://h/v2/ep/job-stream/w7/j1?runtime=gantry&isStream=false');
  assert.equal(e.pingUrl([]), 'http://h/v2/ep/ping/w7?runpod_version=gantry-worker%2F1');
  assert.equal(e.pingUrl(['a', 'b']), 'http://h/v2/ep/ping/w7?runpod_version=gantry-worker%2F1&job_id=a%2Cb');
  assert.equal(e.pingIntervalMs, 500);
});

test('a missing variable or a template without ? is named', () => {
  const { RUNPOD_AI_API_KEY: _k, ...noKey } = env;
  assert.throws(() => readEnvironment(noKey), (e: Error) => e instanceof WorkerConfigError && e.message.startsWith('RUNPOD_AI_API_KEY is not set'));
  assert.throws(() => readEnvironment({ ...env, RUNPOD_WEBHOOK_GET_JOB: 'http://h/v2/ep/job-take/$ID' }), /RUNPOD_WEBHOOK_GET_JOB must contain '\?'/);
});

test('local mode runs the handler once and prints the result', () => {
  const run = (input: unknown) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'examples/echo-worker.ts', '--test_input', JSON.stringify({ input })], { encoding: 'utf8' });
  assert.equal(run({ echo: { a: 1 } }).stdout.trim(), '{"output":{"a":1}}');
  assert.equal(run({ fail: 'broken' }).stdout.trim(), '{"error":"broken"}');
  assert.equal(run({ stream: 2, chunk: 'c' }).stdout.trim(), '{"output":[{"i":0,"text":"c"},{"i":1,"text":"c"}]}');
});
