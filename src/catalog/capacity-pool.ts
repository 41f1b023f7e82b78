// What this deployment can run and what is in use: GPUs (each with its device id, type, CUDA
// version and data center) and vCPUs per data center. Workers are placed by the endpoint's
// selection; a worker that cannot be placed waits THROTTLED until capacity frees up.
import type { Catalog } from '../domain/catalog.js';
import { cudaVersionAccepted } from '../domain/cuda.js';
import type { EndpointSpec, GpuSelection } from '../domain/endpoint-spec.js';

export interface GpuDevice {
  deviceId: string;
  type: string;
  cudaVersion: string;
  dataCenterId: string;
}

export interface CpuCapacity {
  vcpus: number;
  dataCenterId: string;
  flavors: string[];
}

export interface Allocation {
  gpuTypeId: string | null;
  dataCenterId: string;
  deviceIds: string[];
  cpuFlavor: string | null;
  vcpuCount: number | null;
}

/** What placement reads of an endpoint (or of a pod, as a one-type selection). */
export type PlacementRequest = Pick<EndpointSpec, 'gpu' | 'cpu' | 'dataCenterIds'>;

export class CapacityPool {
  /** deviceId -> worker holding it */
  private readonly gpuHolders = new Map<string, string>();
  /** workerId -> its allocation */
  private readonly allocations = new Map<string, Allocation>();

  constructor(
    readonly gpus: GpuDevice[],
    readonly cpus: CpuCapacity[],
    readonly catalog: Catalog,
  ) {}

  allocationOf(workerId: string): Allocation | undefined {
    return this.allocations.get(workerId);
  }

  /** Places a worker of the endpoint, or answers undefined when nothing fits right now. */
  allocate(workerId: string, spec: PlacementRequest): Allocation | undefined {
    const existing = this.allocations.get(workerId);
    if (existing) return existing;
    const allocation = spec.gpu ? this.placeGpu(spec) : this.placeCpu(spec);
    if (!allocation) return undefined;
    this.allocations.set(workerId, allocation);
    for (const id of allocation.deviceIds) this.gpuHolders.set(id, workerId);
    return allocation;
  }

  /** Whether a worker of the endpoint could be placed on an empty deployment: something of its kind exists. */
  canEverPlace(spec: PlacementRequest): boolean {
    const empty = new CapacityPool(this.gpus, this.cpus, this.catalog);
    return empty.allocate('probe', spec) !== undefined;
  }

  /**
   * Holds exactly these devices (a pod found running when Gantry starts keeps the ones it had);
   * false when one of them is unknown or held by someone else.
   */
  hold(holderId: string, allocation: Allocation): boolean {
    if (this.allocations.has(holderId)) return true;
    const known = new Set(this.gpus.map((d) => d.deviceId));
    if (allocation.deviceIds.some((id) => !known.has(id) || this.gpuHolders.has(id))) return false;
    this.allocations.set(holderId, allocation);
    for (const id of allocation.deviceIds) this.gpuHolders.set(id, holderId);
    return true;
  }

  release(workerId: string): void {
    const allocation = this.allocations.get(workerId);
    if (!allocation) return;
    for (const id of allocation.deviceIds) this.gpuHolders.delete(id);
    this.allocations.delete(workerId);
  }

  freeGpus(): GpuDevice[] {
    return this.gpus.filter((device) => !this.gpuHolders.has(device.deviceId));
  }

  freeVcpus(dataCenterId: string): number {
    const total = this.cpus.filter((c) => c.dataCenterId === dataCenterId).reduce((sum, c) => sum + c.vcpus, 0);
    let used = 0;
    for (const a of this.allocations.values()) if (a.dataCenterId === dataCenterId && a.vcpuCount) used += a.vcpuCount;
    return total - used;
  }

  private placeGpu(spec: PlacementRequest): Allocation | undefined {
    const gpu = spec.gpu!;
    // Pools in the order listed, types in catalog order: the first that has enough matching devices wins.
    for (const pool of gpu.pools) {
      const types = this.catalog
        .gpuTypesInPools([pool])
        .map((t) => t.id)
        .filter((id) => !gpu.excludedTypes.includes(id));
      for (const type of types) {
        const placed = this.placeType(type, gpu, spec.dataCenterIds);
        if (placed) return placed;
      }
    }
    return undefined;
  }

  /** Places `count` GPUs of one type (pods name a type, not pools); undefined when they are not free. */
  allocateGpuType(
    holderId: string,
    type: string,
    selection: Pick<GpuSelection, 'count' | 'allowedCudaVersions' | 'minCudaVersion'>,
    dataCenterIds: string[],
  ): Allocation | undefined {
    const existing = this.allocations.get(holderId);
    if (existing) return existing;
    const allocation = this.placeType(type, selection, dataCenterIds);
    if (allocation) this.hold(holderId, allocation);
    return allocation;
  }

  private placeType(
    type: string,
    gpu: Pick<GpuSelection, 'count' | 'allowedCudaVersions' | 'minCudaVersion'>,
    dataCenterIds: string[],
  ): Allocation | undefined {
    const groups = new Map<string, GpuDevice[]>();
    for (const device of this.freeGpus()) {
      if (device.type !== type) continue;
      if (!cudaVersionAccepted(device.cudaVersion, gpu.allowedCudaVersions, gpu.minCudaVersion)) continue;
      if (dataCenterIds.length > 0 && !dataCenterIds.includes(device.dataCenterId)) continue;
      const key = `${device.dataCenterId}|${device.cudaVersion}`;
      groups.set(key, [...(groups.get(key) ?? []), device]);
    }
    for (const devices of groups.values()) {
      if (devices.length >= gpu.count) {
        const chosen = devices.slice(0, gpu.count);
        return {
          gpuTypeId: type,
          dataCenterId: chosen[0]!.dataCenterId,
          deviceIds: chosen.map((d) => d.deviceId),
          cpuFlavor: null,
          vcpuCount: null,
        };
      }
    }
    return undefined;
  }

  private placeCpu(spec: PlacementRequest): Allocation | undefined {
    for (const config of spec.cpu ?? []) {
      for (const site of this.cpus) {
        if (!site.flavors.includes(config.id)) continue;
        if (spec.dataCenterIds.length > 0 && !spec.dataCenterIds.includes(site.dataCenterId)) continue;
        if (this.freeVcpus(site.dataCenterId) >= config.vcpuCount) {
          return { gpuTypeId: null, dataCenterId: site.dataCenterId, deviceIds: [], cpuFlavor: config.id, vcpuCount: config.vcpuCount };
        }
      }
    }
    return undefined;
  }
}
