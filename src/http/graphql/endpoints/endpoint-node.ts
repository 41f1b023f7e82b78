// An endpoint as GraphQL's Endpoint: REST's configuration under the legacy names and units.
import type { EndpointRecord } from '../../../store/store.js';
import type { GpuSelection } from '../../../domain/endpoint-spec.js';
import { envList } from '../context.js';

export function gpuIdsOf(gpu: GpuSelection): string {
  return [...gpu.pools, ...gpu.excludedTypes.map((type) => `-${type}`)].join(',');
}

export function endpointNode(record: EndpointRecord) {
  const { spec } = record;
  return {
    id: record.id,
    name: spec.name,
    templateId: spec.templateId ?? null,
    gpuIds: spec.gpu ? gpuIdsOf(spec.gpu) : null,
    gpuCount: spec.gpu?.count ?? null,
    instanceIds: spec.cpu ? spec.cpu.map((c) => `${c.id}-${c.vcpuCount}-${c.memory}`) : null,
    allowedCudaVersions: spec.gpu ? spec.gpu.allowedCudaVersions.join(',') : null,
    networkVolumeId: spec.networkVolumes[0] ?? null,
    // Gantry has no network volumes to describe yet.
    networkVolume: null,
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
