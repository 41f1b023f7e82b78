// Turns a pod create or update request into a complete, checked pod configuration.
// Schema-shaped failures answer 422 before this runs; the rules here answer 400.
import type { Catalog } from './catalog.js';
import {
  applyContainerFields,
  checkImageReference,
  checkPortsAndEnv,
  type ContainerFields,
  EMPTY_COMMAND,
  resolveCommand,
  withTemplateEnv,
} from './container.js';
import { checkCudaConstraint, checkDataCenters, resolveCpuConfigs } from './compute-rules.js';
import { DEFAULT_DISK_GB, type ContainerSettings } from './endpoint-spec.js';
import { ApiError, Violations } from './errors.js';
import { RESTART_FIELDS, type PodSpec } from './pod.js';

export interface PodMountsInput {
  persistent?: { size: number; path: string };
  network?: { volumeId: string; path: string }[];
}

export interface CreatePodInput extends ContainerFields {
  name: string;
  cloud?: 'SECURE' | 'COMMUNITY';
  gpu?: { id: string; count?: number; allowedCudaVersions?: string[]; minCudaVersion?: string };
  cpu?: { id: string; vcpuCount: number };
  dataCenterIds?: string[];
  globalNetworking?: boolean;
  mounts?: PodMountsInput;
  startJupyter?: boolean;
  startSsh?: boolean;
  templateId?: string;
}

/** What a pod created from a template takes from it (TemplateService.resolveForPod). */
export interface PodTemplateDefaults {
  settings: ContainerSettings;
  allowedCudaVersions: string[];
  persistent: { size: number; path: string } | null;
  startSsh: boolean;
  startJupyter: boolean;
}

const EMPTY_CONTAINER: ContainerSettings = { image: '', ...EMPTY_COMMAND, disk: DEFAULT_DISK_GB, ports: [], env: {}, registry: null };

export interface UpdatePodInput extends ContainerFields {
  name?: string;
  locked?: boolean;
  globalNetworking?: boolean;
  mounts?: PodMountsInput;
  templateId?: string;
}

const RULES_DETAIL = 'request conflicts with the pod rules';

/**
 * A new pod's configuration. With a template, its settings come first and the body's fields win;
 * env merges per key (the body winning); a CUDA field in the body replaces the template's
 * constraint whole; `mounts` in the body replaces the template's volume, which CPU pods never take.
 */
export function buildPodSpec(body: CreatePodInput, catalog: Catalog, template?: PodTemplateDefaults): PodSpec {
  // As the hosted API's schema has it (and endpoints): a validation failure, not a rule.
  if (body.image === undefined && !template)
    throw new ApiError(422, 'the request body failed validation', ['image: is required unless templateId is set']);
  const v = new Violations();
  const mounts = body.mounts ?? (template?.persistent && !body.cpu ? { persistent: { ...template.persistent } } : undefined);
  const container = applyContainerFields(
    template?.settings ?? EMPTY_CONTAINER,
    template ? withTemplateEnv(template.settings.env, body) : body,
    v,
  );
  if (body.image !== undefined || template) checkImageReference(container.image, v);
  if ((body.gpu === undefined) === (body.cpu === undefined)) v.add('gpu', 'exactly one of gpu or cpu must be set');
  if (body.gpu && !catalog.gpuType(body.gpu.id)) v.add('gpu.id', `unknown GPU type '${body.gpu.id}'`);
  if (body.gpu) checkCudaConstraint(body.gpu.allowedCudaVersions, body.gpu.minCudaVersion, v);
  const cpu = body.cpu ? resolveCpuConfigs([body.cpu], catalog, v, () => 'cpu')[0] : undefined;
  if (body.cpu && mounts?.persistent) v.add('mounts.persistent', 'is not offered on CPU pods; use a network volume');
  if (mounts?.persistent && mounts.network?.length) v.add('mounts', 'persistent and network mounts exclude each other');
  checkDataCenters(body.dataCenterIds ?? [], catalog, v);
  if (body.globalNetworking) v.add('globalNetworking', 'global networking is not offered by Gantry');
  checkMountPaths(mounts, v);
  checkPortsAndEnv(container, v);
  v.throwIfAny(RULES_DETAIL);
  const network = mounts?.network?.[0];
  const cudaFromTemplate = body.gpu?.allowedCudaVersions === undefined && body.gpu?.minCudaVersion === undefined;
  return {
    name: body.name,
    ...container,
    cloud: body.cloud ?? 'SECURE',
    gpu: body.gpu
      ? {
          typeId: body.gpu.id,
          count: body.gpu.count ?? 1,
          allowedCudaVersions: body.gpu.allowedCudaVersions ?? (cudaFromTemplate ? [...(template?.allowedCudaVersions ?? [])] : []),
          minCudaVersion: body.gpu.minCudaVersion ?? null,
        }
      : null,
    cpu: cpu ? { flavorId: cpu.id, vcpuCount: cpu.vcpuCount, memory: cpu.memory } : null,
    dataCenterIds: body.dataCenterIds ?? [],
    persistent: mounts?.persistent ? { ...mounts.persistent } : null,
    network: network ? { volumeId: network.volumeId, path: network.path } : null,
    locked: false,
    startSsh: body.startSsh ?? template?.startSsh ?? false,
    startJupyter: body.startJupyter ?? template?.startJupyter ?? false,
    pendingRestart: [],
  };
}

/**
 * A PATCH body with a template's container settings applied as if they were sent: the body's own
 * fields win, env merges per key (the body winning) and replaces the pod's; the template's command
 * applies only when the body sends none of args, entrypoint and cmd. Its mounts are not applied.
 */
export function patchWithTemplate(body: UpdatePodInput, template: PodTemplateDefaults | undefined): UpdatePodInput {
  if (!template) return body;
  const { settings } = template;
  const sendsCommand = body.args !== undefined || body.entrypoint !== undefined || body.cmd !== undefined;
  return {
    ...withTemplateEnv(settings.env, body),
    image: body.image ?? settings.image,
    ...(sendsCommand ? {} : { args: settings.args }),
    disk: body.disk ?? settings.disk,
    ports: body.ports ?? settings.ports,
    registry: body.registry === undefined ? settings.registry : body.registry,
  };
}

/**
 * Changes only the fields sent. The persistent volume can grow (not shrink); the network volume
 * cannot change; their mount paths can. `pendingRestart` names the changed fields a running container has not got yet.
 */
export function applyPodPatch(current: PodSpec, body: UpdatePodInput, running: boolean): PodSpec {
  const v = new Violations();
  const command = resolveCommand(body, current, v);
  checkPortsAndEnv({ ports: body.ports ?? [], env: body.env ?? {} }, v);
  if (body.globalNetworking) v.add('globalNetworking', 'global networking is not offered by Gantry');
  const persistent = body.mounts?.persistent;
  if (persistent && !current.persistent) v.add('mounts.persistent', 'a pod created without a persistent volume cannot get one');
  if (persistent && current.persistent && persistent.size < current.persistent.size)
    v.add('mounts.persistent.size', `can only grow (it is ${current.persistent.size} GB)`);
  const network = body.mounts?.network;
  if (network?.length === 0) v.add('mounts.network', 'cannot be emptied: a pod keeps the network volume it was created with');
  else if (
    network !== undefined &&
    (network.length !== (current.network ? 1 : 0) || (network[0] && network[0].volumeId !== current.network?.volumeId))
  )
    v.add('mounts.network', 'the network volume is fixed when the pod is created; only its path may change');
  checkMountPaths(body.mounts, v);
  v.throwIfAny(RULES_DETAIL);
  const next: PodSpec = {
    ...current,
    name: body.name ?? current.name,
    image: body.image ?? current.image,
    ...command,
    disk: body.disk ?? current.disk,
    ports: body.ports ?? current.ports,
    env: body.env ?? current.env,
    registry: body.registry === undefined ? current.registry : body.registry,
    locked: body.locked ?? current.locked,
    persistent: persistent && current.persistent ? { size: persistent.size, path: persistent.path } : current.persistent,
    network: network?.[0] && current.network ? { ...current.network, path: network[0].path } : current.network,
  };
  const changed = RESTART_FIELDS.filter((field) => JSON.stringify(fieldOf(current, field)) !== JSON.stringify(fieldOf(next, field)));
  next.pendingRestart = running ? [...new Set([...current.pendingRestart, ...changed])] : [];
  return next;
}

function fieldOf(spec: PodSpec, field: (typeof RESTART_FIELDS)[number]): unknown {
  // A volume's size is recorded, not enforced: growing it needs no restart, moving it does.
  return field === 'mounts' ? [spec.persistent?.path, spec.network] : spec[field];
}

function checkMountPaths(mounts: PodMountsInput | undefined, v: Violations): void {
  const paths = [
    ...(mounts?.persistent ? [['mounts.persistent.path', mounts.persistent.path]] : []),
    ...(mounts?.network ?? []).map((m, i) => [`mounts.network[${i}].path`, m.path]),
  ];
  for (const [where, path] of paths) if (!path!.startsWith('/') || path === '/') v.add(where!, 'must be an absolute path other than /');
}
