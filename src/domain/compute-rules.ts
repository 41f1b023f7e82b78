// Rules for an endpoint's compute selection against the catalog: GPU pools and exclusions,
// CUDA constraints, CPU flavors and vCPU counts.
import type { Catalog } from './catalog.js';
import type { CpuConfig, GpuSelection } from './endpoint-spec.js';
import type { Violations } from './errors.js';

export function checkGpuSelection(gpu: GpuSelection, catalog: Catalog, v: Violations): void {
  const knownPools = catalog.pools();
  const poolsValid = gpu.pools.every((pool, i) => {
    if (gpu.pools.indexOf(pool) !== i) {
      v.add(`gpu.pools[${i}]`, `duplicates gpu.pools[${gpu.pools.indexOf(pool)}]`);
      return true;
    }
    if (!knownPools.includes(pool)) {
      v.add(`gpu.pools[${i}]`, `unknown GPU pool '${pool}'; known pools: ${knownPools.join(', ')}`);
      return false;
    }
    return true;
  });
  if (poolsValid) {
    const typesInPools = catalog.gpuTypesInPools(gpu.pools).map((g) => g.id);
    gpu.excludedTypes.forEach((type, i) => {
      const first = gpu.excludedTypes.indexOf(type);
      if (first !== i) v.add(`gpu.excludedTypes[${i}]`, `duplicates gpu.excludedTypes[${first}] after trimming`);
      else if (!typesInPools.includes(type)) {
        v.add(`gpu.excludedTypes[${i}]`, `'${type}' is not a GPU type in the selected pools (${gpu.pools.join(', ')})`);
      }
    });
    const remaining = typesInPools.filter((type) => !gpu.excludedTypes.includes(type));
    if (remaining.length === 0) v.add('gpu.excludedTypes', 'excludes every GPU type of the selected pools; at least one must remain');
  }
  checkCudaConstraint(gpu.allowedCudaVersions, gpu.minCudaVersion, v);
}

/** A list of CUDA versions and a floor exclude each other; an empty list states no constraint. */
export function checkCudaConstraint(allowed: readonly string[] | undefined, min: string | null | undefined, v: Violations): void {
  if (allowed !== undefined && allowed.length > 0 && min !== null && min !== undefined) {
    v.add('gpu.minCudaVersion', 'cannot be combined with a non-empty gpu.allowedCudaVersions; use one or the other');
  }
}

/** A vCPU count any flavor could take: a power of two from 2. */
export function isVcpuCount(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 2 && (n & (n - 1)) === 0;
}

/** Whether a flavor offers workers of `vcpuCount` vCPUs. */
export function flavorTakes(flavor: { vcpu: { min: number; max: number } }, vcpuCount: number): boolean {
  return isVcpuCount(vcpuCount) && vcpuCount >= flavor.vcpu.min && vcpuCount <= flavor.vcpu.max;
}

/** The memory of a worker or pod of `vcpuCount` vCPUs of the flavor, from its RAM multiplier. */
export function cpuMemoryGb(flavor: { ramGbPerVcpu: number }, vcpuCount: number): number {
  return Math.max(1, Math.round(vcpuCount * flavor.ramGbPerVcpu));
}

/**
 * Checks each CPU configuration and derives its memory from the flavor's RAM multiplier. `at`
 * names a configuration in failures: an endpoint's are a list, a pod's one is an object.
 */
export function resolveCpuConfigs(
  configs: { id: string; vcpuCount: number }[],
  catalog: Catalog,
  v: Violations,
  at: (i: number) => string = (i) => `cpu[${i}]`,
): CpuConfig[] {
  return configs.map((config, i) => {
    const flavor = catalog.cpuFlavor(config.id);
    if (!flavor) {
      v.add(`${at(i)}.id`, `unknown CPU flavor '${config.id}'; known flavors: ${catalog.data.cpus.map((c) => c.id).join(', ')}`);
      return { ...config, memory: 1 };
    }
    if (!isVcpuCount(config.vcpuCount)) v.add(`${at(i)}.vcpuCount`, 'must be a power of two');
    else if (!flavorTakes(flavor, config.vcpuCount)) {
      v.add(`${at(i)}.vcpuCount`, `must be from ${flavor.vcpu.min} to ${flavor.vcpu.max} for flavor ${flavor.id}`);
    }
    return { id: config.id, vcpuCount: config.vcpuCount, memory: cpuMemoryGb(flavor, config.vcpuCount) };
  });
}

export function checkDataCenters(ids: string[], catalog: Catalog, v: Violations): void {
  ids.forEach((id, i) => {
    const first = ids.indexOf(id);
    if (first !== i) v.add(`dataCenterIds[${i}]`, `duplicates dataCenterIds[${first}]`);
    else if (!catalog.dataCenter(id)) {
      v.add(`dataCenterIds[${i}]`, `unknown data center '${id}'; known: ${catalog.data.dataCenters.map((d) => d.id).join(', ')}`);
    }
  });
}
