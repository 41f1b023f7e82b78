// What differs between the kinds of worker the runtime runs, behind one shape: queue workers
// take jobs through the worker protocol; HTTP (load-balancing) workers serve requests the
// balancer forwards. The control loop places, starts, freezes, thaws and stops workers the same
// way for both and asks their kind about everything else.
import type { Allocation } from '../../catalog/capacity-pool.js';
import type { EndpointType } from '../../domain/endpoint-spec.js';
import type { ScalingInputs } from '../../domain/scaling-policy.js';
import type { WorkerState } from '../../domain/workers.js';
import type { EndpointRecord } from '../../store/store.js';
import type { ManagedWorker } from '../managed-worker.js';
import type { WorkerHandle, WorkerSpec } from '../provider.js';

/** The work waiting and running for an endpoint, as the scaling policy reads it. */
export type Demand = Pick<ScalingInputs, 'queued' | 'queuedLowPriority' | 'oldestQueuedAt' | 'inFlight'>;

/** Jobs or requests a worker holds now, and since when it holds none (null while busy or not yet up). */
export interface WorkerLoad {
  busy: number;
  idleSince: number | null;
}

/** How a kind wakes the control loop when its work cannot wait for the next tick. */
export interface Wakeups {
  /** A pass now. */
  passNow(): void;
  /** A pass now if the endpoint has no worker at all (scale from zero); else the next tick decides. */
  scaleFromZero(endpointId: string): void;
}

export interface WorkerKind {
  /** What the provider is asked to run: the endpoint's command with this kind's environment. */
  launchSpec(endpoint: EndpointRecord, workerId: string, allocation: Allocation): Promise<WorkerSpec>;
  /** The provider started the worker: work may be routed to it (at the address in the handle). */
  started(worker: ManagedWorker, endpoint: EndpointRecord, handle: WorkerHandle): void;
  state(worker: ManagedWorker, now: number): WorkerState;
  load(worker: ManagedWorker): WorkerLoad;
  /** The worker got as far as serving, so its endpoint's crash streak is over. */
  hasServed(worker: ManagedWorker): boolean;
  /** Why a running worker must be replaced now (unhealthy for long enough, asked to be recycled), if it must. */
  replaceReason(worker: ManagedWorker, now: number): string | undefined;
  /** No new work for the worker (frozen, or on its way out) / work again (thawed). */
  park(workerId: string): void;
  unpark(worker: ManagedWorker): void;
  /** The worker is being stopped: it gets no new work, and whatever waits for work is let go now. */
  retire(workerId: string): void;
  /** The worker is gone: forget what is known of it. */
  forget(workerId: string): void;
  /**
   * The worker is gone unasked or for good: work it held goes back to be served by another. A
   * worker that `crashed` lost that work, which counts against each job as a lapsed lease does.
   */
  releaseWork(workerId: string, crashed: boolean): Promise<void>;
  demand(endpoint: EndpointRecord): Promise<Demand>;
  /** The endpoints that exist now: work waiting for any other (deleted) is let go. */
  endpointsLive?(live: ReadonlySet<string>): void;
  /** Wakes the loop when this kind's work waits for a worker; returns the unsubscribe. */
  listen(wake: Wakeups): () => void;
}

export type WorkerKinds = Record<EndpointType, WorkerKind>;
