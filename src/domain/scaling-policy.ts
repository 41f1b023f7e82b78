// The autoscaling policy: a pure function of the queue, the workers and the clock.
//   QUEUE_DELAY    add workers when normal-priority jobs have waited longer than queueDelay
//                  seconds: enough to cover the backlog the existing workers cannot take.
//   REQUEST_COUNT  keep ceil((queued + in flight) / requestCount) workers.
// Always within [min, max]. Scale-up from zero on the first job is immediate. Low-priority jobs
// never cause a scale-up. Busy workers are never stopped; idle ones above the target stop after
// idleTimeout seconds (or, where idleTimeout does not apply, after a short stable window).
import type { Scaling } from './endpoint-spec.js';

export type PolicyWorkerState = 'INITIALIZING' | 'IDLE' | 'RUNNING' | 'THROTTLED' | 'UNHEALTHY';

export interface PolicyWorker {
  workerId: string;
  state: PolicyWorkerState;
  busy: number;
  idleSince: number | null;
  startedAt: number;
}

export interface ScalingInputs {
  now: number;
  queued: number;
  queuedLowPriority: number;
  oldestQueuedAt: number | null;
  inFlight: number;
  workers: PolicyWorker[];
  min: number;
  max: number;
  /** null where it does not apply (a QUEUE endpoint scaling on REQUEST_COUNT). */
  idleTimeoutSec: number | null;
  scaling: Scaling;
  /** Jobs one worker runs at once. */
  concurrencyPerWorker?: number;
  /** Idle time before scale-down where idleTimeout does not apply. */
  stableWindowMs?: number;
}

export interface ScalingDecision {
  start: number;
  stop: string[];
  desired: number;
  reason: string;
}

export const DEFAULT_STABLE_WINDOW_MS = 10_000;

const clamp = (n: number, min: number, max: number) => Math.max(min, Math.min(max, n));

export function decideScaling(inputs: ScalingInputs): ScalingDecision {
  const concurrency = Math.max(1, inputs.concurrencyPerWorker ?? 1);
  // Unhealthy workers are replaced by the runtime; they are no capacity.
  const capacity = inputs.workers.filter((w) => w.state !== 'UNHEALTHY');
  const current = capacity.length;
  const { min, max, scaling } = inputs;
  let target: number;
  let reason: string;

  if (scaling.type === 'REQUEST_COUNT') {
    target = Math.ceil((inputs.queued + inputs.inFlight) / scaling.requestCount);
    reason = `${inputs.queued + inputs.inFlight} requests at ${scaling.requestCount} per worker`;
  } else {
    const waitedMs = inputs.oldestQueuedAt === null ? 0 : inputs.now - inputs.oldestQueuedAt;
    // Room the existing workers have for more jobs: starting ones will take jobs soon too.
    const spare = capacity.filter((w) => w.state !== 'RUNNING').reduce((sum, w) => sum + Math.max(0, concurrency - w.busy), 0);
    const uncovered = Math.max(0, inputs.queued - spare);
    if (inputs.queued > 0 && current === 0) {
      target = Math.ceil(inputs.queued / concurrency);
      reason = 'jobs are waiting and no worker is up';
    } else if (inputs.queued > 0 && waitedMs > scaling.queueDelay * 1000 && uncovered > 0) {
      target = current + Math.ceil(uncovered / concurrency);
      reason = `jobs waited ${(waitedMs / 1000).toFixed(1)} s, over the ${scaling.queueDelay} s queue delay`;
    } else if (inputs.queued > 0) {
      target = current;
      reason = 'queue within its delay';
    } else {
      // Nothing waits: the workers needed are the busy ones; idle ones may go after their timeout.
      target = capacity.filter((w) => w.busy > 0).length;
      reason = 'no job waiting';
    }
  }
  const desired = clamp(target, min, max);

  if (desired > current) return { start: desired - current, stop: [], desired, reason };

  // Scale down: throttled workers first (nothing runs yet), then idle ones, longest idle first.
  const excess = current - desired;
  const graceMs = inputs.idleTimeoutSec === null ? (inputs.stableWindowMs ?? DEFAULT_STABLE_WINDOW_MS) : inputs.idleTimeoutSec * 1000;
  const overMax = Math.max(0, current - max);
  const throttled = capacity.filter((w) => w.state === 'THROTTLED');
  const idle = capacity
    .filter((w) => w.state === 'IDLE' && w.busy === 0 && w.idleSince !== null)
    .sort((a, b) => a.idleSince! - b.idleSince!);
  const stop: string[] = [];
  for (const w of throttled) if (stop.length < excess) stop.push(w.workerId);
  for (const w of idle) {
    if (stop.length >= excess) break;
    // Above max, stop at once; otherwise only after the idle grace.
    if (stop.length < overMax || inputs.now - w.idleSince! >= graceMs) stop.push(w.workerId);
  }
  return { start: 0, stop, desired, reason: stop.length > 0 ? `${reason}; ${stop.length} idle above target` : reason };
}
