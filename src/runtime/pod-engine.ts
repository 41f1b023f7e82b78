// The PodEngine port: what the pod service needs from whatever runs pods' containers. Only the
// Docker provider has one; a pod is a container with its own network namespace and published ports.
//
// Contract:
// - start(launch) makes a fresh container of the pod (removing one left from an earlier start) and
//   resolves once it runs, with the ports it published; rejects naming the problem otherwise.
// - stop(podId) stops the container (the image's stop signal, then a kill after graceMs) and
//   removes it; the pod's storage is host directories, so nothing of value goes with it.
// - onExit hears of containers that ended by themselves (not through stop), once each.
// - recover(known) runs once at startup: containers of pods not in `known` are removed; running
//   ones are adopted (their output followed again) and reported with their ports.
import type { LogLine } from './provider.js';
import type { RegistryLogin } from './ports.js';

export interface PodPortMapping {
  /** The port inside the container. */
  private: number;
  /** The host port it is published on; null when it is not published. */
  public: number | null;
  type: 'http' | 'tcp' | 'udp';
  /** The host address it is published on. */
  ip: string | null;
}

export interface PodLaunch {
  podId: string;
  image: string;
  entrypoint: string[];
  cmd: string[];
  env: Record<string, string>;
  ports: { port: number; protocol: 'http' | 'tcp' | 'udp' }[];
  gpuDeviceIds: string[];
  vcpuCount: number | null;
  memoryGb: number | null;
  /** Container disk in GB: the writable layer's size, where the engine can limit it. */
  diskGb: number;
  /** Host directories bound into the container. */
  mounts: { hostPath: string; path: string }[];
  registryLogin?: RegistryLogin;
}

export interface PodRun {
  startedAt: number;
  ports: PodPortMapping[];
}

export interface PodUsage {
  cpuPercent: number;
  memoryPercent: number;
  /** Per GPU of the pod, where the host can measure them (nvidia-smi). */
  gpus?: { util: number; memoryUtil: number }[];
}

export interface PodEngine {
  readonly name: string;
  start(launch: PodLaunch, onProgress?: (message: string) => void): Promise<PodRun>;
  stop(podId: string, graceMs: number): Promise<void>;
  onExit(listener: (podId: string, code: number | null) => void): () => void;
  /** The pod's running container, if it has one. */
  running(podId: string): PodRun | undefined;
  usage(podId: string): Promise<PodUsage | undefined>;
  recover(known: ReadonlySet<string>): Promise<Map<string, PodRun>>;
  logs(podId: string, tail: number): LogLine[];
  followLogs(podId: string, listener: (line: LogLine) => void): () => void;
  /** A line of the pod's log written by Gantry (a pull, a start, a stop). */
  note(podId: string, line: string): void;
}
