// The autoscaling policy: one decision per table row, then whole scenarios on a virtual clock.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decideScaling, type PolicyWorker, type ScalingInputs } from '../src/domain/scaling-policy.js';
import type { Scaling } from '../src/domain/endpoint-spec.js';

const T0 = 1_000_000;
const SEC = 1000;
const up = T0 - 600 * SEC;
const idle = (id: string, idleForMs = 0): PolicyWorker => ({
  workerId: id,
  state: 'IDLE',
  busy: 0,
  idleSince: T0 - idleForMs,
  startedAt: up,
});
const running = (id: string, busy = 1): PolicyWorker => ({ workerId: id, state: 'RUNNING', busy, idleSince: null, startedAt: up });
const starting = (id: string): PolicyWorker => ({ workerId: id, state: 'INITIALIZING', busy: 0, idleSince: null, startedAt: T0 - SEC });
const throttled = (id: string): PolicyWorker => ({ workerId: id, state: 'THROTTLED', busy: 0, idleSince: null, startedAt: T0 - SEC });
const unhealthy = (id: string): PolicyWorker => ({ workerId: id, state: 'UNHEALTHY', busy: 0, idleSince: T0 - 60 * SEC, startedAt: up });

const QUEUE_DELAY_4: Scaling = { type: 'QUEUE_DELAY', queueDelay: 4 };
const REQUEST_COUNT_2: Scaling = { type: 'REQUEST_COUNT', requestCount: 2 };
/** Queued jobs whose oldest was submitted `waitedMs` ago. */
const waiting = (queued: number, waitedMs: number) => ({ queued, oldestQueuedAt: T0 - waitedMs });

const base = (over: Partial<ScalingInputs>): ScalingInputs => ({
  now: T0,
  queued: 0,
  queuedLowPriority: 0,
  oldestQueuedAt: null,
  inFlight: 0,
  workers: [],
  min: 0,
  max: 5,
  idleTimeoutSec: 10,
  scaling: QUEUE_DELAY_4,
  ...over,
});
/** A QUEUE endpoint on REQUEST_COUNT: idleTimeout does not apply. */
const rc = (over: Partial<ScalingInputs>) => base({ scaling: REQUEST_COUNT_2, idleTimeoutSec: null, ...over });

interface Row {
  name: string;
  given: ScalingInputs;
  start: number;
  stop?: string[];
  desired?: number;
  reason?: RegExp;
}

function check(rows: Row[]) {
  for (const row of rows) {
    test(row.name, () => {
      const d = decideScaling(row.given);
      assert.equal(d.start, row.start, 'start');
      assert.deepEqual(d.stop, row.stop ?? [], 'stop');
      if (row.desired !== undefined) assert.equal(d.desired, row.desired, 'desired');
      if (row.reason) assert.match(d.reason, row.reason);
    });
  }
}

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
      name: 'busy workers are never stopped, even above a lowered max',
      given: base({ max: 0, workers: [running('a'), running('b')] }),
      start: 0,
      stop: [],
      desired: 0,
    },
    {
      name: 'a lowered max stops idle workers at once',
      given: base({ max: 1, workers: [idle('a'), idle('b'), running('c')] }),
      start: 0,
      stop: ['a', 'b'],
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

// A tiny endpoint on a virtual clock: 1 s ticks, 3 s cold starts, 2 s jobs, one job per worker,
// normal-priority jobs taken before low-priority ones.
interface VirtualWorker {
  id: string;
  startedAt: number;
  readyAt: number;
  busyUntil: number;
  idleSince: number | null;
}
interface Arrival {
  at: number;
  count: number;
  lowPriority?: boolean;
}

function runScenario(arrivals: Arrival[], config: Pick<ScalingInputs, 'scaling' | 'idleTimeoutSec' | 'max'>, untilSec: number) {
  const COLD_MS = 3 * SEC;
  const JOB_MS = 2 * SEC;
  const normal: number[] = [];
  const low: number[] = [];
  let workers: VirtualWorker[] = [];
  let started = 0;
  const counts: number[] = [];
  for (let now = 0; now <= untilSec * SEC; now += SEC) {
    for (const a of arrivals.filter((x) => x.at * SEC === now)) (a.lowPriority ? low : normal).push(...Array<number>(a.count).fill(now));
    for (const w of workers.filter((x) => x.readyAt <= now && x.busyUntil <= now)) {
      w.idleSince ??= Math.max(w.readyAt, w.busyUntil);
      if (normal.length + low.length === 0) continue;
      (normal.length > 0 ? normal : low).shift();
      Object.assign(w, { busyUntil: now + JOB_MS, idleSince: null });
    }
    const view: PolicyWorker[] = workers.map((w) => ({
      workerId: w.id,
      state: w.readyAt > now ? 'INITIALIZING' : w.busyUntil > now ? 'RUNNING' : 'IDLE',
      busy: w.busyUntil > now ? 1 : 0,
      idleSince: w.busyUntil > now || w.readyAt > now ? null : w.idleSince,
      startedAt: w.startedAt,
    }));
    const d = decideScaling({
      now,
      queued: normal.length,
      queuedLowPriority: low.length,
      oldestQueuedAt: normal[0] ?? null,
      inFlight: view.filter((w) => w.busy > 0).length,
      workers: view,
      min: 0,
      ...config,
    });
    for (const id of d.stop) assert.equal(view.find((w) => w.workerId === id)?.busy, 0, `worker ${id} stopped while busy at ${now} ms`);
    workers = workers.filter((w) => !d.stop.includes(w.id));
    for (let i = 0; i < d.start; i++)
      workers.push({ id: `w${started++}`, startedAt: now, readyAt: now + COLD_MS, busyUntil: 0, idleSince: null });
    assert.ok(workers.length <= config.max, `above max at ${now} ms`);
    counts.push(workers.length);
  }
  return { counts, started, leftQueued: normal.length + low.length };
}

/** Worker count per second as [count, fromSec] runs. */
function timeline(runs: [count: number, fromSec: number][], untilSec: number): number[] {
  return Array.from({ length: untilSec + 1 }, (_, s) => runs.filter(([, from]) => from <= s).at(-1)![0]);
}

describe('a burst and back to zero on a virtual clock', () => {
  // 8 jobs at 10 s, a low-priority job at 30 s (starts nothing), one normal job at 40 s (its
  // worker then serves the low-priority one too).
  const arrivals: Arrival[] = [
    { at: 10, count: 8 },
    { at: 30, count: 1, lowPriority: true },
    { at: 40, count: 1 },
  ];
  const scenarios = [
    {
      scaler: 'QUEUE_DELAY 1 s, idleTimeout 5 s',
      config: { scaling: { type: 'QUEUE_DELAY', queueDelay: 1 } as Scaling, idleTimeoutSec: 5, max: 4 },
      // up to max at once, held while booting and working (10-17 s), idle 17 s, stopped 22 s
      expected: timeline(
        [
          [0, 0],
          [4, 10],
          [0, 22],
          [1, 40],
          [0, 52],
        ],
        60,
      ),
    },
    {
      scaler: 'REQUEST_COUNT 1, 10 s stable window',
      config: { scaling: { type: 'REQUEST_COUNT', requestCount: 1 } as Scaling, idleTimeoutSec: null, max: 4 },
      expected: timeline(
        [
          [0, 0],
          [4, 10],
          [0, 27],
          [1, 40],
          [0, 57],
        ],
        60,
      ),
    },
  ];
  for (const s of scenarios) {
    test(s.scaler, () => {
      const r = runScenario(arrivals, s.config, 60);
      assert.deepEqual(r.counts, s.expected);
      assert.equal(r.started, 5, 'no repeated starts while workers boot');
      assert.equal(r.leftQueued, 0, 'every job served');
    });
  }
});
