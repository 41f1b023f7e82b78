// Stock levels reported by the catalog, computed from this deployment's free capacity.
// A "unit" is what one worker needs: `count` GPUs of a type, or a flavor's vCPUs.
// 0 units: NONE, 1: LOW, 2-3: MEDIUM, 4 or more: HIGH.
import type { CapacityPool, GpuDevice } from './capacity-pool.js';
import type { Catalog, CpuFlavorEntry, GpuTypeEntry } from '../domain/catalog.js';
import { compareCudaVersions, cudaVersionAccepted } from '../domain/cuda.js';
import { flavorTakes } from '../domain/compute-rules.js';

export type AvailabilityLevel = 'NONE' | 'LOW' | 'MEDIUM' | 'HIGH';

export function levelOf(units: number): AvailabilityLevel {
  if (units >= 4) return 'HIGH';
  if (units >= 2) return 'MEDIUM';
  return units >= 1 ? 'LOW' : 'NONE';
}

export interface GpuFilter {
  count: number;
  cudaVersions: string[];
  /** major or major.minor; a bare major means any release of it. */
  minCudaVersion: string | null;
  /** Only SERVERLESS stock exists in Gantry; other products have none. */
  serverless: boolean;
  /** Only stock in these data centers counts (a countryCodes query); all when absent. */
  dataCenterIds?: readonly string[];
}

function floorAccepts(version: string, minimum: string | null): boolean {
  if (minimum === null) return true;
  return compareCudaVersions(version, minimum.includes('.') ? minimum : `${minimum}.0`) >= 0;
}

function matching(devices: GpuDevice[], type: string, filter: GpuFilter): GpuDevice[] {
  return devices.filter(
    (d) =>
      d.type === type &&
      (filter.dataCenterIds === undefined || filter.dataCenterIds.includes(d.dataCenterId)) &&
      cudaVersionAccepted(d.cudaVersion, filter.cudaVersions, null) &&
      floorAccepts(d.cudaVersion, filter.minCudaVersion),
  );
}

/** Units of `count` devices that sit together (same data center and CUDA version). */
function units(devices: GpuDevice[], count: number): number {
  const groups = new Map<string, number>();
  for (const d of devices) groups.set(`${d.dataCenterId}|${d.cudaVersion}`, (groups.get(`${d.dataCenterId}|${d.cudaVersion}`) ?? 0) + 1);
  let total = 0;
  for (const n of groups.values()) total += Math.floor(n / count);
  return total;
}

export function gpuAvailability(gpu: GpuTypeEntry, pool: CapacityPool, catalog: Catalog, filter: GpuFilter) {
  const all = filter.serverless ? matching(pool.gpus, gpu.id, filter) : [];
  const free = filter.serverless ? matching(pool.freeGpus(), gpu.id, filter) : [];
  const dataCenters = [...new Set(all.map((d) => d.dataCenterId))].map((id) => ({
    id,
    name: catalog.dataCenter(id)?.name ?? id,
    availability: levelOf(
      units(
        free.filter((d) => d.dataCenterId === id),
        filter.count,
      ),
    ),
  }));
  // Versions the catalog says this type runs, plus any a machine here reports, narrowed by the filters.
  const versions = [...new Set([...gpu.cudaVersions, ...pool.gpus.filter((d) => d.type === gpu.id).map((d) => d.cudaVersion)])]
    .filter((v) => cudaVersionAccepted(v, filter.cudaVersions, null) && floorAccepts(v, filter.minCudaVersion))
    .sort(compareCudaVersions);
  return {
    availability: levelOf(units(free, filter.count)),
    ...(dataCenters.length > 0 ? { dataCenters } : {}),
    ...(versions.length > 0
      ? {
          cudaVersions: versions.map((version) => ({
            version,
            available:
              units(
                free.filter((d) => d.cudaVersion === version),
                filter.count,
              ) > 0,
          })),
        }
      : {}),
  };
}

export function cpuAvailability(
  flavor: CpuFlavorEntry,
  pool: CapacityPool,
  catalog: Catalog,
  vcpuCount: number | null,
  serverless: boolean,
) {
  const per = vcpuCount ?? flavor.vcpu.min;
  // A size the flavor does not come in is not available, whatever is free.
  const offered = serverless && flavorTakes(flavor, per);
  const sites = offered ? pool.cpus.filter((site) => site.flavors.includes(flavor.id)) : [];
  const unitsIn = (dataCenterId: string) => Math.floor(Math.max(0, pool.freeVcpus(dataCenterId)) / per);
  const dataCenters = [...new Set(sites.map((s) => s.dataCenterId))].map((id) => ({
    id,
    name: catalog.dataCenter(id)?.name ?? id,
    availability: levelOf(unitsIn(id)),
  }));
  const total = dataCenters.reduce((sum, dc) => sum + unitsIn(dc.id), 0);
  return { availability: levelOf(total), ...(dataCenters.length > 0 ? { dataCenters } : {}) };
}

/** Per data center: each GPU type with devices there, and each CPU flavor offered there. */
export function dataCenterAvailability(dataCenterId: string, pool: CapacityPool, catalog: Catalog) {
  const types = [...new Set(pool.gpus.filter((d) => d.dataCenterId === dataCenterId).map((d) => d.type))];
  const gpuAvailability = types.map((type) => ({
    id: type,
    name: catalog.gpuType(type)?.name ?? type,
    availability: levelOf(pool.freeGpus().filter((d) => d.dataCenterId === dataCenterId && d.type === type).length),
  }));
  const flavors = [...new Set(pool.cpus.filter((s) => s.dataCenterId === dataCenterId).flatMap((s) => s.flavors))];
  const cpuAvailability = flavors.map((id) => {
    const flavor = catalog.cpuFlavor(id)!;
    return { id, name: flavor.name, availability: levelOf(Math.floor(Math.max(0, pool.freeVcpus(dataCenterId)) / flavor.vcpu.min)) };
  });
  return { gpuAvailability, cpuAvailability };
}
