// End to end with real worker processes: the example worker, built on Gantry's worker SDK,
// serving jobs submitted through the queue API and the RunPod JavaScript SDK.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import runpodSdk from 'runpod-sdk';
import { eventually, startLive, type Live } from './support/live.js';
import { workerEnvironment } from '../src/runtime/worker-env.js';

let g: Live;
const workers: ChildProcess[] = [];

async function startWorker(workerId: string, extraEnv: Record<string, string> = {}): Promise<ChildProcess> {
  const credential = await g.services.workerCredentials.create(g.endpointId);
  const env = {
    ...workerEnvironment(g.services.config, g.endpointId, credential, workerId),
    RUNPOD_PING_INTERVAL: '200',
    PATH: process.env.PATH ?? '',
    ...extraEnv,
  };
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/echo-worker.ts'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  workers.push(child);
  return child;
}

const runAndWait = async (input: unknown, wait = 20_000) => (await g.queue('POST', `/runsync?wait=${wait}`, { input })).json;

before(async () => {
  g = await startLive({ jobLeaseMs: '1500', takeWaitMs: '2000', workerPingIntervalMs: '200' });
  await startWorker('e2e-1', { WORKER_CONCURRENCY: '2' });
});
after(async () => {
  for (const child of workers) child.kill('SIGKILL');
  await g.close();
});

test('a job runs end to end on a real worker process', async () => {
  const result = await runAndWait({ echo: { hello: 'world' } });
  assert.equal(result.status, 'COMPLETED');
  assert.deepEqual(result.output, { hello: 'world' });
});

test('a handler error and an {error} result both mean FAILED', async () => {
  const thrown = await runAndWait({ fail: 'model not loaded' });
  assert.deepEqual([thrown.status, thrown.error], ['FAILED', 'model not loaded']);
  const returned = await runAndWait({ errorObject: 'bad prompt' });
  assert.deepEqual([returned.status, returned.error], ['FAILED', 'bad prompt']);
});

test('progress updates show while the job runs, then the result', async () => {
  const id = (await g.queue('POST', '/run', { input: { progress: 3, sleepMs: 600, echo: 'done' } })).json.id;
  const progress = await eventually(async () => {
    const s = (await g.queue('GET', `/status/${id}`)).json;
    return s.status === 'IN_PROGRESS' && s.output && s;
  });
  assert.equal(progress.output.of, 3);
  const final = (await g.queue('GET', `/status-sync/${id}?wait=10000`)).json;
  assert.deepEqual([final.status, final.output], ['COMPLETED', 'done']);
});

test('many streamed chunks reach the RunPod SDK in order', async () => {
  const endpoint = runpodSdk(g.adminKey, { baseUrl: `${g.url}/v2` }).endpoint(g.endpointId)!;
  const { id } = await endpoint.run({ input: { stream: 300, chunk: 'tok' } });
  const seen: number[] = [];
  for await (const chunk of endpoint.stream(id)) seen.push((chunk as { output: { i: number } }).output.i);
  assert.deepEqual(
    seen,
    Array.from({ length: 300 }, (_, i) => i),
  );
});

test('cancelling a running job stops it on the worker, which moves on', async () => {
  const id = (await g.queue('POST', '/run', { input: { sleepMs: 30_000 } })).json.id;
  await eventually(async () => (await g.queue('GET', `/status/${id}`)).json.status === 'IN_PROGRESS');
  const cancel = await g.queue('POST', `/cancel/${id}`);
  assert.equal(cancel.json.status, 'CANCELLED');
  const next = await runAndWait({ echo: 'after cancel' }, 10_000);
  assert.equal(next.output, 'after cancel');
  const afterAll = await runAndWait({ echo: 'second' }, 10_000);
  assert.equal(afterAll.output, 'second', 'both slots are free again: the cancelled handler was aborted');
  assert.equal((await g.queue('GET', `/status/${id}`)).json.status, 'CANCELLED');
});

test('an execution timeout stops the job on the worker', async () => {
  const id = (await g.queue('POST', '/run', { input: { sleepMs: 30_000 }, policy: { executionTimeout: 1000 } })).json.id;
  const final = (await g.queue('GET', `/status-sync/${id}?wait=10000`)).json;
  assert.equal(final.status, 'TIMED_OUT');
  assert.equal((await runAndWait({ echo: 'still serving' }, 10_000)).output, 'still serving');
});

test('a worker killed with SIGKILL loses nothing: its job returns to the queue and completes elsewhere', async () => {
  for (const child of workers.splice(0)) child.kill('SIGKILL');
  const doomed = await startWorker('doomed');
  const id = (await g.queue('POST', '/run', { input: { sleepMs: 5000, echo: 'survived' } })).json.id;
  await eventually(async () => (await g.queue('GET', `/status/${id}`)).json.status === 'IN_PROGRESS');
  doomed.kill('SIGKILL');
  const requeued = await eventually(async () => {
    const s = (await g.queue('GET', `/status/${id}`)).json;
    return s.status === 'IN_QUEUE' && s;
  }, 10_000);
  assert.equal(requeued.retries, 1);
  await startWorker('rescuer');
  const final = (await g.queue('GET', `/status-sync/${id}?wait=20000`)).json;
  assert.deepEqual([final.status, final.output, final.retries], ['COMPLETED', 'survived', 1]);
});
