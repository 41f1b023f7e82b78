// The capacity of this deployment: declared by the operator in a capacity file, or found on this
// machine (GPUs through nvidia-smi; CPU workers are local processes sharing its cores).
import { readFileSync } from 'node:fs';
import type { Catalog } from '../domain/catalog.js';
import { CapacityPool, type CpuCapacity, type GpuDevice } from './capacity-pool.js';
import { detectGpus, type DetectedGpu } from './gpu-inventory.js';

export type Capacity = CapacityPool;

/** Where capacity is when nothing says otherwise: the machine Gantry runs on. */
export const LOCAL_DATA_CENTER = 'LOCAL';
/**
 * vCPUs CPU endpoints may claim on this machine when no capacity file says otherwise. Process
 * workers share the host's cores, so this only bounds how many start; it is deliberately above
 * a laptop's core count so development is not throttled by it.
 */
export const DEFAULT_LOCAL_VCPUS = 64;

interface CapacityFile {
  gpus?: { type: string; count: number; cudaVersion: string; dataCenterId?: string; deviceIds?: string[] }[];
  cpus?: { vcpus: number; dataCenterId?: string; flavors?: string[] }[] | { vcpus: number; dataCenterId?: string; flavors?: string[] };
}

export class CapacityError extends Error {}

export function loadCapacity(file: string | undefined, catalog: Catalog, detect: () => DetectedGpu[] = detectGpus): Capacity {
  if (file === undefined) {
    // The default capacity is in LOCAL: a catalog without it would offer what no endpoint may ask for.
    if (!catalog.dataCenter(LOCAL_DATA_CENTER)) {
      throw new CapacityError(
        `the catalog has no data center ${LOCAL_DATA_CENTER}, where the default capacity is: add it to the catalog, or give --capacity-file naming the catalog's data centers`,
      );
    }
    return new CapacityPool(detectedDevices(detect(), catalog), defaultCpus(catalog), catalog);
  }
  let parsed: CapacityFile;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as CapacityFile;
  } catch (error) {
    throw new CapacityError(`cannot read capacity file ${file}: ${(error as Error).message}`);
  }
  const problems: string[] = [];
  const gpus = declaredDevices(parsed, catalog, problems);
  const cpus = declaredCpus(parsed, catalog, problems);
  if (problems.length > 0) throw new CapacityError(`capacity file ${file} is invalid:\n  - ${problems.join('\n  - ')}`);
  return new CapacityPool(gpus, cpus, catalog);
}

function defaultCpus(catalog: Catalog): CpuCapacity[] {
  return [{ vcpus: DEFAULT_LOCAL_VCPUS, dataCenterId: LOCAL_DATA_CENTER, flavors: catalog.data.cpus.map((c) => c.id) }];
}

function detectedDevices(found: DetectedGpu[], catalog: Catalog): GpuDevice[] {
  return found
    .filter((gpu) => catalog.gpuType(gpu.name) !== undefined)
    .map((gpu) => ({ deviceId: gpu.index, type: gpu.name, cudaVersion: gpu.cudaVersion, dataCenterId: LOCAL_DATA_CENTER }));
}

function declaredDevices(parsed: CapacityFile, catalog: Catalog, problems: string[]): GpuDevice[] {
  const devices: GpuDevice[] = [];
  let next = 0;
  (parsed.gpus ?? []).forEach((entry, i) => {
    const where = `gpus[${i}]`;
    if (!catalog.gpuType(entry.type)) problems.push(`${where}.type: unknown GPU type '${entry.type}'`);
    if (!Number.isInteger(entry.count) || entry.count < 1) problems.push(`${where}.count: must be a positive integer`);
    if (typeof entry.cudaVersion !== 'string' || !/^\d+\.\d+$/.test(entry.cudaVersion))
      problems.push(`${where}.cudaVersion: must be major.minor`);
    const dataCenterId = entry.dataCenterId ?? LOCAL_DATA_CENTER;
    if (!catalog.dataCenter(dataCenterId)) problems.push(`${where}.dataCenterId: unknown data center '${dataCenterId}'`);
    if (entry.deviceIds && entry.deviceIds.length !== entry.count)
      problems.push(`${where}.deviceIds: must list count (${entry.count}) ids`);
    for (let n = 0; n < (Number.isInteger(entry.count) ? entry.count : 0); n++) {
      devices.push({ deviceId: entry.deviceIds?.[n] ?? String(next), type: entry.type, cudaVersion: entry.cudaVersion, dataCenterId });
      next++;
    }
  });
  const ids = devices.map((d) => `${d.dataCenterId}/${d.deviceId}`);
  if (new Set(ids).size !== ids.length) problems.push('gpus: device ids repeat within a data center');
  return devices;
}

function declaredCpus(parsed: CapacityFile, catalog: Catalog, problems: string[]): CpuCapacity[] {
  if (parsed.cpus === undefined) return defaultCpus(catalog);
  const list = Array.isArray(parsed.cpus) ? parsed.cpus : [parsed.cpus];
  return list.map((entry, i) => {
    const where = Array.isArray(parsed.cpus) ? `cpus[${i}]` : 'cpus';
    if (!Number.isInteger(entry.vcpus) || entry.vcpus < 0) problems.push(`${where}.vcpus: must be a non-negative integer`);
    const dataCenterId = entry.dataCenterId ?? LOCAL_DATA_CENTER;
    if (!catalog.dataCenter(dataCenterId)) problems.push(`${where}.dataCenterId: unknown data center '${dataCenterId}'`);
    const flavors = entry.flavors ?? catalog.data.cpus.map((c) => c.id);
    for (const flavor of flavors) if (!catalog.cpuFlavor(flavor)) problems.push(`${where}.flavors: unknown CPU flavor '${flavor}'`);
    return { vcpus: entry.vcpus, dataCenterId, flavors };
  });
}
