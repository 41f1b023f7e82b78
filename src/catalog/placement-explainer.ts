// Why a worker of an endpoint cannot be placed right now, in words an operator can act on:
// nothing of that kind exists here, it exists elsewhere or with another CUDA version, or all of
// it is in use. The pool only says "no"; this says why.
import type { EndpointSpec } from '../domain/endpoint-spec.js';
import type { Catalog } from '../domain/catalog.js';
import { cudaVersionAccepted } from '../domain/cuda.js';
import type { CpuCapacity, GpuDevice } from './capacity-pool.js';

export interface PlacementView {
  gpus: readonly GpuDevice[];
  cpus: readonly CpuCapacity[];
  freeGpus(): GpuDevice[];
  freeVcpus(dataCenterId: string): number;
}

/** Whether the reason is lasting (nothing of the kind here) or passing (in use right now). */
export interface Unplaceable {
  lasting: boolean;
  reason: string;
}

export function explainUnplaceable(spec: EndpointSpec, view: PlacementView, catalog: Catalog): Unplaceable {
  return spec.gpu ? explainGpu(spec, view, catalog) : explainCpu(spec, view);
}

function explainGpu(spec: EndpointSpec, view: PlacementView, catalog: Catalog): Unplaceable {
  const gpu = spec.gpu!;
  const pools = gpu.pools.join(', ');
  const types = new Set(
    catalog
      .gpuTypesInPools(gpu.pools)
      .map((t) => t.id)
      .filter((id) => !gpu.excludedTypes.includes(id)),
  );
  const ofType = view.gpus.filter((d) => types.has(d.type));
  if (view.gpus.length === 0) {
    return {
      lasting: true,
      reason: `no GPU of pool ${pools} on this deployment: it has no GPU at all (none in the capacity file, or nvidia-smi found none); see --capacity-file`,
    };
  }
  if (ofType.length === 0) {
    const here = [...new Set(view.gpus.map((d) => d.type))].join(', ');
    return { lasting: true, reason: `no GPU of pool ${pools} on this deployment, which has ${here}; see --capacity-file` };
  }
  const inPlace = ofType.filter((d) => spec.dataCenterIds.length === 0 || spec.dataCenterIds.includes(d.dataCenterId));
  if (inPlace.length === 0) {
    return {
      lasting: true,
      reason: `the GPUs of pool ${pools} are in ${dataCentersOf(ofType)}, not in the endpoint's data centers ${spec.dataCenterIds.join(', ')}`,
    };
  }
  const cudaOk = inPlace.filter((d) => cudaVersionAccepted(d.cudaVersion, gpu.allowedCudaVersions, gpu.minCudaVersion));
  if (cudaOk.length === 0) {
    const versions = [...new Set(inPlace.map((d) => d.cudaVersion))].join(', ');
    return { lasting: true, reason: `the GPUs of pool ${pools} run CUDA ${versions}, which the endpoint's CUDA settings do not accept` };
  }
  if (cudaOk.length < gpu.count) {
    return {
      lasting: true,
      reason: `the endpoint wants ${gpu.count} GPUs of pool ${pools} on one machine; this deployment has ${cudaOk.length}`,
    };
  }
  const free = new Set(view.freeGpus().map((d) => d.deviceId));
  const available = cudaOk.filter((d) => free.has(d.deviceId)).length;
  return {
    lasting: false,
    reason: `all ${cudaOk.length} GPUs of pool ${pools} that fit are in use (${available} free, ${gpu.count} wanted)`,
  };
}

function explainCpu(spec: EndpointSpec, view: PlacementView): Unplaceable {
  const flavors = (spec.cpu ?? []).map((c) => c.id);
  const sites = view.cpus.filter((site) => flavors.some((f) => site.flavors.includes(f)));
  if (sites.length === 0)
    return { lasting: true, reason: `no capacity for CPU flavor ${flavors.join(', ')} on this deployment; see --capacity-file` };
  const inPlace = sites.filter((s) => spec.dataCenterIds.length === 0 || spec.dataCenterIds.includes(s.dataCenterId));
  if (inPlace.length === 0)
    return {
      lasting: true,
      reason: `CPU flavor ${flavors.join(', ')} is offered in ${[...new Set(sites.map((s) => s.dataCenterId))].join(', ')}, not in the endpoint's data centers`,
    };
  const wanted = Math.min(...(spec.cpu ?? []).map((c) => c.vcpuCount));
  const most = Math.max(...inPlace.map((s) => s.vcpus));
  if (most < wanted) return { lasting: true, reason: `a worker wants ${wanted} vCPUs; the largest site here has ${most}` };
  const free = Math.max(...inPlace.map((s) => view.freeVcpus(s.dataCenterId)));
  return { lasting: false, reason: `the vCPUs are in use: ${free} free, ${wanted} wanted` };
}

function dataCentersOf(devices: readonly GpuDevice[]): string {
  return [...new Set(devices.map((d) => d.dataCenterId))].join(', ');
}
