// The autoscaling policy starting workers: QUEUE_DELAY's scale-up, one decision a table row, and
// low-priority jobs, which never cause one.
import { describe } from 'node:test';
import { base, check, idle, rc, running, SEC, starting, throttled, unhealthy, waiting } from './support/scaling-inputs.js';

describe('QUEUE_DELAY scale-up', () => {
  check([
    { name: 'the first job with no worker starts one at once', given: base(waiting(1, 0)), start: 1, desired: 1, reason: /no worker up/ },
    { name: 'a backlog with no worker starts one per job at once', given: base(waiting(3, 0)), start: 3 },
    {
      name: 'from zero, the backlog is divided by the per-worker concurrency',
      given: base({ ...waiting(9, 0), concurrencyPerWorker: 4 }),
      start: 3,
    },
    { name: 'from zero, never above max', given: base(waiting(100, 0)), start: 5, desired: 5, reason: /capped at max 5/ },
    { name: 'only unhealthy workers is the same as none', given: base({ ...waiting(1, 0), workers: [unhealthy('x')] }), start: 1 },
    {
      name: 'a wait of exactly queueDelay adds nothing',
      given: base({ ...waiting(3, 4 * SEC), workers: [running('a')] }),
      start: 0,
      desired: 1,
      reason: /within the 4 s queue delay/,
    },
    {
      name: 'a wait just over queueDelay adds a worker per uncovered job',
      given: base({ ...waiting(3, 4 * SEC + 1), workers: [running('a')] }),
      start: 3,
      desired: 4,
      reason: /over the 4 s queue delay; 3 queued/,
    },
    {
      name: 'a fractional queueDelay: exactly 0.5 s holds',
      given: base({ ...waiting(1, 500), workers: [running('a')], scaling: { type: 'QUEUE_DELAY', queueDelay: 0.5 } }),
      start: 0,
    },
    {
      name: 'a fractional queueDelay: 0.501 s adds',
      given: base({ ...waiting(1, 501), workers: [running('a')], scaling: { type: 'QUEUE_DELAY', queueDelay: 0.5 } }),
      start: 1,
    },
    {
      name: 'starting and idle workers cover a backlog as large as they are',
      given: base({ ...waiting(2, 60 * SEC), workers: [running('a'), starting('s'), idle('b')] }),
      start: 0,
      reason: /existing workers cover the 2 queued/,
    },
    {
      name: 'a starting worker covers one job of three',
      given: base({ ...waiting(3, 60 * SEC), workers: [running('a'), starting('s')] }),
      start: 2,
    },
    {
      name: 'a throttled worker counts as capacity',
      given: base({ ...waiting(1, 60 * SEC), workers: [running('a'), throttled('t')] }),
      start: 0,
    },
    {
      name: 'an unhealthy worker is no capacity',
      given: base({ ...waiting(1, 60 * SEC), workers: [running('a'), unhealthy('x')] }),
      start: 1,
    },
    {
      name: 'a running worker with free slots takes part of the backlog',
      given: base({ ...waiting(3, 60 * SEC), workers: [running('a', 1)], concurrencyPerWorker: 2 }),
      start: 1,
    },
    { name: 'never above max with workers up', given: base({ ...waiting(100, 60 * SEC), workers: [running('a')] }), start: 4, desired: 5 },
    {
      name: 'at max, a long backlog starts nothing',
      given: base({ ...waiting(100, 60 * SEC), workers: ['a', 'b', 'c', 'd', 'e'].map((id) => running(id)) }),
      start: 0,
    },
    { name: 'min workers are kept up with nothing to do', given: base({ min: 2 }), start: 2, desired: 2, reason: /kept at min 2/ },
    { name: 'min counts only healthy workers', given: base({ min: 1, workers: [unhealthy('x')] }), start: 1 },
    { name: 'min above max: max wins', given: base({ min: 4, max: 2 }), start: 2, desired: 2 },
  ]);
});

describe('low-priority jobs never cause a scale-up', () => {
  check([
    { name: 'QUEUE_DELAY, no worker: they wait', given: base({ queuedLowPriority: 50 }), start: 0, desired: 0 },
    { name: 'QUEUE_DELAY, workers busy: nothing is added', given: base({ queuedLowPriority: 50, workers: [running('a')] }), start: 0 },
    {
      name: 'QUEUE_DELAY, a normal job beside them: sized for the normal one only',
      given: base({ ...waiting(1, 0), queuedLowPriority: 50 }),
      start: 1,
    },
    { name: 'REQUEST_COUNT, no worker: they wait', given: rc({ queuedLowPriority: 9 }), start: 0 },
  ]);
});
