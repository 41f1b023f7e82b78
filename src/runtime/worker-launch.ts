// What a new worker of an endpoint runs: the endpoint's command and env, the worker-protocol
// environment with its own credential, and the devices it was placed on.
import type { GantryConfig } from '../config.js';
import type { EndpointRecord } from '../store/store.js';
import { workerEnvironment } from '../services/worker-env.js';
import type { Allocation } from './capacity-pool.js';
import type { WorkerSpec } from './provider.js';

export function launchSpec(
  endpoint: EndpointRecord,
  workerId: string,
  credential: string,
  allocation: Allocation,
  config: GantryConfig,
): WorkerSpec {
  const { spec } = endpoint;
  return {
    workerId,
    endpointId: endpoint.id,
    version: endpoint.version,
    image: spec.image,
    entrypoint: spec.entrypoint,
    cmd: spec.cmd,
    // The worker-protocol variables win: an endpoint's env must not point a worker elsewhere.
    env: { ...spec.env, ...workerEnvironment(config, endpoint.id, credential, workerId) },
    gpuDeviceIds: allocation.deviceIds,
    vcpuCount: allocation.vcpuCount,
  };
}
