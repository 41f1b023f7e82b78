// Pods as containers on the Docker engine the workers use. A container lives from a start to the
// next stop (its container disk goes with it, as the reference API describes); the pod's volume is
// a host directory bound in, so it outlives both. Output goes to a log buffer per pod, kept for
// the pod's whole life, across its stops and starts.
import type { Clock } from '../../domain/clock.js';
import type Docker from 'dockerode';
import { silentLogger, type Logger } from '../../domain/logger.js';
import { LogBuffer } from '../log-buffer.js';
import type { LogLine } from '../provider.js';
import type { PodEngine, PodLaunch, PodRun, PodUsage } from '../pod-engine.js';
import { LABELS } from './container-config.js';
import { ImagePuller } from './image-puller.js';
import { engineMessage } from './engine-message.js';
import { attachOutput } from './container-output.js';
import { gpuUtilization } from '../gpu-utilization.js';
import { diskLimitSupport, type StorageInfo } from './disk-limit.js';
import { planPodContainer, type PodEngineFacts, podContainerName, portsOfContainer, publishedPorts } from './pod-containers.js';

interface Live {
  container: Docker.Container;
  gpuDeviceIds: string[];
  run: PodRun;
  stopping: boolean;
  gone: Promise<void>;
}

export interface DockerPodsOptions {
  docker: Docker;
  instanceId: string;
  replicaId: string;
  logLines?: number;
  log?: Logger;
  /** The time pods' runs are stamped with (the cluster's, decision 47). */
  clock?: Clock;
}

export class DockerPods implements PodEngine {
  readonly name = 'docker';
  private readonly puller: ImagePuller;
  private readonly live = new Map<string, Live>();
  private readonly buffers = new Map<string, LogBuffer>();
  private readonly exitListeners = new Set<(podId: string, code: number | null) => void>();
  private engineFacts: Promise<PodEngineFacts> | undefined;
  private readonly log: Logger;
  private readonly now: Clock;

  constructor(private readonly options: DockerPodsOptions) {
    this.puller = new ImagePuller(options.docker);
    this.log = options.log ?? silentLogger;
    this.now = options.clock ?? Date.now;
  }

  async start(launch: PodLaunch, onProgress?: (message: string) => void): Promise<PodRun> {
    const logs = this.buffer(launch.podId);
    await this.removeContainer(launch.podId);
    await this.puller.ensure(launch.image, launch.registryLogin, {
      log: (line) => logs.system(line),
      ...(onProgress ? { progress: onProgress } : {}),
    });
    const plan = planPodContainer(launch, this.options, await this.facts());
    for (const note of plan.notes) logs.system(note);
    let container: Docker.Container;
    try {
      container = await this.options.docker.createContainer(plan.options);
    } catch (error) {
      throw new Error(`cannot create a container of '${launch.image}': ${engineMessage(error)}`);
    }
    try {
      await attachOutput(this.options.docker, container, logs);
      // Said before it starts, so the line comes before anything the container prints.
      logs.system(`starting container ${podContainerName(launch.podId)} of ${launch.image}`);
      const exited = container.wait({ condition: 'next-exit' });
      await container.start();
      const info = await container.inspect();
      const run: PodRun = { startedAt: this.now(), ports: publishedPorts(launch.ports, info) };
      this.track(launch.podId, container, run, exited, launch.gpuDeviceIds);
      return run;
    } catch (error) {
      await container.remove({ force: true }).catch(() => undefined);
      throw new Error(`cannot start a container of '${launch.image}': ${engineMessage(error)}`);
    }
  }

  async stop(podId: string, graceMs: number): Promise<void> {
    const entry = this.live.get(podId);
    if (!entry) {
      await this.removeContainer(podId);
      return;
    }
    entry.stopping = true;
    this.buffers.get(podId)?.system('stopping');
    await entry.container.stop({ t: Math.ceil(graceMs / 1000) }).catch(() => undefined);
    await entry.gone;
  }

  onExit(listener: (podId: string, code: number | null) => void): () => void {
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  running(podId: string): PodRun | undefined {
    return this.live.get(podId)?.run;
  }

  async usage(podId: string): Promise<PodUsage | undefined> {
    const entry = this.live.get(podId);
    if (!entry) return undefined;
    try {
      const [stats, gpus] = await Promise.all([
        entry.container.stats({ stream: false }) as unknown as Promise<EngineStats>,
        entry.gpuDeviceIds.length > 0 ? gpuUtilization(entry.gpuDeviceIds) : undefined,
      ]);
      return { ...usageOf(stats), ...(gpus ? { gpus: gpus.map(({ util, memoryUtil }) => ({ util, memoryUtil })) } : {}) };
    } catch {
      return undefined;
    }
  }

  async recover(known: ReadonlySet<string>): Promise<Map<string, PodRun>> {
    const adopted = new Map<string, PodRun>();
    // Every pod container of the engine: a replica that became leader adopts those another one
    // of the same deployment started (pod ids are the database's); it removes only its own strays.
    const containers = await this.options.docker.listContainers({ all: true, filters: { label: [`${LABELS.managed}=1`, LABELS.pod] } });
    for (const found of containers) {
      const podId = found.Labels[LABELS.pod]!;
      const mine = found.Labels[LABELS.instance] === this.options.instanceId;
      const container = this.options.docker.getContainer(found.Id);
      const tracked = this.live.get(podId);
      if (tracked) {
        adopted.set(podId, tracked.run);
        continue;
      }
      if (!known.has(podId)) {
        if (!mine) continue;
        await container.remove({ force: true }).catch(() => undefined);
        this.log.warn({ container: found.Names[0] }, 'removed the container of a pod that no longer exists');
        continue;
      }
      if (found.State !== 'running') {
        await container.remove({ force: true }).catch(() => undefined);
        continue;
      }
      const info = await container.inspect();
      const logs = this.buffer(podId);
      await attachOutput(this.options.docker, container, logs);
      const run: PodRun = { startedAt: Date.parse(info.State.StartedAt), ports: publishedPorts(portsOfContainer(info), info) };
      this.track(podId, container, run, container.wait({ condition: 'next-exit' }), gpuDevicesOf(info));
      logs.system('adopted the running container after a restart of Gantry');
      adopted.set(podId, run);
    }
    return adopted;
  }

  logs(podId: string, tail: number): LogLine[] {
    return this.buffers.get(podId)?.tail(tail) ?? [];
  }

  followLogs(podId: string, listener: (line: LogLine) => void): () => void {
    return this.buffer(podId).follow(listener);
  }

  note(podId: string, line: string): void {
    this.buffer(podId).system(line);
  }

  /** Forgets a terminated pod's log. */
  forget(podId: string): void {
    this.buffers.delete(podId);
  }

  private buffer(podId: string): LogBuffer {
    let logs = this.buffers.get(podId);
    if (!logs) {
      logs = new LogBuffer(this.options.logLines ?? 5000);
      this.buffers.set(podId, logs);
    }
    return logs;
  }

  private track(
    podId: string,
    container: Docker.Container,
    run: PodRun,
    exited: Promise<{ StatusCode?: number }>,
    gpuDeviceIds: string[],
  ): void {
    const entry: Live = { container, gpuDeviceIds, run, stopping: false, gone: Promise.resolve() };
    entry.gone = (async () => {
      let code: number | null = null;
      try {
        code = (await exited).StatusCode ?? null;
      } catch (error) {
        this.buffers.get(podId)?.system(`lost track of the container: ${engineMessage(error)}`);
      }
      const logs = this.buffer(podId);
      logs.flush();
      logs.system(`exited: code ${code}`);
      await container.remove({ force: true }).catch(() => undefined);
      if (this.live.get(podId) === entry) this.live.delete(podId);
      if (!entry.stopping) for (const listener of this.exitListeners) listener(podId, code);
    })();
    this.live.set(podId, entry);
  }

  private async removeContainer(podId: string): Promise<void> {
    await this.options.docker
      .getContainer(podContainerName(podId))
      .remove({ force: true })
      .catch(() => undefined);
  }

  private facts(): Promise<PodEngineFacts> {
    this.engineFacts ??= this.options.docker.info().then((info: StorageInfo & { NCPU?: number; Runtimes?: Record<string, unknown> }) => ({
      cpus: info.NCPU ?? Number.POSITIVE_INFINITY,
      nvidia: info.Runtimes !== undefined && 'nvidia' in info.Runtimes,
      diskLimit: diskLimitSupport(info),
    }));
    return this.engineFacts;
  }
}

interface EngineStats {
  cpu_stats?: { cpu_usage?: { total_usage?: number }; system_cpu_usage?: number; online_cpus?: number };
  precpu_stats?: { cpu_usage?: { total_usage?: number }; system_cpu_usage?: number };
  memory_stats?: { usage?: number; limit?: number; stats?: { inactive_file?: number } };
}

/** CPU as a percentage of the host's CPUs the container may use, memory of its limit, as `docker stats` computes them. */
function usageOf(stats: EngineStats): PodUsage {
  const cpuDelta = (stats.cpu_stats?.cpu_usage?.total_usage ?? 0) - (stats.precpu_stats?.cpu_usage?.total_usage ?? 0);
  const systemDelta = (stats.cpu_stats?.system_cpu_usage ?? 0) - (stats.precpu_stats?.system_cpu_usage ?? 0);
  const cpus = stats.cpu_stats?.online_cpus ?? 1;
  const cpuPercent = cpuDelta > 0 && systemDelta > 0 ? (cpuDelta / systemDelta) * cpus * 100 : 0;
  const used = (stats.memory_stats?.usage ?? 0) - (stats.memory_stats?.stats?.inactive_file ?? 0);
  const limit = stats.memory_stats?.limit ?? 0;
  return { cpuPercent: Math.round(cpuPercent), memoryPercent: limit > 0 ? Math.round((100 * Math.max(0, used)) / limit) : 0 };
}

/** The devices an adopted container was given, from the env Gantry set on it. */
function gpuDevicesOf(info: Docker.ContainerInspectInfo): string[] {
  const value = (info.Config.Env ?? [])
    .find((entry) => entry.startsWith('NVIDIA_VISIBLE_DEVICES='))
    ?.slice('NVIDIA_VISIBLE_DEVICES='.length);
  return !value || value === 'void' ? [] : value.split(',');
}
