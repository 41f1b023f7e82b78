// Stop requests: a worker's stop channel hands each out once; uncollected ones are forgotten.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_STORE } from '../support/test-store.js';
import { useTestStore } from './suite-store.js';
import { NOW } from './records.js';

const suite = useTestStore();

test(`[${TEST_STORE}] stop requests are handed out once, to their worker only`, async () => {
  const jobs = suite.store.jobs;
  await jobs.requestStop('w-stop', 'job-a', NOW);
  await jobs.requestStop('w-stop', 'job-a', NOW + 1);
  await jobs.requestStop('w-stop', 'job-b', NOW + 2);
  await jobs.requestStop('w-other', 'job-c', NOW + 2);
  assert.deepEqual((await jobs.drainStops('w-stop')).sort(), ['job-a', 'job-b'], 'a repeated request is handed out once');
  assert.deepEqual(await jobs.drainStops('w-stop'), []);
  assert.deepEqual(await jobs.drainStops('w-other'), ['job-c']);
});

test(`[${TEST_STORE}] a request made on one connection is collected on another, by one drain only`, async () => {
  const other = await suite.another();
  await suite.store.jobs.requestStop('w-shared', 'job-x', NOW);
  const drained = await Promise.all([suite.store.jobs.drainStops('w-shared'), other.jobs.drainStops('w-shared')]);
  assert.deepEqual(drained.flat(), ['job-x']);
});

test(`[${TEST_STORE}] requests older than the cut-off are forgotten, newer ones kept`, async () => {
  const jobs = suite.store.jobs;
  await jobs.requestStop('w-gone', 'job-old', NOW);
  await jobs.requestStop('w-gone', 'job-new', NOW + 1);
  await jobs.forgetStops(NOW + 1);
  assert.deepEqual(await jobs.drainStops('w-gone'), ['job-new']);
});
