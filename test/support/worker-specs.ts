// The smallest WorkerSpec a provider test starts: one vCPU, no GPU, no ports; `extra` overrides.
import type { WorkerSpec } from '../../src/runtime/provider.js';

export function aWorkerSpec(extra: Partial<WorkerSpec> & Pick<WorkerSpec, 'workerId' | 'image'>): WorkerSpec {
  return {
    endpointId: 'ep',
    version: 1,
    entrypoint: [],
    cmd: [],
    env: {},
    gpuDeviceIds: [],
    vcpuCount: 1,
    memoryGb: null,
    ports: [],
    diskGb: 5,
    ...extra,
  };
}
