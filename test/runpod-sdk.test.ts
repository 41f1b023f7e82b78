// The RunPod JavaScript SDK (npm runpod-sdk), unchanged, against Gantry.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import runpodSdk from 'runpod-sdk';
import { startLive, sleep, type Live } from './support/live.js';

let g: Live;
let stopWorker = false;
let worker: Promise<void>;

/** A protocol-level worker: echoes, streams, or sleeps depending on the input. */
async function workerLoop(): Promise<void> {
  while (!stopWorker) {
    const taken = await g.worker('GET', '/job-take/sdk-worker?gpu=none&job_in_progress=0');
    if (taken.status !== 200) continue;
    const { id, input } = taken.json;
    if (input.stream) {
      for (let i = 0; i < input.stream; i++) {
        await g.worker('POST', `/job-stream/sdk-worker/${id}?isStream=false`, JSON.stringify({ output: { token: i } }));
      }
      await g.worker('POST', `/job-done/sdk-worker/${id}?isStream=true`, '{}');
    } else if (input.hold) {
      await sleep(input.hold);
    } else {
      await g.worker('POST', `/job-done/sdk-worker/${id}?isStream=false`, JSON.stringify({ output: { echo: input.echo } }));
    }
  }
}

before(async () => {
  g = await startLive({ takeWaitMs: '300' });
  worker = workerLoop();
});
after(async () => {
  stopWorker = true;
  await worker;
  await g.close();
});

const endpoint = () => runpodSdk(g.adminKey, { baseUrl: `${g.url}/v2` }).endpoint(g.endpointId)!;

test('runSync returns the completed job', async () => {
  const result = await endpoint().runSync({ input: { echo: 'hello' } });
  assert.equal(result.status, 'COMPLETED');
  assert.deepEqual(result.output, { echo: 'hello' });
});

test('run then status reports the job to completion', async () => {
  const ep = endpoint();
  const { id, status } = await ep.run({ input: { echo: 42 } });
  assert.equal(status, 'IN_QUEUE');
  let current = (await ep.status(id)) as { status: string; output?: unknown };
  for (let i = 0; i < 100 && current.status !== 'COMPLETED'; i++) {
    await sleep(20);
    current = (await ep.status(id)) as { status: string; output?: unknown };
  }
  assert.equal(current.status, 'COMPLETED');
  assert.deepEqual(current.output, { echo: 42 });
});

test('stream yields every chunk once, in order', async () => {
  const ep = endpoint();
  const { id } = await ep.run({ input: { stream: 25 } });
  const tokens: number[] = [];
  for await (const chunk of ep.stream(id)) tokens.push((chunk as { output: { token: number } }).output.token);
  assert.deepEqual(
    tokens,
    Array.from({ length: 25 }, (_, i) => i),
  );
});

test('cancel, health and purgeQueue', async () => {
  const ep = endpoint();
  const running = await ep.run({ input: { hold: 400 } });
  const cancelled = await ep.cancel(running.id);
  assert.deepEqual(cancelled, { id: running.id, status: 'CANCELLED' });
  const health = await ep.health();
  assert.equal(typeof health.jobs.completed, 'number');
  assert.equal(typeof health.workers.idle, 'number');
  stopWorker = true;
  await worker;
  for (let i = 0; i < 3; i++) await ep.run({ input: { echo: i } });
  const purged = await ep.purgeQueue();
  assert.deepEqual(purged, { removed: 3, status: 'completed' });
});
