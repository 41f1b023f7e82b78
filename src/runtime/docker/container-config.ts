// How a WorkerSpec becomes a container: the image's own ENTRYPOINT and CMD unless the endpoint
// overrides them, the endpoint's env and the worker-protocol variables (nothing of Gantry's own
// environment), the vCPUs and GPUs it was placed on, and labels that let Gantry find its
// containers again after a crash.
import type Docker from 'dockerode';
import type { WorkerSpec } from '../provider.js';
import { VOLUME_MOUNT_PATH } from '../../domain/network-volume.js';
import type { DiskLimitSupport } from './disk-limit.js';
import { portTransport } from '../../domain/container.js';

export type DockerNetwork = 'host' | 'bridge';

/** Labels on every container Gantry starts. */
export const LABELS = {
  managed: 'gantry',
  /** Which Gantry (by data directory and host) owns the container: orphans are found by it. */
  instance: 'gantry.instance',
  replica: 'gantry.replica',
  endpoint: 'gantry.endpoint',
  worker: 'gantry.worker',
  /** Pods' containers outlive Gantry's restarts: they are reconciled with their rows, never removed as orphans. */
  pod: 'gantry.pod',
} as const;

export interface ContainerPlan {
  options: Docker.ContainerCreateOptions;
  /** Things the worker's log should say about how it was started. */
  notes: string[];
}

export interface ContainerPlanInputs {
  spec: WorkerSpec;
  network: DockerNetwork;
  instanceId: string;
  replicaId: string;
  /** CPUs of the engine's host: a worker cannot be given more. */
  hostCpus: number;
  /** Bridge mode: host ports (on 127.0.0.1) that PORT and PORT_HEALTH are published on. */
  publishedPorts?: { port: number; healthPort: number };
  /** Whether the engine's storage driver can limit a container's writable layer (disk-limit.ts). */
  diskLimit: DiskLimitSupport;
}

export function containerName(workerId: string): string {
  return `gantry-${workerId}`;
}

export function planContainer(inputs: ContainerPlanInputs): ContainerPlan {
  const { spec } = inputs;
  const notes: string[] = [];
  const hostConfig: Docker.HostConfig = { NetworkMode: inputs.network };
  if (spec.vcpuCount !== null) {
    const cpus = Math.min(spec.vcpuCount, inputs.hostCpus);
    if (cpus < spec.vcpuCount) notes.push(`vCPUs capped to the host's ${inputs.hostCpus} (the endpoint asks for ${spec.vcpuCount})`);
    hostConfig.NanoCpus = Math.round(cpus * 1e9);
  }
  // As a pod of the flavor gets: one worker cannot take the host's memory from the others.
  if (spec.memoryGb !== null) hostConfig.Memory = spec.memoryGb * 1024 ** 3;
  if (inputs.diskLimit.supported) hostConfig.StorageOpt = { size: `${spec.diskGb}G` };
  else notes.push(`container disk of ${spec.diskGb} GB not enforced: ${inputs.diskLimit.reason}`);
  if (spec.networkVolume) hostConfig.Binds = [`${spec.networkVolume.hostPath}:${VOLUME_MOUNT_PATH}`];
  if (spec.gpuDeviceIds.length > 0) {
    hostConfig.DeviceRequests = [{ Driver: 'nvidia', DeviceIDs: spec.gpuDeviceIds, Capabilities: [['gpu']] }];
  }
  const options: Docker.ContainerCreateOptions = {
    name: containerName(spec.workerId),
    Image: spec.image,
    Env: Object.entries(containerEnv(spec)).map(([name, value]) => `${name}=${value}`),
    Labels: {
      [LABELS.managed]: '1',
      [LABELS.instance]: inputs.instanceId,
      [LABELS.replica]: inputs.replicaId,
      [LABELS.endpoint]: spec.endpointId,
      [LABELS.worker]: spec.workerId,
    },
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    OpenStdin: false,
    HostConfig: hostConfig,
    ...command(spec),
  };
  if (inputs.network === 'bridge') {
    // The name the default worker API URL of bridge mode uses for the host.
    hostConfig.ExtraHosts = ['host.docker.internal:host-gateway'];
    publish(options, hostConfig, spec, inputs.publishedPorts);
  } else if (spec.ports.length > 0) {
    notes.push(`host networking: the ports ${spec.ports.join(', ')} are the host's own, unpublished`);
  }
  return { options, notes };
}

/**
 * Docker's rule, which RunPod follows: an ENTRYPOINT given replaces the image's and drops its
 * CMD too; a CMD given replaces only the image's CMD. An Entrypoint of [] would also erase the
 * image's, so an empty override is left out rather than sent.
 */
function command(spec: WorkerSpec): Pick<Docker.ContainerCreateOptions, 'Entrypoint' | 'Cmd'> {
  if (spec.entrypoint.length > 0) return { Entrypoint: spec.entrypoint, Cmd: spec.cmd };
  return spec.cmd.length > 0 ? { Cmd: spec.cmd } : {};
}

function containerEnv(spec: WorkerSpec): Record<string, string> {
  return {
    ...spec.env,
    // The NVIDIA runtime exposes exactly these devices; "void" keeps CUDA base images, which say
    // NVIDIA_VISIBLE_DEVICES=all, from seeing every GPU of the host in a CPU worker.
    NVIDIA_VISIBLE_DEVICES: spec.gpuDeviceIds.length > 0 ? spec.gpuDeviceIds.join(',') : 'void',
    GANTRY_WORKER_ID: spec.workerId,
    GANTRY_ENDPOINT_VERSION: String(spec.version),
    ...(spec.vcpuCount === null ? {} : { GANTRY_VCPU_COUNT: String(spec.vcpuCount) }),
    // The same variable a process worker reads its volume's directory from (process-provider.ts).
    ...(spec.networkVolume ? { RUNPOD_VOLUME_PATH: VOLUME_MOUNT_PATH } : {}),
  };
}

/**
 * Bridge mode: a load-balancing worker's PORT and PORT_HEALTH go to the loopback ports chosen for
 * them; every other port of the endpoint's `ports` is published on an ephemeral loopback port
 * the engine picks (the worker's log says which).
 */
function publish(
  options: Docker.ContainerCreateOptions,
  hostConfig: Docker.HostConfig,
  spec: WorkerSpec,
  published: { port: number; healthPort: number } | undefined,
): void {
  const bindings = new Map<string, string>();
  if (spec.http && published) {
    bindings.set(`${spec.http.port}/tcp`, String(published.port));
    if (spec.http.healthPort !== spec.http.port) bindings.set(`${spec.http.healthPort}/tcp`, String(published.healthPort));
  }
  for (const port of spec.ports) {
    const key = enginePortKey(port);
    if (key && !bindings.has(key)) bindings.set(key, '');
  }
  if (bindings.size === 0) return;
  options.ExposedPorts = Object.fromEntries([...bindings.keys()].map((key) => [key, {}]));
  hostConfig.PortBindings = Object.fromEntries([...bindings].map(([key, outside]) => [key, [{ HostIp: '127.0.0.1', HostPort: outside }]]));
}

/** The engine's key for a port: `8888/http` and `22/tcp` are TCP to it, `53/udp` is UDP. */
function enginePortKey(port: string): string | undefined {
  const parsed = portTransport(port);
  return parsed && `${parsed.port}/${parsed.transport}`;
}
