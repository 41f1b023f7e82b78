// The autoscaling policy over time: a burst and back to zero, on a virtual clock, for each scaler.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decideScaling, type PolicyWorker, type ScalingInputs } from '../src/domain/scaling-policy.js';
import type { Scaling } from '../src/domain/endpoint-spec.js';
import { SEC } from './support/scaling-inputs.js';

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
