// An endpoint as GraphQL's Endpoint: REST's configuration under the legacy names and units.
import type { EndpointRecord, NetworkVolumeRecord } from '../../../store/store.js';
import type { GpuSelection } from '../../../domain/endpoint-spec.js';
import { envList, type GraphQLContext } from '../context.js';

/** A network volume as GraphQL's NetworkVolume. */
export function volumeNode(volume: NetworkVolumeRecord) {
  const { name, size, dataCenterId } = volume.spec;
  return { id: volume.id, name, size, dataCenterId };
}

export function gpuIdsOf(gpu: GpuSelection): string {
  return [...gpu.pools, ...gpu.excludedTypes.map((type) => `-${type}`)].join(',');
}

export function endpointNode(record: EndpointRecord, { accountId, services }: GraphQLContext) {
  const { spec } = record;
  const volumeId = spec.networkVolumes[0];
  return {
    id: record.id,
    name: spec.name,
    templateId: spec.templateId ?? null,
    gpuIds: spec.gpu ? gpuIdsOf(spec.gpu) : null,
    gpuCount: spec.gpu?.count ?? null,
    instanceIds: spec.cpu ? spec.cpu.map((c) => `${c.id}-${c.vcpuCount}-${c.memory}`) : null,
    allowedCudaVersions: spec.gpu ? spec.gpu.allowedCudaVersions.join(',') : null,
    networkVolumeId: volumeId ?? null,
    // Read only when selected; a volume deleted since is none.
    networkVolume: async () => {
      if (volumeId === undefined) return null;
      const volume = (await services.networkVolumes.list(accountId)).find((v) => v.id === volumeId);
      return volume ? volumeNode(volume) : null;
    },
    locations: spec.dataCenterIds.join(','),
    idleTimeout: spec.workers.idleTimeout,
    scalerType: spec.scaling.type,
    scalerValue: spec.scaling.type === 'QUEUE_DELAY' ? spec.scaling.queueDelay : spec.scaling.requestCount,
    workersMin: spec.workers.min,
    workersMax: spec.workers.max,
    workersStandby: null,
    flashBootType: spec.flashboot,
    executionTimeoutMs: spec.timeout,
    env: envList(spec.env),
    type: spec.type,
    version: record.version,
    userId: record.accountId,
    aiKey: null,
    createdAt: record.createdAt,
  };
}
