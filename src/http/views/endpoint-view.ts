// The endpoint as clients see it: stored configuration plus request URLs, minus what does not apply.
import type { GantryConfig } from '../../config.js';
import type { EndpointRecord } from '../../store/store.js';
import { idleTimeoutApplies, type EndpointSpec } from '../../domain/endpoint-spec.js';
import { httpWorkerSettings } from '../../domain/http-worker.js';

export function requestUrls(id: string, spec: EndpointSpec, config: GantryConfig) {
  if (spec.type === 'LOAD_BALANCER') {
    const base = config.lbUrlPattern.replaceAll('{id}', id);
    return { base, health: `${base}${httpWorkerSettings(spec).healthPath}` };
  }
  const root = `${config.workerApiUrl}/v2/${id}`;
  return {
    run: `${root}/run`,
    runSync: `${root}/runsync`,
    status: `${root}/status/{job_id}`,
    stream: `${root}/stream/{job_id}`,
    cancel: `${root}/cancel/{job_id}`,
    retry: `${root}/retry/{job_id}`,
    purgeQueue: `${root}/purge-queue`,
    health: `${root}/health`,
  };
}

export function endpointView(record: EndpointRecord, config: GantryConfig) {
  const { spec } = record;
  const { min, max, idleTimeout } = spec.workers;
  return {
    id: record.id,
    name: spec.name,
    type: spec.type,
    version: record.version,
    requestUrls: requestUrls(record.id, spec, config),
    image: spec.image,
    args: spec.args,
    entrypoint: spec.entrypoint,
    cmd: spec.cmd,
    disk: spec.disk,
    ports: spec.ports,
    env: spec.env,
    registry: spec.registry,
    gpu: spec.gpu,
    ...(spec.cpu ? { cpu: spec.cpu } : {}),
    workers: idleTimeoutApplies(spec.type, spec.scaling) ? { min, max, idleTimeout } : { min, max },
    scaling: spec.scaling,
    dataCenterIds: spec.dataCenterIds,
    networkVolumes: spec.networkVolumes,
    timeout: spec.timeout,
    flashboot: spec.flashboot,
    createdAt: record.createdAt,
  };
}
