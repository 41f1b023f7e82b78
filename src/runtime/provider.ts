// The Provider port: what the runtime needs from whatever runs workers — local processes today;
// a container engine or a cluster scheduler can implement the same port without the control
// loop changing. The runtime decides how many workers of which endpoint run and on which
// devices (capacity); the provider runs them, wherever it puts them.
//
// Contract:
// - start(spec) resolves once the worker runs (its process or container is up; the worker itself
//   may still be booting) and rejects with a message naming the problem when it cannot start. It
//   may take long (pulling an image): it reports what it is doing through `onProgress`.
// - A worker started with `spec.http` serves HTTP: the handle's `http` says where it is reached,
//   host included. The provider chooses the host and may choose other ports than those asked
//   for; the runtime and the balancer use only this address and never assume the local machine.
// - stop(workerId, graceMs) asks the worker to stop, ends it after graceMs, and resolves once it
//   is gone. Stopping a worker that is not running resolves at once.
// - freeze/thaw pause and resume a worker in place (FlashBoot): a frozen worker keeps its memory
//   and its connections but runs nothing. Either resolves at once for a worker not running.
// - onExit listeners hear of every worker that ended, once: `expected` is true when stop() (or
//   close()) caused it, false when it exited or crashed by itself.
// - logs/followLogs give a worker's recent output, and keep it for a while after the worker is
//   gone so a crash can be explained.
// - close(graceMs) stops every worker it started, each as stop(workerId, graceMs) would.
import type { HttpAddress, HttpPorts } from '../domain/workers.js';

export interface WorkerSpec {
  workerId: string;
  endpointId: string;
  version: number;
  /** The image the endpoint runs; the process provider records it and runs the command below. */
  image: string;
  /** The command is entrypoint followed by cmd. */
  entrypoint: string[];
  cmd: string[];
  env: Record<string, string>;
  /** Devices the worker may use (CUDA_VISIBLE_DEVICES). */
  gpuDeviceIds: string[];
  vcpuCount: number | null;
  /** The memory of its CPU flavor at that size (null for GPU workers): a limit where the provider can set one. */
  memoryGb: number | null;
  /** The endpoint's `ports` (`port/protocol`): published on loopback by providers that isolate the network. */
  ports: string[];
  /** The endpoint's container disk in GB: the writable layer's size, where the provider can limit it. */
  diskGb: number;
  /** Load-balancing workers serve HTTP: the ports the endpoint asks for (PORT, PORT_HEALTH). */
  http?: HttpPorts;
  /**
   * The endpoint's network volume in the worker's data center: its directory on the provider's
   * host (shared storage for a provider of several hosts). Containers mount it at /runpod-volume;
   * see docs/providers.md for what each provider does.
   */
  networkVolume?: { volumeId: string; hostPath: string };
}

export interface StartOptions {
  /** What a slow start is doing (pulling an image, waiting for a node), for the logs. */
  onProgress?: (message: string) => void;
}

export interface WorkerHandle {
  workerId: string;
  /** The worker's process id, where it has one on this machine. */
  pid?: number;
  startedAt: number;
  /** Set for workers started with `http`: the host and ports where the provider made it serve. */
  http?: HttpAddress;
}

export interface WorkerExit {
  workerId: string;
  code: number | null;
  signal: string | null;
  /** True when stop() caused it. */
  expected: boolean;
  at: number;
}

export interface LogLine {
  ts: string;
  source: 'stdout' | 'stderr' | 'system';
  line: string;
}

export interface Provider {
  readonly name: string;
  /** Two workers of one load-balancing endpoint cannot run at once here: they bind its own ports. */
  readonly oneHttpWorkerPerHost?: boolean;
  start(spec: WorkerSpec, options?: StartOptions): Promise<WorkerHandle>;
  stop(workerId: string, graceMs: number): Promise<void>;
  freeze(workerId: string): Promise<void>;
  thaw(workerId: string): Promise<void>;
  onExit(listener: (exit: WorkerExit) => void): () => void;
  logs(workerId: string, tail: number): LogLine[];
  followLogs(workerId: string, listener: (line: LogLine) => void): () => void;
  close(graceMs: number): Promise<void>;
}
