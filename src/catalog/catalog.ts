// The catalog: GPU types and their serverless pools, CPU flavors, data centers and public
// templates. Gantry ships a default file; an operator may replace it with their own.
import { readFileSync } from 'node:fs';
import { shippedFile } from '../paths.js';
import type { ContainerSettings, TemplateCategory } from '../domain/endpoint-spec.js';

export const DEFAULT_CATALOG_FILE = shippedFile('catalog', 'default-catalog.json');

export interface GpuTypeEntry {
  id: string;
  name: string;
  pool: string | null;
  manufacturer: 'NVIDIA' | 'AMD' | 'UNKNOWN';
  memory: number;
  secure: boolean;
  community: boolean;
  price: { secure: number; community: number; serverless?: number };
  maxCount: { secure: number; community: number };
  /** CUDA versions machines with this GPU type run, `major.minor`. */
  cudaVersions: string[];
}

export interface CpuFlavorEntry {
  id: string;
  name: string;
  group: string;
  vcpu: { min: number; max: number };
  ramGbPerVcpu: number;
  price: { securePerVcpu: number; serverlessPerVcpu: number };
}

export interface DataCenterEntry {
  id: string;
  name: string;
  region: string;
  globalNetwork: boolean;
  networkVolumeTypes: string[];
  compliance: string[];
  /** ISO 3166-1 alpha-2 code of where the site is, for `countryCodes` filters; absent for LOCAL. */
  countryCode?: string;
}

export interface PublicTemplateEntry extends Partial<ContainerSettings> {
  id: string;
  name: string;
  image: string;
  source: 'official' | 'verified';
  serverless: boolean;
  category: TemplateCategory;
  allowedCudaVersions?: string[];
  startSsh?: boolean;
  startJupyter?: boolean;
}

export interface CatalogData {
  gpus: GpuTypeEntry[];
  cpus: CpuFlavorEntry[];
  dataCenters: DataCenterEntry[];
  templates: PublicTemplateEntry[];
}

export class Catalog {
  private readonly gpuById: Map<string, GpuTypeEntry>;
  private readonly cpuById: Map<string, CpuFlavorEntry>;
  private readonly dataCenterById: Map<string, DataCenterEntry>;
  private readonly templateById: Map<string, PublicTemplateEntry>;

  constructor(readonly data: CatalogData) {
    this.gpuById = new Map(data.gpus.map((g) => [g.id, g]));
    this.cpuById = new Map(data.cpus.map((c) => [c.id, c]));
    this.dataCenterById = new Map(data.dataCenters.map((d) => [d.id, d]));
    this.templateById = new Map(data.templates.map((t) => [t.id, t]));
  }

  gpuType(id: string): GpuTypeEntry | undefined {
    return this.gpuById.get(id);
  }

  /** Every serverless pool id, in catalog order. */
  pools(): string[] {
    return [...new Set(this.data.gpus.flatMap((g) => (g.pool ? [g.pool] : [])))];
  }

  gpuTypesInPools(pools: readonly string[]): GpuTypeEntry[] {
    return this.data.gpus.filter((g) => g.pool !== null && pools.includes(g.pool));
  }

  cpuFlavor(id: string): CpuFlavorEntry | undefined {
    return this.cpuById.get(id);
  }

  dataCenter(id: string): DataCenterEntry | undefined {
    return this.dataCenterById.get(id);
  }

  publicTemplate(id: string): PublicTemplateEntry | undefined {
    return this.templateById.get(id);
  }
}

export class CatalogError extends Error {}

/** Reads and checks a catalog file; a broken file stops the server at start. */
export function loadCatalog(file = DEFAULT_CATALOG_FILE): Catalog {
  let data: CatalogData;
  try {
    data = JSON.parse(readFileSync(file, 'utf8')) as CatalogData;
  } catch (error) {
    throw new CatalogError(`cannot read catalog ${file}: ${(error as Error).message}`);
  }
  const problems = checkCatalog(data);
  if (problems.length > 0) throw new CatalogError(`catalog ${file} is invalid:\n  - ${problems.join('\n  - ')}`);
  return new Catalog(data);
}

function checkCatalog(data: CatalogData): string[] {
  const problems: string[] = [];
  for (const list of ['gpus', 'cpus', 'dataCenters', 'templates'] as const) {
    if (!Array.isArray(data?.[list])) problems.push(`${list} must be an array`);
  }
  if (problems.length > 0) return problems;
  const duplicates = (ids: string[]) => ids.filter((id, i) => ids.indexOf(id) !== i);
  for (const id of duplicates(data.gpus.map((g) => g.id))) problems.push(`duplicate GPU type ${id}`);
  for (const id of duplicates(data.cpus.map((c) => c.id))) problems.push(`duplicate CPU flavor ${id}`);
  for (const id of duplicates(data.dataCenters.map((d) => d.id))) problems.push(`duplicate data center ${id}`);
  for (const id of duplicates(data.templates.map((t) => t.id))) problems.push(`duplicate template ${id}`);
  for (const g of data.gpus) {
    if (typeof g.id !== 'string' || g.id === '') problems.push('a GPU type has no id');
    if (!Array.isArray(g.cudaVersions) || g.cudaVersions.some((v) => !/^\d+\.\d+$/.test(v))) {
      problems.push(`GPU type ${g.id}: cudaVersions must be major.minor strings`);
    }
  }
  for (const c of data.cpus) {
    if (!(c.vcpu?.min >= 1 && c.vcpu.max >= c.vcpu.min)) problems.push(`CPU flavor ${c.id}: vcpu.min..max is invalid`);
    if (!(c.ramGbPerVcpu > 0)) problems.push(`CPU flavor ${c.id}: ramGbPerVcpu must be positive`);
  }
  return problems;
}
