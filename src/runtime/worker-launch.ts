// What a new worker of an endpoint runs: the endpoint's command and env, the devices it was
// placed on, and either the worker-protocol environment with its own credential (queue
// endpoints) or the HTTP ports it serves on (load-balancing endpoints).
import type { GantryConfig } from '../config.js';
import type { EndpointRecord } from '../store/store.js';
import { httpWorkerSettings } from '../domain/http-worker.js';
import { workerEnvironment } from './worker-env.js';
import type { Allocation } from '../catalog/capacity-pool.js';
import type { WorkerSpec } from './provider.js';

export function launchSpec(
  endpoint: EndpointRecord,
  workerId: string,
  credential: string | undefined,
  allocation: Allocation,
  config: GantryConfig,
): WorkerSpec {
  const { spec } = endpoint;
  const base = {
    workerId,
    endpointId: endpoint.id,
    version: endpoint.version,
    image: spec.image,
    entrypoint: spec.entrypoint,
    cmd: spec.cmd,
    gpuDeviceIds: allocation.deviceIds,
    vcpuCount: allocation.vcpuCount,
  };
  if (spec.type === 'LOAD_BALANCER') {
    const http = httpWorkerSettings(spec);
    return {
      ...base,
      env: {
        ...spec.env,
        PORT: String(http.port),
        PORT_HEALTH: String(http.healthPort),
        HEALTH_CHECK_PATH: http.healthPath,
        RUNPOD_POD_ID: workerId,
        RUNPOD_ENDPOINT_ID: endpoint.id,
      },
      http: { port: http.port, healthPort: http.healthPort },
    };
  }
  if (credential === undefined) throw new Error('a queue worker needs a worker credential');
  // The worker-protocol variables win: an endpoint's env must not point a worker elsewhere.
  // A worker calls the replica that started it, which alone tracks its state (frozen, recycled).
  return { ...base, env: { ...spec.env, ...workerEnvironment(config, endpoint.id, credential, workerId, config.replicaUrl) } };
}
