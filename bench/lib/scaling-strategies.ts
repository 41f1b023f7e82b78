// Scalers for the simulator: Gantry's own policy (the real decideScaling), and a Knative-style
// stable/panic concurrency scaler as an outside baseline.
import { decideScaling, type PolicyWorker } from '../../src/domain/scaling-policy.js';
import type { Scaling } from '../../src/domain/endpoint-spec.js';
import type { Scaler, SimView, SimWorker } from './scaling-simulator.js';

const isReady = (w: SimWorker, now: number) => w.readyAt <= now;
const isBusy = (w: SimWorker, now: number) => w.busyUntil > now;

/** What the worker runtime would report about each simulated worker. */
function policyView(workers: readonly SimWorker[], now: number): PolicyWorker[] {
  return workers.map((w) => ({
    workerId: w.id,
    state: !isReady(w, now) ? 'INITIALIZING' : isBusy(w, now) ? 'RUNNING' : 'IDLE',
    busy: isBusy(w, now) ? 1 : 0,
    idleSince: !isReady(w, now) || isBusy(w, now) ? null : (w.idleSince ?? now),
    startedAt: w.startedAt,
  }));
}

/**
 * The real policy, given what the runtime gives it: idleTimeoutSec null for REQUEST_COUNT on a
 * queue endpoint, so its default stable window applies, as in production.
 */
export function policyScaler(scaling: Scaling, opts: { max: number; idleTimeoutSec: number }): Scaler {
  const idleTimeoutSec = scaling.type === 'REQUEST_COUNT' ? null : opts.idleTimeoutSec;
  return ({ now, queue, workers, inFlight }: SimView) =>
    decideScaling({
      now,
      queued: queue.length,
      queuedLowPriority: 0,
      oldestQueuedAt: queue[0] ?? null,
      inFlight,
      workers: policyView(workers, now),
      min: 0,
      max: opts.max,
      idleTimeoutSec,
      scaling,
    });
}

export interface KnativeSettings {
  max: number;
  stableWindowMs: number;
  panicWindowMs: number;
  /** Panic when the panic-window demand reaches this many times the ready workers. */
  panicThreshold: number;
  /** Concurrent requests one worker should hold. */
  targetConcurrency: number;
  /** The last worker is kept this long after the stable figure reaches zero. */
  scaleToZeroGraceMs: number;
  /** Never below floor(current / rate) in one tick (Knative's max-scale-down-rate). */
  maxScaleDownRate: number;
}

export const KNATIVE_DEFAULTS: Omit<KnativeSettings, 'max'> = {
  stableWindowMs: 60_000,
  panicWindowMs: 6_000,
  panicThreshold: 2,
  targetConcurrency: 1,
  scaleToZeroGraceMs: 30_000,
  maxScaleDownRate: 2,
};

/**
 * Knative's KPA, reduced to what matters here: the desired count is the average observed
 * concurrency (queued + in flight) over the stable window divided by the target; when the panic
 * window's figure reaches 2x the ready workers it panics, follows the panic window and never
 * scales down until a stable window has passed without a panic reading.
 */
export function knativeScaler(s: KnativeSettings): Scaler {
  const samples: { at: number; concurrency: number }[] = [];
  let panicSince: number | null = null;
  let panicPeak = 0;
  let zeroSince: number | null = null;
  return ({ now, queue, workers, inFlight }: SimView) => {
    const concurrency = queue.length + inFlight;
    samples.push({ at: now, concurrency });
    while (samples.length > 0 && samples[0]!.at <= now - s.stableWindowMs) samples.shift();
    const desiredOver = (windowMs: number) => {
      const inWindow = samples.filter((x) => x.at > now - windowMs);
      const average = inWindow.reduce((sum, x) => sum + x.concurrency, 0) / inWindow.length;
      return Math.ceil(average / s.targetConcurrency);
    };
    const stable = desiredOver(s.stableWindowMs);
    const panic = desiredOver(s.panicWindowMs);
    const ready = Math.max(1, workers.filter((w) => isReady(w, now)).length);
    if (panic / ready >= s.panicThreshold) panicSince = now;
    else if (panicSince !== null && now - panicSince >= s.stableWindowMs) panicSince = null;

    const current = workers.length;
    let desired: number;
    if (panicSince !== null) {
      panicPeak = Math.max(panicPeak, panic, current);
      zeroSince = null;
      desired = panicPeak;
    } else {
      panicPeak = 0;
      desired = Math.max(stable, Math.floor(current / s.maxScaleDownRate));
      // Down to zero only once the stable figure has said zero for the whole grace period.
      zeroSince = stable === 0 ? (zeroSince ?? now) : null;
      if (desired === 0 && now - (zeroSince ?? now) < s.scaleToZeroGraceMs) desired = Math.min(current, 1);
    }
    desired = Math.min(s.max, desired);
    if (desired > current) return { start: desired - current, stop: [] };
    const idle = workers.filter((w) => isReady(w, now) && !isBusy(w, now)).map((w) => w.id);
    return { start: 0, stop: idle.slice(0, current - desired) };
  };
}
