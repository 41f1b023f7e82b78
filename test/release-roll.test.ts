// Which old-release workers go, and how, as a new release comes up: none while the new one is not
// ready, one for each new worker ready, the busy ones drained rather than cut off, and one whose
// capacity a new worker waits for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planRoll, type StaleWorker } from '../src/runtime/release-roll.js';

const old = (workerId: string, busy: number, draining = false, rested = false, ready = true): StaleWorker => ({
  workerId,
  busy,
  draining,
  rested,
  ready,
});

test('no new worker ready: every old one keeps serving, idle ones too, unless scale-down would stop them', () => {
  assert.deepEqual(planRoll({ side: true, desired: 2, ready: 0, waitingForRoom: 0, stale: [old('a', 1), old('b', 0)] }), {
    stop: [],
    drain: [],
  });
  const quiet = [old('busy', 1), old('idle', 0), old('rested', 0, false, true)];
  assert.deepEqual(planRoll({ side: true, desired: 1, ready: 0, waitingForRoom: 0, stale: quiet }), { stop: ['rested'], drain: [] });
  assert.deepEqual(planRoll({ side: true, desired: 3, ready: 0, waitingForRoom: 0, stale: quiet }), { stop: [], drain: [] }, 'all wanted');
});

test('where new workers cannot run beside old ones, the old go first, ready or not', () => {
  assert.deepEqual(planRoll({ side: false, desired: 0, ready: 0, waitingForRoom: 0, stale: [old('a', 1), old('b', 0)] }), {
    stop: ['b'],
    drain: ['a'],
  });
});

test('each new worker ready lets one old worker go, the idle ones first', () => {
  const stale = [old('busy', 2), old('idle', 0), old('light', 1)];
  assert.deepEqual(planRoll({ side: true, desired: 3, ready: 1, waitingForRoom: 0, stale }), { stop: ['idle'], drain: [] });
  assert.deepEqual(planRoll({ side: true, desired: 3, ready: 2, waitingForRoom: 0, stale }), { stop: ['idle'], drain: ['light'] });
  assert.deepEqual(planRoll({ side: true, desired: 3, ready: 3, waitingForRoom: 0, stale }), { stop: ['idle'], drain: ['busy', 'light'] });
});

test('a new worker waiting for room frees an old one; a draining one stops once idle', () => {
  assert.deepEqual(planRoll({ side: true, desired: 1, ready: 0, waitingForRoom: 1, stale: [old('a', 3)] }), { stop: [], drain: ['a'] });
  assert.deepEqual(planRoll({ side: true, desired: 1, ready: 0, waitingForRoom: 1, stale: [old('a', 3, true)] }), { stop: [], drain: [] });
  assert.deepEqual(planRoll({ side: true, desired: 5, ready: 0, waitingForRoom: 0, stale: [old('a', 0, true)] }), {
    stop: ['a'],
    drain: [],
  });
});

test('nothing wanted (scaled to zero): the old workers go as scale-down has them go, once idle for their grace', () => {
  assert.deepEqual(planRoll({ side: true, desired: 0, ready: 0, waitingForRoom: 0, stale: [old('a', 0), old('b', 1)] }), {
    stop: [],
    drain: [],
  });
  assert.deepEqual(planRoll({ side: true, desired: 0, ready: 0, waitingForRoom: 0, stale: [old('a', 0, false, true), old('b', 1)] }), {
    stop: ['a'],
    drain: [],
  });
});

test('an old worker still starting serves no one: it stops at once', () => {
  assert.deepEqual(
    planRoll({ side: true, desired: 2, ready: 0, waitingForRoom: 0, stale: [old('starting', 0, false, false, false), old('serving', 1)] }),
    { stop: ['starting'], drain: [] },
  );
});
