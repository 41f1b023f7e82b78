// Workers as local processes: entrypoint + cmd run directly (no shell), in their own process
// group so stopping or freezing a worker reaches everything it started. Workers see the
// endpoint's env and the worker-protocol variables, plus a short list of the host's variables
// they need to run programs — never Gantry's own environment or secrets. HTTP workers of
// load-balancing endpoints each get free loopback ports in PORT and PORT_HEALTH. A process
// cannot have /runpod-volume of its own: its network volume's directory is named in
// RUNPOD_VOLUME_PATH, and its working directory stays --worker-work-dir.
import type { Clock } from '../domain/clock.js';
import { spawn, type ChildProcess } from 'node:child_process';
import type { LogLine, Provider, WorkerExit, WorkerHandle, WorkerSpec } from './provider.js';
import { WorkerOutputs } from './worker-outputs.js';
import { localHttpPorts } from './free-ports.js';

const HOST_VARIABLES = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'USER', 'SHELL'];
interface Running {
  child: ChildProcess;
  stopping: boolean;
  exited: Promise<void>;
}

export interface ProcessProviderOptions {
  workDir: string;
  logLines?: number;
  /** The time workers' starts and exits are stamped with (the cluster's, decision 47). */
  clock?: Clock;
}

export class ProcessProvider implements Provider {
  readonly name = 'process';
  private readonly running = new Map<string, Running>();
  private readonly outputs: WorkerOutputs;
  private readonly now: Clock;

  constructor(private readonly options: ProcessProviderOptions) {
    this.now = options.clock ?? Date.now;
    this.outputs = new WorkerOutputs(options.logLines);
  }

  async start(spec: WorkerSpec): Promise<WorkerHandle> {
    const argv = [...spec.entrypoint, ...spec.cmd];
    // Containers may run their image's own command; a process has nothing else to run.
    if (argv.length === 0) throw new Error('the endpoint has no command: set args (or entrypoint/cmd) to what the worker runs');
    const env: Record<string, string> = {};
    for (const name of HOST_VARIABLES) if (process.env[name] !== undefined) env[name] = process.env[name]!;
    Object.assign(env, spec.env, {
      CUDA_VISIBLE_DEVICES: spec.gpuDeviceIds.join(','),
      GANTRY_WORKER_ID: spec.workerId,
      GANTRY_ENDPOINT_VERSION: String(spec.version),
      ...(spec.vcpuCount === null ? {} : { GANTRY_VCPU_COUNT: String(spec.vcpuCount) }),
      ...(spec.networkVolume ? { RUNPOD_VOLUME_PATH: spec.networkVolume.hostPath } : {}),
    });
    const http = spec.http ? { host: '127.0.0.1', ...(await localHttpPorts(spec.http)) } : undefined;
    if (http) Object.assign(env, { PORT: String(http.port), PORT_HEALTH: String(http.healthPort) });
    const logs = this.outputs.open(spec.workerId);
    const child = spawn(argv[0]!, argv.slice(1), { cwd: this.options.workDir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (err) => reject(new Error(`cannot run '${argv[0]}': ${err.message}`)));
    });
    logs.system(`started: ${argv.join(' ')} (pid ${child.pid})`);
    child.stdout!.on('data', (d: Buffer) => logs.write('stdout', d.toString()));
    child.stderr!.on('data', (d: Buffer) => logs.write('stderr', d.toString()));
    const entry: Running = {
      child,
      stopping: false,
      exited: new Promise((resolve) => {
        child.once('exit', (code, signal) => {
          logs.flush();
          logs.system(`exited: ${signal ? `signal ${signal}` : `code ${code}`}`);
          this.running.delete(spec.workerId);
          const exit: WorkerExit = { workerId: spec.workerId, code, signal, expected: entry.stopping, at: this.now() };
          this.outputs.exited(exit);
          resolve();
        });
      }),
    };
    this.running.set(spec.workerId, entry);
    return { workerId: spec.workerId, pid: child.pid, startedAt: this.now(), ...(http ? { http } : {}) };
  }

  async stop(workerId: string, graceMs: number): Promise<void> {
    const entry = this.running.get(workerId);
    if (!entry) return;
    entry.stopping = true;
    this.outputs.system(workerId, 'stopping');
    this.signal(entry, 'SIGCONT');
    this.signal(entry, 'SIGTERM');
    const timer = setTimeout(() => this.signal(entry, 'SIGKILL'), graceMs);
    await entry.exited;
    clearTimeout(timer);
    // Anything the worker left behind in its group goes too.
    this.signal(entry, 'SIGKILL');
  }

  async freeze(workerId: string): Promise<void> {
    const entry = this.running.get(workerId);
    if (!entry) return;
    this.signal(entry, 'SIGSTOP');
    this.outputs.system(workerId, 'frozen');
  }

  async thaw(workerId: string): Promise<void> {
    const entry = this.running.get(workerId);
    if (!entry) return;
    this.signal(entry, 'SIGCONT');
    this.outputs.system(workerId, 'thawed');
  }

  onExit(listener: (exit: WorkerExit) => void): () => void {
    return this.outputs.onExit(listener);
  }

  logs(workerId: string, tail: number): LogLine[] {
    return this.outputs.tail(workerId, tail);
  }

  followLogs(workerId: string, listener: (line: LogLine) => void): () => void {
    return this.outputs.follow(workerId, listener);
  }

  async close(graceMs: number): Promise<void> {
    await Promise.all([...this.running.keys()].map((id) => this.stop(id, graceMs)));
  }

  /** Signals the worker's whole process group. */
  private signal(entry: Running, signal: NodeJS.Signals): void {
    try {
      process.kill(-entry.child.pid!, signal);
    } catch {
      // Already gone.
    }
  }
}
