// What every new worker of an endpoint runs, whatever its kind: the endpoint's command, its env
// with secret references resolved, and the devices it was placed on. Each kind adds what it needs
// (runtime/kinds/); startOnProvider hands the result to the provider and waits for its start.
import type { EndpointRecord } from '../store/store.js';
import type { Allocation } from '../catalog/capacity-pool.js';
import type { Provider, WorkerHandle, WorkerSpec } from './provider.js';
import type { Logger } from '../domain/logger.js';
import type { WorkerKind } from './kinds/worker-kind.js';
import type { ManagedWorker } from './managed-worker.js';
import type { EndpointVolume } from './volumes/volume-mounts.js';
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

/**
 * Asks the provider to start a placed worker, its progress kept in statusMessage: the handle, or
 * the error it could not start with (the provider is told to stop whatever it made of it).
 */
export async function startOnProvider(
  deps: { provider: Provider; log: Logger; kind: Pick<WorkerKind, 'launchSpec'> },
  worker: ManagedWorker,
  endpoint: EndpointRecord,
  allocation: Allocation,
  volume: EndpointVolume | undefined,
): Promise<WorkerHandle | Error> {
  const { provider, log, kind } = deps;
  try {
    const spec = await kind.launchSpec(endpoint, worker.workerId, allocation);
    if (volume) spec.networkVolume = { volumeId: volume.volumeId, hostPath: volume.hostPath };
    return await provider.start(spec, {
      onProgress: (message) => {
        worker.statusMessage = message;
        log.info({ workerId: worker.workerId, endpointId: endpoint.id, message }, 'worker starting');
      },
    });
  } catch (err) {
    await provider.stop(worker.workerId, 0).catch(() => undefined);
    log.warn({ err, endpointId: endpoint.id }, 'worker could not start');
    return err instanceof Error ? err : new Error(String(err));
  } finally {
    worker.statusMessage = null;
  }
}
