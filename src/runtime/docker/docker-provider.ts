// Workers as containers on a Docker engine (DOCKER_HOST, or /var/run/docker.sock). Each worker
// is one container made from the endpoint's image: pulled when missing, run with the image's
// own command unless the endpoint overrides it, its output in the worker's log, paused and
// unpaused by FlashBoot, stopped with the image's stop signal then killed after the grace, and
// removed once it has exited. Containers carry this instance's label, so the ones a killed
// Gantry left behind are removed when it comes back.
import type { Clock } from '../../domain/clock.js';
import Docker from 'dockerode';
import type { Logger } from '../../domain/logger.js';
import { silentLogger } from '../../domain/logger.js';
import type { LogLine, Provider, StartOptions, WorkerExit, WorkerHandle, WorkerSpec } from '../provider.js';
import type { LogBuffer } from '../log-buffer.js';
import { WorkerOutputs } from '../worker-outputs.js';
import { localHttpPorts } from '../free-ports.js';
import { containerName, planContainer, type ContainerPlan, type DockerNetwork } from './container-config.js';
import { diskLimitSupport, isStorageOptRefusal, type DiskLimitSupport, type StorageInfo } from './disk-limit.js';
import { ImagePuller, type RegistryLogin } from './image-puller.js';
import { engineMessage } from './engine-message.js';
import { attachOutput } from './container-output.js';
import { removeOrphans } from './orphans.js';
import { DockerPods } from './docker-pods.js';

export interface DockerProviderOptions {
  /** The engine; by default the one DOCKER_HOST names, or the local socket. */
  docker?: Docker;
  network: DockerNetwork;
  /** Labels this instance's containers (see instance-id.ts). */
  instanceId: string;
  /** Labels each container with the replica that started it, for operators. */
  replicaId: string;
  /**
   * Bridge mode: containers cannot reach Gantry's loopback address, so worker-protocol URLs
   * beginning with `from` (the address the runtime hands out) are rewritten to begin with `to`.
   */
  workerApiUrl?: { from: string; to: string };
  /** The registry login an endpoint's image is pulled with, if it names one. */
  registryLogin?: (endpointId: string) => Promise<RegistryLogin | undefined>;
  logLines?: number;
  log?: Logger;
  /** The time workers' starts and exits are stamped with (the cluster's, decision 47). */
  clock?: Clock;
}

interface Running {
  container: Docker.Container;
  stopping: boolean;
  paused: boolean;
  /** Resolves once the container has exited and been removed. */
  gone: Promise<void>;
  /** The stop under way, which later stop calls wait for. */
  stopped?: Promise<void>;
}

export class DockerProvider implements Provider {
  readonly name = 'docker';
  private readonly docker: Docker;
  private readonly puller: ImagePuller;
  private readonly log: Logger;
  private readonly now: Clock;
  private readonly running = new Map<string, Running>();
  private readonly outputs: WorkerOutputs;
  private orphansRemoved: Promise<void> | undefined;
  private closing = false;
  private engineInfo: Promise<EngineFacts> | undefined;
  /** Pods run on the same engine, under the same instance label. */
  readonly pods: DockerPods;

  /** Host networking: a load-balancing worker listens on exactly its endpoint's ports. */
  get oneHttpWorkerPerHost(): boolean {
    return this.options.network === 'host';
  }

  constructor(private readonly options: DockerProviderOptions) {
    this.now = options.clock ?? Date.now;
    this.docker = options.docker ?? new Docker();
    this.puller = new ImagePuller(this.docker);
    this.log = options.log ?? silentLogger;
    this.outputs = new WorkerOutputs(options.logLines);
    this.pods = new DockerPods({
      docker: this.docker,
      instanceId: options.instanceId,
      replicaId: options.replicaId,
      log: this.log.child({ component: 'pods' }),
      clock: this.now,
    });
  }

  /**
   * Removes the containers a previous run of this instance left behind. Runs once; every start
   * waits for it, so a container being created is never taken for an orphan.
   */
  removeOrphans(): Promise<void> {
    this.orphansRemoved ??= removeOrphans(this.docker, this.options.instanceId, (workerId) => this.running.has(workerId)).then(
      (removed) => {
        if (removed.length > 0) this.log.warn({ containers: removed }, 'removed containers a previous run left behind');
      },
      (err: unknown) => {
        // Not fatal: the engine may come up later; the next start tries again.
        this.orphansRemoved = undefined;
        this.log.warn({ err }, 'could not look for containers a previous run left behind');
      },
    );
    return this.orphansRemoved;
  }

  async start(spec: WorkerSpec, options: StartOptions = {}): Promise<WorkerHandle> {
    await this.removeOrphans();
    const logs = this.outputs.open(spec.workerId);
    const login = await this.options.registryLogin?.(spec.endpointId);
    await this.puller.ensure(spec.image, login, {
      log: (line) => logs.system(line),
      ...(options.onProgress ? { progress: options.onProgress } : {}),
    });
    // Shut down while it pulled: a container made now would outlive the process.
    if (this.closing) throw new Error(`the start of a container of '${spec.image}' was given up: Gantry is shutting down`);
    options.onProgress?.(`creating the container of ${spec.image}`);
    const published = this.options.network === 'bridge' && spec.http ? await localHttpPorts(spec.http) : undefined;
    const container = await this.createContainer({ ...spec, env: this.rewriteWorkerUrls(spec.env) }, logs, published);
    try {
      await attachOutput(this.docker, container, logs);
      // Said before it starts, so the line comes before anything the container prints.
      logs.system(`starting container ${containerName(spec.workerId)} of ${spec.image}: ${commandOf(await container.inspect())}`);
      const exited = container.wait({ condition: 'next-exit' });
      await container.start();
      const info = await container.inspect();
      const entry: Running = { container, stopping: false, paused: false, gone: Promise.resolve() };
      entry.gone = this.whenExited(spec.workerId, entry, logs, exited);
      this.running.set(spec.workerId, entry);
      for (const line of publishedPortLines(info)) logs.system(line);
      const http = spec.http ? { host: '127.0.0.1', ...(published ?? spec.http) } : undefined;
      return { workerId: spec.workerId, pid: info.State.Pid, startedAt: this.now(), ...(http ? { http } : {}) };
    } catch (error) {
      await container.remove({ force: true }).catch(() => undefined);
      throw new Error(`cannot start a container of '${spec.image}': ${engineMessage(error)}`);
    }
  }

  async stop(workerId: string, graceMs: number): Promise<void> {
    const entry = this.running.get(workerId);
    if (!entry) return;
    // One stop per container: overlapping stop requests can leave the engine reporting a killed
    // container as running.
    entry.stopped ??= (async () => {
      entry.stopping = true;
      this.outputs.system(workerId, 'stopping');
      if (entry.paused) await entry.container.unpause().catch(() => undefined);
      // The engine sends the image's stop signal (SIGTERM unless it says otherwise), then SIGKILL.
      await entry.container.stop({ t: Math.ceil(graceMs / 1000) }).catch(() => undefined);
      await entry.gone;
    })();
    return entry.stopped;
  }

  async freeze(workerId: string): Promise<void> {
    const entry = this.running.get(workerId);
    if (!entry || entry.paused) return;
    await entry.container.pause();
    entry.paused = true;
    this.outputs.system(workerId, 'paused');
  }

  async thaw(workerId: string): Promise<void> {
    const entry = this.running.get(workerId);
    if (!entry || !entry.paused) return;
    await entry.container.unpause();
    entry.paused = false;
    this.outputs.system(workerId, 'unpaused');
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
    this.closing = true;
    this.puller.close();
    await Promise.all([...this.running.keys()].map((id) => this.stop(id, graceMs)));
  }

  /** Reports the exit (unless stop() asked for it, which the listener is told) and removes the container. */
  private async whenExited(workerId: string, entry: Running, logs: LogBuffer, exited: Promise<{ StatusCode?: number }>): Promise<void> {
    let code: number | null = null;
    try {
      code = (await exited).StatusCode ?? null;
    } catch (error) {
      logs.system(`lost track of the container: ${engineMessage(error)}`);
    }
    logs.flush();
    logs.system(`exited: code ${code}`);
    await entry.container.remove({ force: true }).catch(() => undefined);
    this.running.delete(workerId);
    const exit: WorkerExit = { workerId, code, signal: null, expected: entry.stopping, at: this.now() };
    this.outputs.exited(exit);
  }

  private rewriteWorkerUrls(env: Record<string, string>): Record<string, string> {
    const rewrite = this.options.workerApiUrl;
    if (!rewrite || rewrite.from === rewrite.to) return env;
    return Object.fromEntries(
      Object.entries(env).map(([name, value]) => [
        name,
        value.startsWith(rewrite.from) ? rewrite.to + value.slice(rewrite.from.length) : value,
      ]),
    );
  }

  /**
   * Creates the worker's container. An engine that refuses the disk limit (overlay2 on xfs without
   * project quotas) is asked again without it, and not asked again: the log says the disk is not enforced.
   */
  private async createContainer(
    spec: WorkerSpec,
    logs: LogBuffer,
    published: { port: number; healthPort: number } | undefined,
  ): Promise<Docker.Container> {
    const facts = await this.engineFacts();
    const plan = (): ContainerPlan =>
      planContainer({
        spec,
        network: this.options.network,
        instanceId: this.options.instanceId,
        replicaId: this.options.replicaId,
        hostCpus: facts.cpus,
        diskLimit: facts.diskLimit,
        ...(published ? { publishedPorts: published } : {}),
      });
    let attempt = plan();
    try {
      try {
        return await this.docker.createContainer(attempt.options);
      } catch (error) {
        const message = engineMessage(error);
        if (!facts.diskLimit.supported || !isStorageOptRefusal(message)) throw error;
        facts.diskLimit = { supported: false, reason: `the engine refused a size limit (${message})` };
        attempt = plan();
        return await this.docker.createContainer(attempt.options);
      }
    } catch (error) {
      throw new Error(`cannot create a container of '${spec.image}': ${engineMessage(error)}`);
    } finally {
      for (const note of attempt.notes) logs.system(note);
    }
  }

  private engineFacts(): Promise<EngineFacts> {
    this.engineInfo ??= this.docker.info().then((info: StorageInfo & { NCPU?: number }) => ({
      cpus: info.NCPU ?? Number.POSITIVE_INFINITY,
      diskLimit: diskLimitSupport(info),
    }));
    return this.engineInfo;
  }
}

interface EngineFacts {
  cpus: number;
  diskLimit: DiskLimitSupport;
}

/** Where the engine published each port in bridge mode, for the worker's log. */
function publishedPortLines(info: Docker.ContainerInspectInfo): string[] {
  const ports = (info.NetworkSettings.Ports ?? {}) as Record<string, { HostIp: string; HostPort: string }[] | null>;
  return Object.entries(ports).flatMap(([inside, bindings]) =>
    (bindings ?? []).map((b) => `port ${inside} published on ${b.HostIp}:${b.HostPort}`),
  );
}

/** The command the container runs, as the log shows it. */
function commandOf(info: Docker.ContainerInspectInfo): string {
  return [info.Path, ...info.Args].join(' ');
}
