// The autoscaling policy's tests give decideScaling one state a row: workers in each state, made
// relative to the decision's moment T0, queued jobs that have waited so long, inputs on
// QUEUE_DELAY (`base`) or REQUEST_COUNT (`rc`); `check` makes a test of each row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideScaling, type PolicyWorker, type ScalingInputs } from '../../src/domain/scaling-policy.js';
import type { Scaling } from '../../src/domain/endpoint-spec.js';

export const T0 = 1_000_000;
export const SEC = 1000;
const up = T0 - 600 * SEC;
export const idle = (id: string, idleForMs = 0): PolicyWorker => ({
  workerId: id,
  state: 'IDLE',
  busy: 0,
  idleSince: T0 - idleForMs,
  startedAt: up,
});
export const running = (id: string, busy = 1): PolicyWorker => ({ workerId: id, state: 'RUNNING', busy, idleSince: null, startedAt: up });
export const starting = (id: string): PolicyWorker => ({
  workerId: id,
  state: 'INITIALIZING',
  busy: 0,
  idleSince: null,
  startedAt: T0 - SEC,
});
export const throttled = (id: string): PolicyWorker => ({
  workerId: id,
  state: 'THROTTLED',
  busy: 0,
  idleSince: null,
  startedAt: T0 - SEC,
});
export const unhealthy = (id: string): PolicyWorker => ({
  workerId: id,
  state: 'UNHEALTHY',
  busy: 0,
  idleSince: T0 - 60 * SEC,
  startedAt: up,
});

const QUEUE_DELAY_4: Scaling = { type: 'QUEUE_DELAY', queueDelay: 4 };
const REQUEST_COUNT_2: Scaling = { type: 'REQUEST_COUNT', requestCount: 2 };
/** Queued jobs whose oldest was submitted `waitedMs` ago. */
export const waiting = (queued: number, waitedMs: number) => ({ queued, oldestQueuedAt: T0 - waitedMs });

export const base = (over: Partial<ScalingInputs>): ScalingInputs => ({
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
export const rc = (over: Partial<ScalingInputs>) => base({ scaling: REQUEST_COUNT_2, idleTimeoutSec: null, ...over });

interface Row {
  name: string;
  given: ScalingInputs;
  start: number;
  stop?: string[];
  drain?: string[];
  desired?: number;
  reason?: RegExp;
}

export function check(rows: Row[]) {
  for (const row of rows) {
    test(row.name, () => {
      const d = decideScaling(row.given);
      assert.equal(d.start, row.start, 'start');
      assert.deepEqual(d.stop, row.stop ?? [], 'stop');
      assert.deepEqual(d.drain, row.drain ?? [], 'drain');
      if (row.desired !== undefined) assert.equal(d.desired, row.desired, 'desired');
      if (row.reason) assert.match(d.reason, row.reason);
    });
  }
}
