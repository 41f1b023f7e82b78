// The catalog's shape and lookups: GPU types and their serverless pools, CPU flavors, data
// centers and public templates. Pure data; reading the file lives in src/catalog/.
import type { ContainerSettings, TemplateCategory } from './endpoint-spec.js';

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
  /** Prices billing needs beyond the GPU and CPU entries' own; defaults apply when absent (see price-table.ts). */
  billing?: BillingPriceEntry;
}

/** USD amounts with at most 6 decimals; a month is 720 hours (30 days). */
export interface BillingPriceEntry {
  /** A FlashBoot-frozen worker's GPU or CPU time, as a percentage of its running rate. */
  serverlessFrozenPercent?: number;
  /** Serverless workers' container disk, per GB and month. */
  containerDiskPerGbMonth?: number;
  /** Pods' disk, per GB and month. */
  podDiskPerGbMonth?: number;
  /** Pods' persistent volumes, per GB and month, while the pod runs and while it does not. */
  podVolumePerGbMonth?: Partial<Record<'RUNNING' | 'STOPPED', number>>;
  /** Network volumes, per GB and month, by storage tier. */
  networkVolumePerGbMonth?: Partial<Record<'STANDARD' | 'HIGH_PERFORMANCE', number>>;
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
