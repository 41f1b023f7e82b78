// The autoscaling policy, stepped with a virtual clock.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decideScaling, type PolicyWorker, type ScalingInputs } from '../src/domain/scaling-policy.js';

const T0 = 1_000_000;
const idle = (id: string, idleSince = T0): PolicyWorker => ({ workerId: id, state: 'IDLE', busy: 0, idleSince, startedAt: T0 - 60_000 });
const running = (id: string): PolicyWorker => ({ workerId: id, state: 'RUNNING', busy: 1, idleSince: null, startedAt: T0 - 60_000 });
const queueDelay = (extra: Partial<ScalingInputs> = {}): ScalingInputs => ({
  now: T0, queued: 0, queuedLowPriority: 0, oldestQueuedAt: null, inFlight: 0, workers: [],
  min: 0, max: 5, idleTimeoutSec: 10, scaling: { type: 'QUEUE_DELAY', queueDelay: 4 }, ...extra,
});
const requestCount = (extra: Partial<ScalingInputs> = {}): ScalingInputs =>
  queueDelay({ scaling: { type: 'REQUEST_COUNT', requestCount: 2 }, idleTimeoutSec: null, ...extra });

describe('QUEUE_DELAY', () => {
  test('scale-up from zero on the first job is immediate', () => {
    const d = decideScaling(queueDelay({ queued: 1, oldestQueuedAt: T0 }));
    assert.equal(d.start, 1);
  });

  test('jobs waiting up to queueDelay add nothing; past it, enough workers for the backlog', () => {
    const workers = [running('a')];
    assert.equal(decideScaling(queueDelay({ workers, queued: 3, oldestQueuedAt: T0 - 4000 })).start, 0, 'exactly the delay is not over it');
    const d = decideScaling(queueDelay({ workers, queued: 3, oldestQueuedAt: T0 - 4001 }));
    assert.equal(d.start, 3);
    assert.match(d.reason, /over the 4 s queue delay/);
  });

  test('starting and idle workers count as capacity, so a backlog they cover adds nothing', () => {
    const starting: PolicyWorker = { workerId: 's', state: 'INITIALIZING', busy: 0, idleSince: null, startedAt: T0 };
    const d = decideScaling(queueDelay({ workers: [running('a'), starting, idle('b')], queued: 2, oldestQueuedAt: T0 - 10_000 }));
    assert.equal(d.start, 0);
  });

  test('never above max, never below min', () => {
    assert.equal(decideScaling(queueDelay({ workers: [running('a')], queued: 100, oldestQueuedAt: T0 - 60_000 })).start, 4);
    assert.equal(decideScaling(queueDelay({ min: 2 })).start, 2, 'min workers are kept up with nothing to do');
  });

  test('low-priority jobs never cause a scale-up', () => {
    assert.equal(decideScaling(queueDelay({ queuedLowPriority: 50 })).start, 0);
  });

  test('idle workers above min stop after idleTimeout, longest idle first; busy ones never', () => {
    const workers = [idle('newer', T0 - 10_000), idle('older', T0 - 30_000), running('busy')];
    assert.deepEqual(decideScaling(queueDelay({ workers, min: 0 })).stop, ['older', 'newer'], 'exactly idleTimeout counts');
    assert.deepEqual(decideScaling(queueDelay({ workers: [idle('young', T0 - 9_999), running('busy')] })).stop, [], 'not yet idle long enough');
    assert.deepEqual(decideScaling(queueDelay({ workers, min: 2 })).stop, ['older'], 'min is kept');
  });

  test('a lowered max stops idle workers at once', () => {
    const d = decideScaling(queueDelay({ workers: [idle('a', T0), idle('b', T0), running('c')], max: 1 }));
    assert.equal(d.stop.length, 2);
  });

  test('unhealthy workers are no capacity', () => {
    const sick: PolicyWorker = { workerId: 'x', state: 'UNHEALTHY', busy: 0, idleSince: T0, startedAt: T0 };
    assert.equal(decideScaling(queueDelay({ workers: [sick], min: 1 })).start, 1);
  });
});

describe('REQUEST_COUNT', () => {
  test('keeps ceil((queued + in flight) / requestCount) workers', () => {
    assert.equal(decideScaling(requestCount({ queued: 3 })).start, 2);
    assert.equal(decideScaling(requestCount({ queued: 4, inFlight: 1 })).start, 3);
    assert.equal(decideScaling(requestCount({ queued: 100 })).start, 5, 'capped at max');
  });

  test('idle workers above the target stop after the stable window', () => {
    const workers = [idle('a', T0 - 20_000), idle('b', T0 - 5_000), running('c')];
    assert.deepEqual(decideScaling(requestCount({ workers, inFlight: 1 })).stop, ['a']);
  });
});

test('a burst and back to zero, stepped through time', () => {
  let now = T0;
  let workers: PolicyWorker[] = [];
  const step = (queued: number, inFlight: number) => {
    const d = decideScaling(queueDelay({ now, workers, queued, inFlight, oldestQueuedAt: queued > 0 ? now - 5000 : null, max: 3 }));
    for (let i = 0; i < d.start; i++) workers.push({ workerId: `w${now}-${i}`, state: 'IDLE', busy: 0, idleSince: now, startedAt: now });
    workers = workers.filter((w) => !d.stop.includes(w.workerId));
    return d;
  };
  step(10, 0);
  assert.equal(workers.length, 3, 'from zero to max at once for a large backlog');
  workers = workers.map((w) => ({ ...w, state: 'RUNNING', busy: 1, idleSince: null }));
  now += 1000;
  step(7, 3);
  assert.equal(workers.length, 3);
  workers = workers.map((w) => ({ ...w, state: 'IDLE', busy: 0, idleSince: now }));
  now += 9_000;
  step(0, 0);
  assert.equal(workers.length, 3, 'still within idleTimeout');
  now += 1_000;
  step(0, 0);
  assert.equal(workers.length, 0, 'scaled to zero');
});
