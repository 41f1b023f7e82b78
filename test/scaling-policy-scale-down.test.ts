// The autoscaling policy stopping workers: idle ones after idleTimeout, longest idle first, down to
// min or a lowered max, and never one that holds a job. One decision a table row.
import { describe } from 'node:test';
import { base, check, idle, running, SEC, starting, T0, throttled, unhealthy, waiting } from './support/scaling-inputs.js';

describe('scale-down', () => {
  check([
    {
      name: 'an idle worker stops after exactly idleTimeout',
      given: base({ workers: [idle('a', 10 * SEC)] }),
      start: 0,
      stop: ['a'],
      desired: 0,
    },
    { name: 'an idle worker stays 1 ms short of idleTimeout', given: base({ workers: [idle('a', 10 * SEC - 1)] }), start: 0, stop: [] },
    {
      name: 'longest idle first; the busy one stays',
      given: base({ workers: [idle('newer', 10 * SEC), idle('older', 30 * SEC), running('busy')] }),
      start: 0,
      stop: ['older', 'newer'],
    },
    {
      name: 'min is kept: the longest idle goes',
      given: base({ min: 2, workers: [idle('newer', 10 * SEC), idle('older', 30 * SEC), running('busy')] }),
      start: 0,
      stop: ['older'],
    },
    {
      name: 'busy workers are never stopped, even above a lowered max: they drain (no new job), to stop once idle',
      given: base({ max: 0, workers: [running('a'), running('b')] }),
      start: 0,
      stop: [],
      drain: ['a', 'b'],
      desired: 0,
    },
    {
      name: 'a lowered max stops idle workers at once, and drains busy ones only beyond them',
      given: base({ max: 1, workers: [idle('a'), idle('b'), running('c')] }),
      start: 0,
      stop: ['a', 'b'],
    },
    {
      name: 'a lowered max drains the least busy holders of jobs',
      given: base({ max: 1, workers: [running('two', 2), running('one', 1), running('three', 3)] }),
      start: 0,
      stop: [],
      drain: ['one', 'two'],
    },
    {
      name: 'a throttled worker not needed goes first, without waiting',
      given: base({ workers: [idle('a', 60 * SEC), throttled('t')] }),
      start: 0,
      stop: ['t', 'a'],
    },
    { name: 'a starting worker within max is never stopped', given: base({ workers: [starting('s')] }), start: 0, stop: [] },
    {
      name: 'a worker holding a job is never stopped, whatever its idleSince says',
      given: base({
        max: 0,
        workers: [
          { ...running('a'), idleSince: T0 - 60 * SEC },
          { ...starting('s'), busy: 1, idleSince: T0 - 60 * SEC },
        ],
      }),
      start: 0,
      stop: [],
      drain: ['a', 's'],
    },
    {
      name: 'a lowered max stops starting workers that hold nothing, after idle ones, newest first',
      given: base({
        max: 1,
        workers: [
          idle('a'),
          { ...starting('old'), startedAt: T0 - 9 * SEC },
          { ...starting('new'), startedAt: T0 - 2 * SEC },
          running('c'),
        ],
      }),
      start: 0,
      stop: ['a', 'new', 'old'],
    },
    {
      name: 'max 0 stops a worker still starting',
      given: base({ min: 0, max: 0, workers: [starting('s')] }),
      start: 0,
      stop: ['s'],
    },
    {
      name: 'idle workers stay while jobs wait within the delay',
      given: base({ ...waiting(1, 0), workers: [idle('a', 60 * SEC)] }),
      start: 0,
      stop: [],
    },
    { name: 'unhealthy workers are left to the runtime', given: base({ workers: [unhealthy('x')] }), start: 0, stop: [] },
  ]);
});
