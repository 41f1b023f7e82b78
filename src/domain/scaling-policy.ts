// The autoscaling policy: a pure function of the queue, the workers and the caller's clock.
// The worker runtime calls it every tick and carries out the decision. docs/scaling.md has the
// formulas and the reasons behind them.
//   QUEUE_DELAY    from zero: ceil(queued / concurrency) at once. Otherwise, once the oldest
//                  normal-priority job has waited longer than queueDelay seconds, add enough
//                  workers for the backlog the existing (idle and starting) ones cannot take.
//   REQUEST_COUNT  keep ceil((queued + in flight) / requestCount) workers.
// Always within [min, max]. Low-priority jobs never cause a scale-up. Busy workers are never
// stopped; idle ones above the target stop after idleTimeout seconds idle (or, where idleTimeout
// does not apply, after a stable window), longest idle first.
import type { Scaling } from './endpoint-spec.js';

export type PolicyWorkerState = 'INITIALIZING' | 'IDLE' | 'RUNNING' | 'THROTTLED' | 'UNHEALTHY';

export interface PolicyWorker {
  workerId: string;
  state: PolicyWorkerState;
  /** Jobs (or requests) it holds now. */
  busy: number;
  /** When it last became idle (ms); null while busy or not yet up. */
  idleSince: number | null;
  startedAt: number;
}

export interface ScalingInputs {
  /** ms, from the caller's clock. */
  now: number;
  /** Normal-priority jobs waiting. */
  queued: number;
  /** Low-priority jobs waiting: served by workers that exist anyway, never a reason to start one. */
  queuedLowPriority: number;
  /** Submit time (ms) of the oldest normal-priority queued job. */
  oldestQueuedAt: number | null;
  /** Jobs (or requests) being processed. */
  inFlight: number;
  workers: PolicyWorker[];
  min: number;
  max: number;
  /** null where it does not apply (a QUEUE endpoint scaling on REQUEST_COUNT). */
  idleTimeoutSec: number | null;
  scaling: Scaling;
  /** Jobs one worker runs at once; default 1. */
  concurrencyPerWorker?: number;
  /** Idle time before scale-down where idleTimeout does not apply; default DEFAULT_STABLE_WINDOW_MS. */
  stableWindowMs?: number;
}

export interface ScalingDecision {
  /** Workers to start now. */
  start: number;
  /** Workers to stop now: never one that holds a job. */
  stop: string[];
  /** Busy workers above a lowered max: they take no new work, and are stopped once idle. */
  drain: string[];
  /** The target number of (healthy) workers, within [min, max]. */
  desired: number;
  reason: string;
}

/** Long enough to ride out a gap between two requests, short next to a typical idleTimeout (10 s). */
export const DEFAULT_STABLE_WINDOW_MS = 10_000;

interface Target {
  workers: number;
  reason: string;
}

export function decideScaling(inputs: ScalingInputs): ScalingDecision {
  // Unhealthy workers are replaced by the runtime; they are no capacity. Starting and throttled
  // ones are, so a booting worker is not started again on every tick.
  const capacity = inputs.workers.filter((w) => w.state !== 'UNHEALTHY');
  const target =
    inputs.scaling.type === 'REQUEST_COUNT'
      ? requestCountTarget(inputs, inputs.scaling.requestCount)
      : queueDelayTarget(inputs, capacity, inputs.scaling.queueDelay);
  const { desired, reason } = withinBounds(target, inputs.min, inputs.max);
  const current = capacity.length;

  if (desired > current) return { start: desired - current, stop: [], drain: [], desired, reason };
  const stop = pickStops(inputs, capacity, current - desired);
  const drain = pickDrains(inputs, capacity, stop);
  const going = stop.length + drain.length;
  return { start: 0, stop, drain, desired, reason: going > 0 ? `${reason}; stopping ${going} above target` : reason };
}

function queueDelayTarget(inputs: ScalingInputs, capacity: PolicyWorker[], queueDelaySec: number): Target {
  const concurrency = Math.max(1, Math.floor(inputs.concurrencyPerWorker ?? 1));
  const current = capacity.length;
  if (inputs.queued === 0) {
    // Nothing waits: only the workers holding jobs are needed; idle ones may go after their timeout.
    return { workers: capacity.filter((w) => w.busy > 0).length, reason: 'no job waiting' };
  }
  if (current === 0) {
    return { workers: Math.ceil(inputs.queued / concurrency), reason: `${inputs.queued} job(s) waiting and no worker up` };
  }
  const waitedMs = inputs.oldestQueuedAt === null ? 0 : inputs.now - inputs.oldestQueuedAt;
  if (waitedMs <= queueDelaySec * 1000) {
    return { workers: current, reason: `oldest job waited ${seconds(waitedMs)} s, within the ${queueDelaySec} s queue delay` };
  }
  // Free slots of the workers there are: idle ones take a job at once, starting ones soon.
  const spare = capacity.reduce((sum, w) => sum + Math.max(0, concurrency - w.busy), 0);
  const uncovered = Math.max(0, inputs.queued - spare);
  const over = `oldest job waited ${seconds(waitedMs)} s, over the ${queueDelaySec} s queue delay`;
  if (uncovered === 0) return { workers: current, reason: `${over}; existing workers cover the ${inputs.queued} queued` };
  return { workers: current + Math.ceil(uncovered / concurrency), reason: `${over}; ${uncovered} queued beyond existing workers` };
}

function requestCountTarget(inputs: ScalingInputs, requestCount: number): Target {
  const demand = inputs.queued + inputs.inFlight;
  return { workers: Math.ceil(demand / requestCount), reason: `${demand} request(s) at ${requestCount} per worker` };
}

function withinBounds(target: Target, min: number, max: number): { desired: number; reason: string } {
  // max wins should a caller ever pass min > max (endpoint validation rejects it).
  if (target.workers > max) return { desired: max, reason: `${target.reason}; capped at max ${max}` };
  if (target.workers < min) return { desired: Math.min(min, max), reason: `${target.reason}; kept at min ${min}` };
  return { desired: target.workers, reason: target.reason };
}

/**
 * Which workers go when there are `excess` more than desired: throttled ones first (no process
 * yet, nothing lost), then idle ones, longest idle first, once idle for the grace period — at
 * once for those above a lowered max. Busy workers are never picked; starting ones only above a
 * lowered max (holding nothing, they would otherwise linger until their first ping).
 */
function pickStops(inputs: ScalingInputs, capacity: PolicyWorker[], excess: number): string[] {
  if (excess <= 0) return [];
  const graceMs = inputs.idleTimeoutSec === null ? (inputs.stableWindowMs ?? DEFAULT_STABLE_WINDOW_MS) : inputs.idleTimeoutSec * 1000;
  const overMax = Math.max(0, capacity.length - inputs.max);
  const throttled = capacity.filter((w) => w.state === 'THROTTLED' && w.busy === 0);
  const idle = capacity
    .filter((w): w is PolicyWorker & { idleSince: number } => w.state === 'IDLE' && w.busy === 0 && w.idleSince !== null)
    .sort((a, b) => a.idleSince - b.idleSince);
  const stop = throttled.slice(0, excess).map((w) => w.workerId);
  for (const w of idle) {
    if (stop.length >= excess) break;
    if (stop.length < overMax || inputs.now - w.idleSince >= graceMs) stop.push(w.workerId);
  }
  const starting = capacity.filter((w) => w.state === 'INITIALIZING' && w.busy === 0).sort((a, b) => b.startedAt - a.startedAt);
  for (const w of starting) {
    if (stop.length >= Math.min(excess, overMax)) break;
    stop.push(w.workerId);
  }
  return stop;
}

/** Above a lowered max, what stopping idle and booting workers leaves over: the least busy holders of jobs. */
function pickDrains(inputs: ScalingInputs, capacity: PolicyWorker[], stop: string[]): string[] {
  const left = Math.max(0, capacity.length - inputs.max) - stop.length;
  if (left <= 0) return [];
  return capacity
    .filter((w) => w.busy > 0 && !stop.includes(w.workerId))
    .sort((a, b) => a.busy - b.busy)
    .slice(0, left)
    .map((w) => w.workerId);
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);
