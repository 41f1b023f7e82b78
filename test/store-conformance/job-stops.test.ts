// Stop requests: a worker's stop channel hands each out once, only on its own endpoint's path,
// even when the job itself is already gone; uncollected ones are forgotten.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import { NOW, aQueue } from './records.js';

const suite = useTestStore();

test(`[${TEST_STORE}] stop requests are handed out once, to their worker only`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  await jobs.requestStop(queue, 'w-stop', 'job-a', NOW);
  await jobs.requestStop(queue, 'w-stop', 'job-a', NOW + 1);
  await jobs.requestStop(queue, 'w-stop', 'job-b', NOW + 2);
  await jobs.requestStop(queue, 'w-other', 'job-c', NOW + 2);
  assert.deepEqual((await jobs.drainStops(queue, 'w-stop')).sort(), ['job-a', 'job-b'], 'a repeated request is handed out once');
  assert.deepEqual(await jobs.drainStops(queue, 'w-stop'), []);
  assert.deepEqual(await jobs.drainStops(queue, 'w-other'), ['job-c'], 'stops of jobs no longer stored still reach the worker');
});

test(`[${TEST_STORE}] a worker id used on another endpoint's path drains nothing of this one`, async () => {
  const jobs = suite.store.jobs;
  const mine = aQueue();
  const theirs = aQueue();
  await jobs.requestStop(mine, 'w-shared-name', 'job-mine', NOW);
  assert.deepEqual(await jobs.drainStops(theirs, 'w-shared-name'), []);
  assert.deepEqual(await jobs.drainStops(mine, 'w-shared-name'), ['job-mine'], 'the request is still there for its own worker');
});

test(`[${TEST_STORE}] a request made on one connection is collected on another, by one drain only`, async () => {
  const other = await suite.another();
  const queue = aQueue();
  await suite.store.jobs.requestStop(queue, 'w-shared', 'job-x', NOW);
  const drained = await Promise.all([suite.store.jobs.drainStops(queue, 'w-shared'), other.jobs.drainStops(queue, 'w-shared')]);
  assert.deepEqual(drained.flat(), ['job-x']);
});

test(`[${TEST_STORE}] requests older than the cut-off are forgotten, newer ones kept`, async () => {
  const jobs = suite.store.jobs;
  const queue = aQueue();
  await jobs.requestStop(queue, 'w-gone', 'job-old', NOW);
  await jobs.requestStop(queue, 'w-gone', 'job-new', NOW + 1);
  await jobs.forgetStops(NOW + 1);
  assert.deepEqual(await jobs.drainStops(queue, 'w-gone'), ['job-new']);
});
