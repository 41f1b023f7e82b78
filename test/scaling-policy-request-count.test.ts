// The autoscaling policy on REQUEST_COUNT: workers sized to the requests queued and in flight,
// idle ones stopped after the stable window, one decision a table row; and an endpoint switching
// between REQUEST_COUNT and QUEUE_DELAY.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decideScaling } from '../src/domain/scaling-policy.js';
import { base, check, idle, rc, running, SEC, starting, unhealthy, waiting } from './support/scaling-inputs.js';

describe('REQUEST_COUNT', () => {
  check([
    { name: 'no demand, no worker', given: rc({}), start: 0, desired: 0 },
    { name: '1 request at 2 per worker rounds up to 1', given: rc({ queued: 1 }), start: 1 },
    { name: '2 requests at 2 per worker is exactly 1', given: rc({ inFlight: 2, workers: [running('a', 2)] }), start: 0, desired: 1 },
    { name: '3 requests at 2 per worker rounds up to 2', given: rc({ queued: 3 }), start: 2, reason: /3 request\(s\) at 2 per worker/ },
    {
      name: '4 requests at 3 per worker rounds up to 2',
      given: rc({ queued: 4, scaling: { type: 'REQUEST_COUNT', requestCount: 3 } }),
      start: 2,
    },
    {
      name: '7 requests at 3 per worker rounds up to 3',
      given: rc({ queued: 7, scaling: { type: 'REQUEST_COUNT', requestCount: 3 } }),
      start: 3,
    },
    { name: 'queued and in flight both count', given: rc({ queued: 4, inFlight: 1, workers: [running('a')] }), start: 2, desired: 3 },
    {
      name: 'requestCount 1: one worker per request',
      given: rc({ queued: 3, inFlight: 2, workers: [running('a'), running('b')], scaling: { type: 'REQUEST_COUNT', requestCount: 1 } }),
      start: 3,
    },
    { name: 'capped at max', given: rc({ queued: 100 }), start: 5, desired: 5 },
    {
      name: 'no queueDelay wait: scales on the first tick',
      given: rc({ ...waiting(6, 0), workers: [running('a')], inFlight: 1 }),
      start: 3,
    },
    {
      name: 'starting workers count, so no repeated starts',
      given: rc({ queued: 4, workers: [starting('s1'), starting('s2')] }),
      start: 0,
    },
    { name: 'unhealthy workers do not count', given: rc({ queued: 2, workers: [unhealthy('x')] }), start: 1 },
    { name: 'min floor with no demand', given: rc({ min: 1, workers: [idle('a', 60 * SEC)] }), start: 0, stop: [] },
    {
      name: 'above target, an idle worker stops after exactly the stable window',
      given: rc({ inFlight: 1, workers: [idle('a', 10 * SEC), idle('b', 5 * SEC), running('c')] }),
      start: 0,
      stop: ['a'],
    },
    {
      name: 'above target, 1 ms short of the stable window it stays',
      given: rc({ workers: [idle('a', 10 * SEC - 1)] }),
      start: 0,
      stop: [],
    },
    {
      name: 'a shorter stable window given by the caller',
      given: rc({ inFlight: 1, stableWindowMs: 3 * SEC, workers: [idle('a', 10 * SEC), idle('b', 5 * SEC), running('c')] }),
      start: 0,
      stop: ['a', 'b'],
    },
    {
      name: 'where idleTimeout applies (load balancer) it is the grace',
      given: rc({ idleTimeoutSec: 30, workers: [idle('a', 20 * SEC)] }),
      start: 0,
      stop: [],
    },
  ]);
});

describe('switching the scaler mid-way', () => {
  test('the same queue: QUEUE_DELAY holds within its delay, REQUEST_COUNT scales at once', () => {
    const state = { ...waiting(3, 2 * SEC), inFlight: 1, workers: [running('a')] };
    assert.equal(decideScaling(base(state)).start, 0);
    assert.equal(decideScaling(rc({ ...state, scaling: { type: 'REQUEST_COUNT', requestCount: 1 } })).start, 3);
  });

  test('the grace follows the scaler in force: stable window, then idleTimeout', () => {
    const state = { workers: [idle('x', 8 * SEC), idle('y', 8 * SEC), running('a')], inFlight: 1 };
    assert.deepEqual(decideScaling(rc(state)).stop, [], 'REQUEST_COUNT: 8 s is within the 10 s stable window');
    assert.deepEqual(decideScaling(base({ ...state, idleTimeoutSec: 5 })).stop, ['x', 'y'], 'QUEUE_DELAY with idleTimeout 5 s');
  });
});
