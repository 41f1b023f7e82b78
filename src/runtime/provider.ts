// The Provider port: what the runtime needs from whatever runs workers (local processes today;
// Docker or Kubernetes can implement the same port without the scaler changing).
import type { HttpAddress, HttpPorts } from '../domain/workers.js';

export interface WorkerSpec {
  workerId: string;
  endpointId: string;
  version: number;
  /** Recorded on the worker; the process provider runs the command below without pulling it. */
  image: string;
  /** The command is entrypoint followed by cmd. */
  entrypoint: string[];
  cmd: string[];
  env: Record<string, string>;
  /** Devices the worker may use (CUDA_VISIBLE_DEVICES). */
  gpuDeviceIds: string[];
  vcpuCount: number | null;
  /** Load-balancing workers serve HTTP: the ports the endpoint asks for (PORT, PORT_HEALTH). */
  http?: HttpPorts;
}

export interface WorkerHandle {
  workerId: string;
  pid?: number;
  startedAt: number;
  /** Set for workers started with `http`: the provider may have moved them to other ports. */
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
  /** Rejects with a message naming the problem when the worker cannot start. */
  start(spec: WorkerSpec): Promise<WorkerHandle>;
  /** Asks the worker to stop, kills it after graceMs, and resolves once it is gone. */
  stop(workerId: string, graceMs: number): Promise<void>;
  freeze(workerId: string): Promise<void>;
  thaw(workerId: string): Promise<void>;
  onExit(listener: (exit: WorkerExit) => void): () => void;
  logs(workerId: string, tail: number): LogLine[];
  followLogs(workerId: string, listener: (line: LogLine) => void): () => void;
  /** Stops every worker. */
  close(): Promise<void>;
}
