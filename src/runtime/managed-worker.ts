// A worker Gantry started, as the control loop keeps it. Its state as the API shows it
// (THROTTLED, INITIALIZING, IDLE, RUNNING, UNHEALTHY) comes from its kind (kinds/).
import type { Allocation } from '../catalog/capacity-pool.js';
import type { EndpointType } from '../domain/endpoint-spec.js';
import { randomId } from '../domain/ids.js';
import type { EndpointRecord } from '../store/store.js';

export interface ManagedWorker {
  workerId: string;
  endpointId: string;
  /** QUEUE workers take jobs through the worker protocol; LOAD_BALANCER ones serve HTTP. */
  routing: EndpointType;
  /** The endpoint configuration version it runs. */
  version: number;
  image: string;
  /**
   * THROTTLED: no place yet; STARTING: placed, the provider is starting it (pulling its image, say);
   * RUNNING: process up; FROZEN: kept for FlashBoot; STOPPING: on its way out.
   */
  phase: 'THROTTLED' | 'STARTING' | 'RUNNING' | 'FROZEN' | 'STOPPING';
  /** What a start in progress is doing, as the provider last said ("pulling image x: 40%"). */
  statusMessage: string | null;
  createdAt: number;
  processStartedAt: number | null;
  frozenAt: number | null;
  allocation: Allocation | null;
  pid: number | null;
}

/** A worker about to be placed: THROTTLED until capacity is found and it starts. */
export function newManagedWorker(endpoint: EndpointRecord, now: number): ManagedWorker {
  return {
    workerId: `${endpoint.id.slice(0, 6)}-${randomId(8)}`,
    endpointId: endpoint.id,
    routing: endpoint.spec.type,
    version: endpoint.version,
    image: endpoint.spec.image,
    phase: 'THROTTLED',
    statusMessage: null,
    createdAt: now,
    processStartedAt: null,
    frozenAt: null,
    allocation: null,
    pid: null,
  };
}
