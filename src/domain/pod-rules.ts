// Turns a pod create or update request into a complete, checked pod configuration.
// Schema-shaped failures answer 422 before this runs; the rules here answer 400.
import type { Catalog } from './catalog.js';
import { checkPortsAndEnv, EMPTY_COMMAND, resolveCommand, type ContainerFields } from './container.js';
import { resolveCpuConfigs } from './compute-rules.js';
import { DEFAULT_DISK_GB } from './endpoint-spec.js';
import { Violations } from './errors.js';
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
}

export interface UpdatePodInput extends ContainerFields {
  name?: string;
  locked?: boolean;
  globalNetworking?: boolean;
  mounts?: PodMountsInput;
}

const RULES_DETAIL = 'request conflicts with the pod rules';

export function buildPodSpec(body: CreatePodInput, catalog: Catalog): PodSpec {
  const v = new Violations();
  if (body.image === undefined) v.add('image', 'is required (templateId is not offered for pods)');
  if ((body.gpu === undefined) === (body.cpu === undefined)) v.add('gpu', 'exactly one of gpu or cpu must be set');
  if (body.gpu && !catalog.gpuType(body.gpu.id)) v.add('gpu.id', `unknown GPU type '${body.gpu.id}'`);
  const cpu = body.cpu ? resolveCpuConfigs([body.cpu], catalog, v)[0] : undefined;
  if (body.cpu && body.mounts?.persistent) v.add('mounts.persistent', 'is not offered on CPU pods; use a network volume');
  if (body.mounts?.persistent && body.mounts.network?.length) v.add('mounts', 'persistent and network mounts exclude each other');
  for (const [i, id] of (body.dataCenterIds ?? []).entries())
    if (!catalog.dataCenter(id)) v.add(`dataCenterIds[${i}]`, `unknown data center '${id}'`);
  if (body.globalNetworking) v.add('globalNetworking', 'global networking is not offered by Gantry');
  checkMountPaths(body.mounts, v);
  const command = resolveCommand(body, EMPTY_COMMAND, v);
  checkPortsAndEnv({ ports: body.ports ?? [], env: body.env ?? {} }, v);
  v.throwIfAny(RULES_DETAIL);
  const network = body.mounts?.network?.[0];
  return {
    name: body.name,
    image: body.image!,
    ...command,
    disk: body.disk ?? DEFAULT_DISK_GB,
    ports: body.ports ?? [],
    env: body.env ?? {},
    registry: body.registry ?? null,
    cloud: body.cloud ?? 'SECURE',
    gpu: body.gpu
      ? {
          typeId: body.gpu.id,
          count: body.gpu.count ?? 1,
          allowedCudaVersions: body.gpu.allowedCudaVersions ?? [],
          minCudaVersion: body.gpu.minCudaVersion ?? null,
        }
      : null,
    cpu: cpu ? { flavorId: cpu.id, vcpuCount: cpu.vcpuCount, memory: cpu.memory } : null,
    dataCenterIds: body.dataCenterIds ?? [],
    persistent: body.mounts?.persistent ? { ...body.mounts.persistent } : null,
    network: network ? { volumeId: network.volumeId, path: network.path } : null,
    locked: false,
    startSsh: body.startSsh ?? false,
    startJupyter: body.startJupyter ?? false,
    pendingRestart: [],
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
  if (
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
