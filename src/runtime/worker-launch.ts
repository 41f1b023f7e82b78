// What every new worker of an endpoint runs, whatever its kind: the endpoint's command and env
// and the devices it was placed on. Each kind adds what it needs (runtime/kinds/).
import type { EndpointRecord } from '../store/store.js';
import type { Allocation } from '../catalog/capacity-pool.js';
import type { WorkerSpec } from './provider.js';

export function baseLaunchSpec(endpoint: EndpointRecord, workerId: string, allocation: Allocation): WorkerSpec {
  const { spec } = endpoint;
  return {
    workerId,
    endpointId: endpoint.id,
    version: endpoint.version,
    image: spec.image,
    entrypoint: spec.entrypoint,
    cmd: spec.cmd,
    env: { ...spec.env },
    gpuDeviceIds: allocation.deviceIds,
    vcpuCount: allocation.vcpuCount,
  };
}
