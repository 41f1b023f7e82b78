// Worker samples: recorded once per endpoint and moment (even from two connections), read back
// by endpoint and window, pruned by age.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import type { WorkerSample } from '../../src/store/worker-sample-store.js';

const suite = useTestStore();
const T0 = Date.parse('2031-06-01T00:00:00Z');

function sample(endpointId: string, seconds: number, more: Partial<WorkerSample> = {}): WorkerSample {
  return { endpointId, at: T0 + seconds * 1000, running: 1, idle: 2, initializing: 0, throttled: 0, unhealthy: 0, ...more };
}

test(`[${TEST_STORE}] samples read back whole by endpoint and inclusive window, oldest first`, async () => {
  const a0 = sample('ep-a', 0);
  const a15 = sample('ep-a', 15, { running: 0, idle: 0, initializing: 3, throttled: 1, unhealthy: 2 });
  const a30 = sample('ep-a', 30, { running: 0, idle: 0 });
  const b15 = sample('ep-b', 15, { running: 7 });
  assert.equal(await suite.store.workerSamples.append([a30, a0, b15, a15]), 4);
  assert.deepEqual(await suite.store.workerSamples.list('ep-a', T0, T0 + 30_000), [a0, a15, a30]);
  assert.deepEqual(await suite.store.workerSamples.list('ep-a', T0 + 1, T0 + 15_000), [a15]);
  assert.deepEqual(await suite.store.workerSamples.list('ep-b', T0, T0 + 60_000), [b15]);
  assert.deepEqual(await suite.store.workerSamples.list('ep-none', T0, T0 + 60_000), []);
  assert.equal(await suite.store.workerSamples.append([]), 0);
});

test(`[${TEST_STORE}] a sample of an endpoint and moment already recorded is skipped, from any connection`, async () => {
  const first = sample('ep-c', 0);
  assert.equal(await suite.store.workerSamples.append([first]), 1);
  const other = await suite.another();
  assert.equal(await other.workerSamples.append([sample('ep-c', 0, { running: 9 }), sample('ep-c', 15)]), 1);
  assert.deepEqual(await suite.store.workerSamples.list('ep-c', T0, T0 + 15_000), [first, sample('ep-c', 15)]);
});

test(`[${TEST_STORE}] pruning deletes the samples taken before the cut, of every endpoint, and no others`, async () => {
  const old = [sample('ep-d', -100), sample('ep-e', -50)];
  const kept = sample('ep-d', 100);
  await suite.store.workerSamples.append([...old, kept]);
  assert.equal(await suite.store.workerSamples.prune(T0 - 10_000), 2);
  assert.deepEqual(await suite.store.workerSamples.list('ep-d', T0 - 200_000, T0 + 200_000), [kept]);
  assert.deepEqual(await suite.store.workerSamples.list('ep-e', T0 - 200_000, T0 + 200_000), []);
  assert.equal(await suite.store.workerSamples.prune(T0 - 10_000), 0);
});
