// The stored, normalised configuration of endpoints and templates.
// Terminology:
//   pool        a serverless GPU pool id (the catalog's `pool` field), the unit of selection
//   GPU type    a catalog GPU `id`, the unit of exclusion
//   flavor      a CPU catalog id; memory follows from its RAM multiplier
//   version     the endpoint's configuration version; it grows only when what workers run changes

export type EndpointType = 'QUEUE' | 'LOAD_BALANCER';
export type FlashBoot = 'OFF' | 'FLASHBOOT' | 'PRIORITY_FLASHBOOT';

export type Scaling = { type: 'QUEUE_DELAY'; queueDelay: number } | { type: 'REQUEST_COUNT'; requestCount: number };

export interface Workers {
  min: number;
  max: number;
  /** Kept even where it does not apply (QUEUE + REQUEST_COUNT), so switching scaler back restores it. */
  idleTimeout: number;
}

export interface GpuSelection {
  pools: string[];
  excludedTypes: string[];
  count: number;
  allowedCudaVersions: string[];
  minCudaVersion: string | null;
}

export interface CpuConfig {
  id: string;
  vcpuCount: number;
  /** GB, derived from the flavor's RAM multiplier when the configuration was set. */
  memory: number;
}

/** What a container runs; `args` is kept exactly as it was sent. */
export interface ContainerCommand {
  args: string;
  entrypoint: string[];
  cmd: string[];
}

export interface ContainerSettings extends ContainerCommand {
  image: string;
  disk: number;
  ports: string[];
  env: Record<string, string>;
  registry: string | null;
}

export interface EndpointSpec extends ContainerSettings {
  name: string;
  type: EndpointType;
  gpu: GpuSelection | null;
  cpu: CpuConfig[] | null;
  workers: Workers;
  scaling: Scaling;
  dataCenterIds: string[];
  networkVolumes: string[];
  timeout: number;
  flashboot: FlashBoot;
  /**
   * The template applied last (on create or by an update naming one). Endpoints copy a template's
   * settings and keep no link to it; this only remembers which one it was, for the legacy GraphQL
   * `templateId`. Absent on endpoints made without a template.
   */
  templateId?: string;
}

export type TemplateCategory = 'CPU' | 'NVIDIA' | 'AMD';

export interface TemplateSpec extends ContainerSettings {
  name: string;
  serverless: boolean;
  public: boolean;
  category: TemplateCategory;
  startSsh: boolean;
  startJupyter: boolean;
  allowedCudaVersions: string[];
  mounts: { persistent?: { size: number; path: string } };
}

export const DEFAULT_DISK_GB = 10;
export const DEFAULT_TIMEOUT_MS = 300_000;
export const DEFAULT_WORKERS: Workers = { min: 0, max: 3, idleTimeout: 10 };

/** idleTimeout means nothing to a queue endpoint scaling on request count. */
export function idleTimeoutApplies(type: EndpointType, scaling: Scaling): boolean {
  return !(type === 'QUEUE' && scaling.type === 'REQUEST_COUNT');
}
