// A worker Gantry started, and its state as the API shows it: THROTTLED (waiting for capacity),
// INITIALIZING (started, not yet taking jobs), IDLE, RUNNING, or UNHEALTHY (reported so, missed
// its pings, or never came up).
import type { WorkerActivity } from './worker-registry.js';
import type { Allocation } from '../catalog/capacity-pool.js';
import type { EndpointType } from '../domain/endpoint-spec.js';
import type { WorkerState } from '../domain/workers.js';


export interface ManagedWorker {
  workerId: string;
  endpointId: string;
  /** QUEUE workers take jobs through the worker protocol; LOAD_BALANCER ones serve HTTP. */
  routing: EndpointType;
  /** The endpoint configuration version it runs. */
  version: number;
  image: string;
  /** THROTTLED: no process yet; RUNNING: process up; FROZEN: kept for FlashBoot; STOPPING: on its way out. */
  phase: 'THROTTLED' | 'RUNNING' | 'FROZEN' | 'STOPPING';
  createdAt: number;
  processStartedAt: number | null;
  frozenAt: number | null;
  allocation: Allocation | null;
  pid: number | null;
}

export interface StateTimings {
  workerPingIntervalMs: number;
  workerInitTimeoutMs: number;
}

export function deriveState(worker: ManagedWorker, activity: WorkerActivity | undefined, now: number, timings: StateTimings): WorkerState {
  if (worker.phase === 'THROTTLED') return 'THROTTLED';
  const startedAt = worker.processStartedAt ?? worker.createdAt;
  if (!activity || activity.lastSeenAt < startedAt) {
    return now - startedAt > timings.workerInitTimeoutMs ? 'UNHEALTHY' : 'INITIALIZING';
  }
  if (activity.unhealthy !== undefined) return 'UNHEALTHY';
  // Three missed pings while not waiting on a take: the process is stuck or gone.
  if (activity.openTakes === 0 && now - activity.lastSeenAt > 3 * timings.workerPingIntervalMs) return 'UNHEALTHY';
  return activity.busy > 0 ? 'RUNNING' : 'IDLE';
}

/** What the balancer knows of a load-balancing worker. */
export interface HttpWorkerHealth {
  health: 'INITIALIZING' | 'READY' | 'UNHEALTHY';
  lastReadyAt: number | null;
  inFlight: number;
}

/** A load-balancing worker's state from its health checks and the requests it holds. */
export function deriveHttpState(worker: ManagedWorker, backend: HttpWorkerHealth | undefined, now: number, timings: StateTimings): WorkerState {
  if (worker.phase === 'THROTTLED') return 'THROTTLED';
  if (!backend || backend.health === 'INITIALIZING') {
    // Back to initializing after it was ready (a reload, say) is the worker's own business.
    if (backend?.lastReadyAt != null) return 'INITIALIZING';
    const startedAt = worker.processStartedAt ?? worker.createdAt;
    return now - startedAt > timings.workerInitTimeoutMs ? 'UNHEALTHY' : 'INITIALIZING';
  }
  if (backend.health === 'UNHEALTHY') return 'UNHEALTHY';
  return backend.inFlight > 0 ? 'RUNNING' : 'IDLE';
}
