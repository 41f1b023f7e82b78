// How a pod becomes a container: its own network namespace with every port of the pod published
// (HTTP ports on loopback only, reached through Gantry's authenticated proxy; TCP and UDP ports on
// every interface, as SSH needs), its storage bound from host directories, and the labels that
// tell Gantry's orphan sweep to leave it alone.
import type Docker from 'dockerode';
import type { PodLaunch, PodPortMapping } from '../pod-engine.js';
import { LABELS } from './container-config.js';
import type { DiskLimitSupport } from './disk-limit.js';

export interface PodEngineFacts {
  cpus: number;
  nvidia: boolean;
  diskLimit: DiskLimitSupport;
}

export function podContainerName(podId: string): string {
  return `gantry-pod-${podId}`;
}

export function planPodContainer(
  launch: PodLaunch,
  owner: { instanceId: string; replicaId: string },
  engine: PodEngineFacts,
): { options: Docker.ContainerCreateOptions; notes: string[] } {
  const notes: string[] = [];
  const hostConfig: Docker.HostConfig = {
    NetworkMode: 'bridge',
    ExtraHosts: ['host.docker.internal:host-gateway'],
    Binds: launch.mounts.map((m) => `${m.hostPath}:${m.path}`),
    PortBindings: Object.fromEntries(
      launch.ports.map((p) => [portKey(p), [{ HostIp: p.protocol === 'http' ? '127.0.0.1' : '', HostPort: '' }]]),
    ),
  };
  if (launch.vcpuCount !== null) hostConfig.NanoCpus = Math.round(Math.min(launch.vcpuCount, engine.cpus) * 1e9);
  if (launch.memoryGb !== null) hostConfig.Memory = launch.memoryGb * 1024 ** 3;
  if (engine.diskLimit.supported) hostConfig.StorageOpt = { size: `${launch.diskGb}G` };
  else notes.push(`container disk of ${launch.diskGb} GB not enforced: ${engine.diskLimit.reason}`);
  if (launch.gpuDeviceIds.length > 0) {
    if (engine.nvidia) hostConfig.DeviceRequests = [{ Driver: 'nvidia', DeviceIDs: launch.gpuDeviceIds, Capabilities: [['gpu']] }];
    // Declared GPUs (a capacity file) on an engine without the NVIDIA runtime are held, not exposed.
    else notes.push(`the engine has no NVIDIA runtime: GPUs ${launch.gpuDeviceIds.join(', ')} are held for the pod but not exposed`);
  }
  const env = {
    ...launch.env,
    NVIDIA_VISIBLE_DEVICES: launch.gpuDeviceIds.length > 0 ? launch.gpuDeviceIds.join(',') : 'void',
    RUNPOD_POD_ID: launch.podId,
    RUNPOD_GPU_COUNT: String(launch.gpuDeviceIds.length),
    ...(launch.vcpuCount === null ? {} : { RUNPOD_CPU_COUNT: String(launch.vcpuCount) }),
  };
  const options: Docker.ContainerCreateOptions = {
    name: podContainerName(launch.podId),
    Image: launch.image,
    Env: Object.entries(env).map(([name, value]) => `${name}=${value}`),
    Labels: {
      [LABELS.managed]: '1',
      [LABELS.instance]: owner.instanceId,
      [LABELS.replica]: owner.replicaId,
      [LABELS.pod]: launch.podId,
    },
    ExposedPorts: Object.fromEntries(launch.ports.map((p) => [portKey(p), {}])),
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    OpenStdin: false,
    HostConfig: hostConfig,
    // Docker's rule, as for workers: an ENTRYPOINT given drops the image's CMD too.
    ...(launch.entrypoint.length > 0
      ? { Entrypoint: launch.entrypoint, Cmd: launch.cmd }
      : launch.cmd.length > 0
        ? { Cmd: launch.cmd }
        : {}),
  };
  return { options, notes };
}

function portKey(p: { port: number; protocol: string }): string {
  return `${p.port}/${p.protocol === 'udp' ? 'udp' : 'tcp'}`;
}

/** The published ports, from the engine's view of the running container. */
export function publishedPorts(launchPorts: PodLaunch['ports'], info: Docker.ContainerInspectInfo): PodPortMapping[] {
  const bindings = (info.NetworkSettings.Ports ?? {}) as Record<string, { HostIp: string; HostPort: string }[] | null>;
  return launchPorts.map((p) => {
    const bound = bindings[portKey(p)]?.find((b) => !b.HostIp.includes(':')) ?? bindings[portKey(p)]?.[0];
    return {
      private: p.port,
      public: bound ? Number(bound.HostPort) : null,
      type: p.protocol,
      ip: bound ? bound.HostIp || '0.0.0.0' : null,
    };
  });
}

/** The pod's ports as its container's labels and bindings tell them, for a container adopted after a restart. */
export function portsOfContainer(info: Docker.ContainerInspectInfo): PodLaunch['ports'] {
  const http = new Set(
    Object.entries((info.HostConfig.PortBindings ?? {}) as Record<string, { HostIp: string }[]>)
      .filter(([, b]) => b.some((x) => x.HostIp === '127.0.0.1'))
      .map(([key]) => key),
  );
  return Object.keys(info.Config.ExposedPorts ?? {}).map((key) => {
    const [port, proto] = key.split('/');
    return { port: Number(port), protocol: proto === 'udp' ? 'udp' : http.has(key) ? 'http' : 'tcp' };
  });
}
