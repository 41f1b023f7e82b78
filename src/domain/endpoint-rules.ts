// Turns a create or update request into a complete, checked endpoint configuration.
// Schema-shaped failures answer 422; rules across fields or against the catalog answer 400.
import type { Catalog } from './catalog.js';
import {
  applyContainerFields,
  checkImageReference,
  checkPortsAndEnv,
  type ContainerFields,
  EMPTY_COMMAND,
  withTemplateEnv,
} from './container.js';
import { checkDataCenters, checkGpuSelection, resolveCpuConfigs } from './compute-rules.js';
import {
  DEFAULT_DISK_GB,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_WORKERS,
  idleTimeoutApplies,
  type ContainerSettings,
  type EndpointSpec,
  type EndpointType,
  type FlashBoot,
  type GpuSelection,
  type Scaling,
} from './endpoint-spec.js';
import { ApiError, badRequest, Violations } from './errors.js';

interface CommonFields extends ContainerFields {
  name?: string;
  templateId?: string;
  cpu?: { id: string; vcpuCount: number }[];
  dataCenterIds?: string[];
  networkVolumes?: string[];
  flashboot?: FlashBoot;
  timeout?: number;
  workers?: { min?: number; max?: number; idleTimeout?: number };
  scaling?: Scaling;
}

export interface CreateEndpointInput extends CommonFields {
  name: string;
  type: EndpointType;
  scaling: Scaling;
  gpu?: { pools: string[]; excludedTypes?: string[]; count?: number; allowedCudaVersions?: string[]; minCudaVersion?: string };
}

export interface UpdateEndpointInput extends CommonFields {
  gpu?: { pools?: string[]; excludedTypes?: string[]; count?: number; allowedCudaVersions?: string[]; minCudaVersion?: string };
}

/** A template's container settings and CUDA constraint, as resolved for this caller. */
export interface TemplateDefaults {
  settings: ContainerSettings;
  allowedCudaVersions: string[];
}

export interface EndpointLimits {
  maxWorkersPerEndpoint: number;
}

/** The caller's network volumes, by id: where each is. */
export type AccountVolumes = ReadonlyMap<string, { dataCenterId: string }>;

const EMPTY_CONTAINER: ContainerSettings = {
  image: '',
  ...EMPTY_COMMAND,
  disk: DEFAULT_DISK_GB,
  ports: [],
  env: {},
  registry: null,
};

function withTemplate(template: TemplateDefaults | undefined, body: ContainerFields): ContainerFields {
  return template ? withTemplateEnv(template.settings.env, body) : body;
}

function checkScalingMatchesType(type: EndpointType, scaling: Scaling | undefined): void {
  if (type === 'LOAD_BALANCER' && scaling !== undefined && scaling.type !== 'REQUEST_COUNT') {
    throw new ApiError(422, 'the request body failed validation', ['scaling.type: must be REQUEST_COUNT for a LOAD_BALANCER endpoint']);
  }
}

function checkIdleTimeoutAllowed(type: EndpointType, scaling: Scaling, body: CommonFields, v: Violations): void {
  if (body.workers?.idleTimeout !== undefined && !idleTimeoutApplies(type, scaling)) {
    v.add('workers.idleTimeout', 'does not apply to a QUEUE endpoint scaling on REQUEST_COUNT; leave it out');
  }
}

/**
 * A non-empty path of RFC 3986 path characters: the health URL shown in requestUrls and the
 * request the health check sends are made from it as it is.
 */
const URL_PATH = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})+$/;

/** Rules that hold for every stored configuration, checked after create or update has merged its input. */
function checkSpec(spec: EndpointSpec, catalog: Catalog, limits: EndpointLimits, volumes: AccountVolumes, v: Violations): void {
  checkImageReference(spec.image, v);
  checkPortsAndEnv(spec, v);
  if (spec.gpu) checkGpuSelection(spec.gpu, catalog, v);
  if (spec.workers.min > spec.workers.max) v.add('workers.min', `must not exceed workers.max (${spec.workers.max})`);
  if (spec.workers.max > limits.maxWorkersPerEndpoint) {
    v.add('workers.max', `must not exceed ${limits.maxWorkersPerEndpoint}, this deployment's limit per endpoint`);
  }
  checkDataCenters(spec.dataCenterIds, catalog, v);
  checkNetworkVolumes(spec, volumes, v);
  for (const name of ['PORT', 'PORT_HEALTH'] as const) {
    const value = spec.env[name];
    if (value !== undefined && !(/^\d{1,5}$/.test(value) && Number(value) >= 1 && Number(value) <= 65535)) {
      v.add(`env.${name}`, 'must be a port number from 1 to 65535');
    }
  }
  const healthPath = spec.env.HEALTH_CHECK_PATH;
  if (healthPath !== undefined && !URL_PATH.test(healthPath)) {
    v.add('env.HEALTH_CHECK_PATH', "must be a URL path such as /ping: letters, digits, -._~!$&'()*+,;=:@/ and %XX escapes");
  }
}

/**
 * Each id names one of the caller's volumes. A worker mounts the volume of the data center it is
 * placed in, so there is one per data center, and each must be where the endpoint may run.
 */
function checkNetworkVolumes(spec: EndpointSpec, volumes: AccountVolumes, v: Violations): void {
  const byDataCenter = new Map<string, number>();
  spec.networkVolumes.forEach((id, i) => {
    const path = `networkVolumes[${i}]`;
    const first = spec.networkVolumes.indexOf(id);
    const volume = volumes.get(id);
    if (first !== i) return v.add(path, `duplicates networkVolumes[${first}]`);
    if (!volume) return v.add(path, `unknown network volume '${id}'`);
    const other = byDataCenter.get(volume.dataCenterId);
    if (other !== undefined) {
      return v.add(
        path,
        `is in data center ${volume.dataCenterId} like networkVolumes[${other}]; an endpoint takes one volume per data center`,
      );
    }
    byDataCenter.set(volume.dataCenterId, i);
    if (spec.dataCenterIds.length > 0 && !spec.dataCenterIds.includes(volume.dataCenterId)) {
      v.add(path, `is in data center ${volume.dataCenterId}, which dataCenterIds leaves out`);
    }
  });
}

function trimExclusions(types: string[] | undefined): string[] {
  return (types ?? []).map((type) => type.trim());
}

export function buildEndpointSpec(
  body: CreateEndpointInput,
  template: TemplateDefaults | undefined,
  catalog: Catalog,
  limits: EndpointLimits,
  volumes: AccountVolumes,
): EndpointSpec {
  if (body.image === undefined && body.templateId === undefined) {
    throw new ApiError(422, 'the request body failed validation', ['image: is required unless templateId is set']);
  }
  checkScalingMatchesType(body.type, body.scaling);
  if ((body.gpu === undefined) === (body.cpu === undefined)) {
    throw badRequest('give exactly one of gpu or cpu', [
      body.gpu === undefined ? 'gpu: one of gpu or cpu is required' : 'cpu: cannot be combined with gpu',
    ]);
  }
  const v = new Violations();
  const container = applyContainerFields(template?.settings ?? EMPTY_CONTAINER, withTemplate(template, body), v);
  let gpu: GpuSelection | null = null;
  if (body.gpu) {
    const seedFromTemplate = body.gpu.allowedCudaVersions === undefined && body.gpu.minCudaVersion === undefined;
    gpu = {
      pools: body.gpu.pools,
      excludedTypes: trimExclusions(body.gpu.excludedTypes),
      count: body.gpu.count ?? 1,
      allowedCudaVersions: body.gpu.allowedCudaVersions ?? (seedFromTemplate ? (template?.allowedCudaVersions ?? []) : []),
      minCudaVersion: body.gpu.minCudaVersion ?? null,
    };
  }
  const spec: EndpointSpec = {
    name: body.name,
    type: body.type,
    ...container,
    gpu,
    cpu: body.cpu ? resolveCpuConfigs(body.cpu, catalog, v) : null,
    workers: { ...DEFAULT_WORKERS, ...body.workers },
    scaling: body.scaling,
    dataCenterIds: body.dataCenterIds ?? [],
    networkVolumes: body.networkVolumes ?? [],
    timeout: body.timeout ?? DEFAULT_TIMEOUT_MS,
    flashboot: body.flashboot ?? 'OFF',
    ...(body.templateId === undefined ? {} : { templateId: body.templateId }),
  };
  checkIdleTimeoutAllowed(spec.type, spec.scaling, body, v);
  checkSpec(spec, catalog, limits, volumes, v);
  v.throwIfAny();
  return spec;
}

function patchGpu(current: GpuSelection, patch: NonNullable<UpdateEndpointInput['gpu']>): GpuSelection {
  // pools and excludedTypes are one selection: sending pools replaces both, omitting pools keeps both.
  const selection =
    patch.pools !== undefined
      ? { pools: patch.pools, excludedTypes: trimExclusions(patch.excludedTypes) }
      : { pools: current.pools, excludedTypes: current.excludedTypes };
  return {
    ...selection,
    count: patch.count ?? current.count,
    allowedCudaVersions: patch.allowedCudaVersions ?? current.allowedCudaVersions,
    minCudaVersion: patch.minCudaVersion === undefined ? current.minCudaVersion : patch.minCudaVersion || null,
  };
}

export function applyEndpointPatch(
  current: EndpointSpec,
  body: UpdateEndpointInput,
  template: TemplateDefaults | undefined,
  catalog: Catalog,
  limits: EndpointLimits,
  volumes: AccountVolumes,
): EndpointSpec {
  const family = current.gpu ? 'gpu' : 'cpu';
  if (body.gpu !== undefined && body.cpu !== undefined) {
    throw badRequest('give at most one of gpu or cpu', ['cpu: cannot be combined with gpu']);
  }
  if ((family === 'gpu' && body.cpu !== undefined) || (family === 'cpu' && body.gpu !== undefined)) {
    const sent = family === 'gpu' ? 'cpu' : 'gpu';
    throw badRequest(`this is a ${family.toUpperCase()} endpoint; its compute family cannot change`, [
      `${sent}: cannot be set on a ${family.toUpperCase()} endpoint`,
    ]);
  }
  checkScalingMatchesType(current.type, body.scaling);
  const v = new Violations();
  // A templateId applies the template's settings as if they were sent, the body's own fields winning.
  const container = applyContainerFields(template?.settings ?? current, withTemplate(template, body), v);
  const spec: EndpointSpec = {
    ...current,
    ...container,
    name: body.name ?? current.name,
    gpu: current.gpu && body.gpu ? patchGpu(current.gpu, body.gpu) : current.gpu,
    cpu: body.cpu ? resolveCpuConfigs(body.cpu, catalog, v) : current.cpu,
    workers: { ...current.workers, ...body.workers },
    scaling: body.scaling ?? current.scaling,
    dataCenterIds: body.dataCenterIds ?? current.dataCenterIds,
    networkVolumes: body.networkVolumes ?? current.networkVolumes,
    timeout: body.timeout ?? current.timeout,
    flashboot: body.flashboot ?? current.flashboot,
    ...(body.templateId === undefined ? {} : { templateId: body.templateId }),
  };
  checkIdleTimeoutAllowed(spec.type, spec.scaling, body, v);
  checkSpec(spec, catalog, limits, volumes, v);
  v.throwIfAny();
  return spec;
}

/** Fields whose change alters what workers run, and so makes a new configuration version. */
const WORKER_FIELDS = [
  'image',
  'args',
  'entrypoint',
  'cmd',
  'disk',
  'ports',
  'env',
  'registry',
  'gpu',
  'cpu',
  'dataCenterIds',
  'networkVolumes',
] as const satisfies readonly (keyof EndpointSpec)[];

export type WorkerField = (typeof WORKER_FIELDS)[number];

/** The worker fields that differ; with no `before` (a new endpoint) every worker field counts. */
export function changedWorkerFields(before: EndpointSpec | undefined, after: EndpointSpec): WorkerField[] {
  if (!before) return [...WORKER_FIELDS];
  return WORKER_FIELDS.filter((field) => stableJson(before[field]) !== stableJson(after[field]));
}

/** JSON with object keys sorted, so {a,b} and {b,a} compare equal. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}
