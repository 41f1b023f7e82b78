// Pods: long-running containers an account starts, stops and terminates by hand. Their stored
// configuration, their states and which actions each state allows. Pure rules.
import type { ContainerSettings } from './endpoint-spec.js';

export const POD_STATUSES = ['PROVISIONING', 'STARTING', 'RUNNING', 'EXITED', 'ERROR', 'TERMINATED'] as const;
export type PodStatus = (typeof POD_STATUSES)[number];

export const POD_ACTIONS = ['start', 'stop', 'restart', 'terminate'] as const;
export type PodAction = (typeof POD_ACTIONS)[number];

export interface PodGpu {
  typeId: string;
  count: number;
  allowedCudaVersions: string[];
  minCudaVersion: string | null;
}

export interface PodCpu {
  flavorId: string;
  vcpuCount: number;
  /** GB, from the flavor's RAM multiplier. */
  memory: number;
}

export interface PodSpec extends ContainerSettings {
  name: string;
  cloud: 'SECURE' | 'COMMUNITY';
  gpu: PodGpu | null;
  cpu: PodCpu | null;
  dataCenterIds: string[];
  /** Storage of the pod's own, kept across stop and start, removed on terminate. */
  persistent: { size: number; path: string } | null;
  network: { volumeId: string; path: string } | null;
  locked: boolean;
  /** Create-time: the account's SSH keys reach the container as PUBLIC_KEY at every start. */
  startSsh: boolean;
  startJupyter: boolean;
  /** Changed fields the running container has not got yet: they apply at the next start. */
  pendingRestart: string[];
}

/** Where a pod was placed; held while it is PROVISIONING, STARTING or RUNNING. */
export interface PodPlacement {
  dataCenterId: string;
  gpuTypeId: string | null;
  deviceIds: string[];
  cudaVersion: string | null;
  vcpuCount: number | null;
}

/** States in which a pod holds its GPUs or vCPUs. */
export const HOLDING_STATUSES: readonly PodStatus[] = ['PROVISIONING', 'STARTING', 'RUNNING'];

export function holdsResources(status: PodStatus): boolean {
  return HOLDING_STATUSES.includes(status);
}

/** The actions a pod in this state accepts; a locked pod cannot be stopped, restarted or terminated. */
export function allowedActions(status: PodStatus, locked: boolean): PodAction[] {
  const actions: PodAction[] = (() => {
    switch (status) {
      case 'RUNNING':
        return ['stop', 'restart', 'terminate'];
      case 'PROVISIONING':
      case 'STARTING':
        // A start in flight (an image pull, say) is not cut short: a stop or terminate waits for it.
        return ['stop', 'terminate'];
      case 'EXITED':
      case 'ERROR':
        return ['start', 'terminate'];
      case 'TERMINATED':
        return [];
    }
  })();
  return locked ? actions.filter((a) => a === 'start') : actions;
}

/** Fields whose change reaches the container only when it is made again, at the next start. */
export const RESTART_FIELDS = ['image', 'args', 'entrypoint', 'cmd', 'env', 'ports', 'disk', 'registry', 'mounts'] as const;

/** Ports a pod exposes, by protocol. */
export function podPorts(ports: readonly string[]): { port: number; protocol: 'http' | 'tcp' | 'udp' }[] {
  return ports.map((entry) => {
    const [port, protocol] = entry.split('/');
    return { port: Number(port), protocol: protocol as 'http' | 'tcp' | 'udp' };
  });
}
