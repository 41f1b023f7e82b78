// What every new worker of an endpoint runs, whatever its kind: the endpoint's command, its env
// with secret references resolved, and the devices it was placed on. Each kind adds what it needs
// (runtime/kinds/).
import type { EndpointRecord } from '../store/store.js';
import type { Allocation } from '../catalog/capacity-pool.js';
import type { WorkerSpec } from './provider.js';
import type { SecretEnvironment } from './ports.js';

export async function baseLaunchSpec(
  endpoint: EndpointRecord,
  workerId: string,
  allocation: Allocation,
  secrets: SecretEnvironment,
): Promise<WorkerSpec> {
  const { spec } = endpoint;
  return {
    workerId,
    endpointId: endpoint.id,
    version: endpoint.version,
    image: spec.image,
    entrypoint: spec.entrypoint,
    cmd: spec.cmd,
    // Resolved at every start, so a rotated secret reaches the workers started after the rotation.
    env: await secrets.resolve(endpoint.accountId, spec.env),
    gpuDeviceIds: allocation.deviceIds,
    vcpuCount: allocation.vcpuCount,
    memoryGb: spec.cpu?.find((c) => c.id === allocation.cpuFlavor && c.vcpuCount === allocation.vcpuCount)?.memory ?? null,
    ports: spec.ports,
    diskGb: spec.disk,
  };
}
