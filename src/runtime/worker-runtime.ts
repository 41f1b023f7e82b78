// Gantry's own workers: a control loop per endpoint that places, starts, freezes, thaws and
// stops worker processes by the scaling policy, replaces crashed and unhealthy ones, and rolls
// stale ones onto the current configuration after their current job. Queue workers are known
// through the worker protocol (registry); load-balancing workers through the balancer.
import type { GantryConfig } from '../config.js';
import type { EndpointRecord, Store } from '../store/store.js';
import type { WorkerRegistry } from './worker-registry.js';
import type { QueueSignals, WorkerCredentialIssuer } from './ports.js';
import { idleTimeoutApplies } from '../domain/endpoint-spec.js';
import { decideScaling, type ScalingInputs } from '../domain/scaling-policy.js';
import { randomId } from '../domain/ids.js';
import type { CapacityPool } from '../catalog/capacity-pool.js';
import type { Provider, WorkerExit } from './provider.js';
import { CrashTracker } from './crash-tracker.js';
import { launchSpec } from './worker-launch.js';
import { deriveHttpState, deriveState, type ManagedWorker } from './managed-worker.js';
import type { BalancerPool } from './balancer-pool.js';
import { httpWorkerSettings } from '../domain/http-worker.js';
import { FrozenPool } from './frozen-pool.js';
import type { WorkerState } from '../domain/workers.js';
import type { Logger } from '../domain/logger.js';

export class WorkerRuntime {
  private readonly workers = new Map<string, ManagedWorker>();
  private readonly crashes: CrashTracker;
  private readonly frozen: FrozenPool;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private again = false;
  private soon: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private active = false;
  private listening = false;
  private unsubscribeHeld: (() => void) | undefined;

  constructor(
    private readonly store: Store,
    private readonly provider: Provider,
    private readonly capacity: CapacityPool,
    private readonly registry: WorkerRegistry,
    private readonly credentials: WorkerCredentialIssuer,
    private readonly events: QueueSignals,
    private readonly config: GantryConfig,
    private readonly log: Logger,
    private readonly balancer: BalancerPool,
    private readonly now: () => number = Date.now,
  ) {
    this.crashes = new CrashTracker(config.crashBackoffMs, 60_000);
    this.frozen = new FrozenPool();
  }

  /** Starts the control loop; after stop() it may start again (a replica that regains leadership). */
  start(): void {
    if (this.active) return;
    this.active = true;
    this.unsubscribe = this.provider.onExit((exit) => void this.exited(exit));
    if (!this.listening) {
      this.listening = true;
      this.events.onQueued((endpointId) => this.nudge(endpointId));
    }
    // A held request means no worker had room: the scaler should look now, not at its next tick.
    this.unsubscribeHeld = this.balancer.onHeld(() => this.runSoon());
    this.timer = setInterval(() => void this.tick(), this.config.scaleIntervalMs);
    this.timer.unref();
    void this.tick();
  }

  /** Stops every worker this runtime started and frees their capacity. */
  async stop(): Promise<void> {
    this.active = false;
    clearInterval(this.timer);
    clearTimeout(this.soon);
    this.soon = undefined;
    this.unsubscribe?.();
    this.unsubscribeHeld?.();
    await this.ticking;
    await this.provider.close();
    for (const worker of this.workers.values()) {
      this.capacity.release(worker.workerId);
      this.frozen.remove(worker.endpointId, worker.workerId);
      this.registry.forget(worker.workerId);
      this.balancer.remove(worker.workerId);
    }
    this.workers.clear();
  }

  /** Endpoints that have workers here, frozen ones included. */
  endpointIds(): Set<string> {
    return new Set([...this.workers.values()].map((w) => w.endpointId));
  }

  /**
   * A job arrived and no worker was waiting for it. With no worker at all (scale from zero) the
   * loop runs at once rather than at its next tick; otherwise the regular tick decides.
   */
  nudge(endpointId: string): void {
    if (!this.active) return;
    if (this.workersOf(endpointId).length > 0) return;
    this.runSoon();
  }

  /** Runs one pass shortly, coalescing the requests that arrive meanwhile. */
  runSoon(): void {
    if (!this.active || this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      void this.tick();
    }, 0);
  }

  /** One pass over every endpoint. Passes never overlap; one asked for during a pass runs right after it. */
  tick(): Promise<void> {
    if (this.ticking) {
      this.again = true;
      return this.ticking;
    }
    this.ticking = (async () => {
      do {
        this.again = false;
        await this.reconcileAll().catch((err: unknown) => this.log.error({ err }, 'worker runtime pass failed'));
      } while (this.again);
    })().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  workersOf(endpointId: string): ManagedWorker[] {
    return [...this.workers.values()].filter((w) => w.endpointId === endpointId && w.phase !== 'FROZEN');
  }

  stateOf(worker: ManagedWorker): WorkerState {
    if (worker.routing === 'LOAD_BALANCER') return deriveHttpState(worker, this.balancer.get(worker.workerId), this.now(), this.config);
    return deriveState(worker, this.registry.activity(worker.workerId), this.now(), this.config);
  }

  /** Jobs or requests the worker holds now, and since when it holds none. */
  private loadOf(worker: ManagedWorker): { busy: number; idleSince: number | null } {
    if (worker.routing === 'LOAD_BALANCER') {
      const backend = this.balancer.get(worker.workerId);
      return { busy: backend?.inFlight ?? 0, idleSince: backend?.idleSince ?? null };
    }
    const activity = this.registry.activity(worker.workerId);
    return { busy: activity?.busy ?? 0, idleSince: activity ? activity.idleSince : null };
  }

  crashReport(endpointId: string) {
    return this.crashes.report(endpointId);
  }

  logs(workerId: string, tail: number) {
    return this.provider.logs(workerId, tail);
  }

  followLogs(workerId: string, listener: Parameters<Provider['followLogs']>[1]) {
    return this.provider.followLogs(workerId, listener);
  }

  isManaged(workerId: string): boolean {
    return this.workers.has(workerId);
  }

  private async reconcileAll(): Promise<void> {
    const endpoints = await this.store.listAllEndpoints();
    const live = new Set(endpoints.map((e) => e.id));
    for (const worker of [...this.workers.values()]) {
      if (!live.has(worker.endpointId)) await this.retire(worker, 'its endpoint was deleted');
    }
    for (const endpoint of endpoints) await this.reconcile(endpoint);
  }

  private async reconcile(endpoint: EndpointRecord): Promise<void> {
    const now = this.now();
    await this.expireFrozen(endpoint, now);
    const mine = this.workersOf(endpoint.id);
    for (const worker of mine) await this.tend(worker, endpoint, now);
    const active = this.workersOf(endpoint.id).filter((w) => w.phase !== 'STOPPING');

    const inputs: ScalingInputs = {
      now,
      ...(await this.demandOf(endpoint)),
      workers: active.map((w) => ({ workerId: w.workerId, state: this.stateOf(w), ...this.loadOf(w), startedAt: w.createdAt })),
      min: endpoint.spec.workers.min,
      max: endpoint.spec.workers.max,
      idleTimeoutSec: idleTimeoutApplies(endpoint.spec.type, endpoint.spec.scaling) ? endpoint.spec.workers.idleTimeout : null,
      scaling: endpoint.spec.scaling,
    };
    const decision = decideScaling(inputs);
    for (const workerId of decision.stop) {
      const worker = this.workers.get(workerId);
      if (worker) await this.scaleDown(worker, endpoint);
    }
    for (let i = 0; i < decision.start; i++) {
      if (!(await this.scaleUp(endpoint, now))) break;
    }
  }

  /** The work waiting and running: queued jobs, or requests held by the balancer and in flight. */
  private async demandOf(endpoint: EndpointRecord): Promise<Pick<ScalingInputs, 'queued' | 'queuedLowPriority' | 'oldestQueuedAt' | 'inFlight'>> {
    if (endpoint.spec.type === 'LOAD_BALANCER') {
      const { held, inFlight } = this.balancer.demand(endpoint.id);
      return { queued: held, queuedLowPriority: 0, oldestQueuedAt: null, inFlight };
    }
    const stats = await this.store.jobs.queueStats(endpoint.id);
    return { queued: stats.queued, queuedLowPriority: stats.queuedLowPriority, oldestQueuedAt: stats.oldestQueuedAt, inFlight: stats.inProgress };
  }

  /** Per-worker upkeep: place throttled ones, drain stale or recycled ones, replace unhealthy ones. */
  private async tend(worker: ManagedWorker, endpoint: EndpointRecord, now: number): Promise<void> {
    if (worker.phase === 'THROTTLED') {
      await this.launch(worker, endpoint);
      return;
    }
    if (worker.phase !== 'RUNNING') return;
    if (worker.routing === 'LOAD_BALANCER') return this.tendHttp(worker, endpoint, now);
    const activity = this.registry.activity(worker.workerId);
    if (activity && activity.lastSeenAt >= worker.createdAt) this.crashes.recovered(endpoint.id);
    const busy = activity?.busy ?? 0;
    const stale = worker.version < endpoint.version;
    if ((stale || activity?.recycleRequested) && busy === 0) {
      await this.retire(worker, stale ? `rolling to version ${endpoint.version}` : 'the worker asked to be recycled');
      return;
    }
    if (this.stateOf(worker) === 'UNHEALTHY' && now - (activity?.lastSeenAt ?? worker.createdAt) > this.config.jobLeaseMs) {
      await this.retire(worker, activity?.unhealthy ? `unhealthy: ${activity.unhealthy}` : 'unhealthy: stopped answering');
    }
  }

  private async tendHttp(worker: ManagedWorker, endpoint: EndpointRecord, now: number): Promise<void> {
    const backend = this.balancer.get(worker.workerId);
    if (backend?.lastReadyAt != null) this.crashes.recovered(endpoint.id);
    const busy = backend?.inFlight ?? 0;
    if (worker.version < endpoint.version && busy === 0) {
      await this.retire(worker, `rolling to version ${endpoint.version}`);
      return;
    }
    if (this.stateOf(worker) !== 'UNHEALTHY') return;
    if (backend?.unhealthySince != null && now - backend.unhealthySince < this.config.lbUnhealthyMs) return;
    await this.retire(worker, `unhealthy: ${backend?.reason ?? 'never became ready'}`);
  }

  private async scaleUp(endpoint: EndpointRecord, now: number): Promise<boolean> {
    const thawed = this.frozen.take(endpoint.id, endpoint.version);
    if (thawed) {
      const worker = this.workers.get(thawed);
      if (worker) {
        await this.provider.thaw(worker.workerId);
        if (worker.routing === 'LOAD_BALANCER') {
          this.balancer.unpark(worker.workerId);
        } else {
          this.registry.unpark(worker.workerId);
          this.events.jobsQueued(endpoint.id);
        }
        worker.phase = 'RUNNING';
        worker.frozenAt = null;
        this.log.info({ workerId: worker.workerId, endpointId: endpoint.id }, 'worker thawed');
        return true;
      }
    }
    if (!this.crashes.mayStart(endpoint.id, now)) return false;
    const worker: ManagedWorker = {
      workerId: `${endpoint.id.slice(0, 6)}-${randomId(8)}`,
      endpointId: endpoint.id,
      routing: endpoint.spec.type,
      version: endpoint.version,
      image: endpoint.spec.image,
      phase: 'THROTTLED',
      createdAt: now,
      processStartedAt: null,
      frozenAt: null,
      allocation: null,
      pid: null,
    };
    this.workers.set(worker.workerId, worker);
    await this.launch(worker, endpoint);
    return true;
  }

  /** Places the worker and starts its process; without capacity it stays THROTTLED. */
  private async launch(worker: ManagedWorker, endpoint: EndpointRecord): Promise<void> {
    const allocation = this.capacity.allocate(worker.workerId, endpoint.spec);
    if (!allocation) return;
    worker.allocation = allocation;
    if (endpoint.spec.entrypoint.length + endpoint.spec.cmd.length === 0) {
      this.capacity.release(worker.workerId);
      this.workers.delete(worker.workerId);
      this.crashes.record(endpoint.id, 'the endpoint has no command: set args (or entrypoint/cmd) to what the worker runs', [], this.now());
      return;
    }
    try {
      const credential = worker.routing === 'QUEUE' ? await this.credentials.create(endpoint.id) : undefined;
      const handle = await this.provider.start(launchSpec(endpoint, worker.workerId, credential, allocation, this.config));
      if (worker.routing === 'LOAD_BALANCER') {
        if (!handle.http) throw new Error(`the ${this.provider.name} provider cannot run HTTP workers`);
        this.balancer.add(endpoint.id, worker.workerId, handle.http, httpWorkerSettings(endpoint.spec).healthPath);
      }
      worker.phase = 'RUNNING';
      worker.pid = handle.pid ?? null;
      worker.processStartedAt = handle.startedAt;
      this.log.info({ workerId: worker.workerId, endpointId: endpoint.id, version: worker.version }, 'worker started');
    } catch (err) {
      await this.provider.stop(worker.workerId, 0).catch(() => undefined);
      this.capacity.release(worker.workerId);
      this.workers.delete(worker.workerId);
      this.crashes.record(endpoint.id, `the worker could not start: ${(err as Error).message}`, [], this.now());
      this.log.warn({ err, endpointId: endpoint.id }, 'worker could not start');
    }
  }

  private async scaleDown(worker: ManagedWorker, endpoint: EndpointRecord): Promise<void> {
    if (worker.phase === 'THROTTLED') {
      this.workers.delete(worker.workerId);
      return;
    }
    if (this.loadOf(worker).busy > 0) return;
    if (endpoint.spec.flashboot !== 'OFF' && worker.version === endpoint.version && this.frozen.hasRoom(endpoint.id, endpoint.spec.flashboot)) {
      if (worker.routing === 'LOAD_BALANCER') this.balancer.park(worker.workerId);
      else this.registry.park(worker.workerId);
      await this.provider.freeze(worker.workerId);
      worker.phase = 'FROZEN';
      worker.frozenAt = this.now();
      this.frozen.add(endpoint.id, worker.workerId, worker.version, this.now());
      this.log.info({ workerId: worker.workerId, endpointId: endpoint.id }, 'worker frozen');
      return;
    }
    await this.retire(worker, 'scaled down');
  }

  private async expireFrozen(endpoint: EndpointRecord, now: number): Promise<void> {
    for (const workerId of this.frozen.expired(endpoint.id, endpoint.spec.flashboot, endpoint.version, now)) {
      const worker = this.workers.get(workerId);
      if (worker) await this.retire(worker, 'frozen too long');
    }
  }

  /** Stops a worker for good; its jobs (if any) go back to the queue. */
  private async retire(worker: ManagedWorker, reason: string): Promise<void> {
    worker.phase = 'STOPPING';
    // No new requests for a worker on its way out.
    this.balancer.park(worker.workerId);
    this.frozen.remove(worker.endpointId, worker.workerId);
    this.log.info({ workerId: worker.workerId, endpointId: worker.endpointId, reason }, 'stopping worker');
    if (worker.pid !== null || worker.processStartedAt !== null) {
      // A frozen process cannot act on SIGTERM; thaw it first.
      await this.provider.thaw(worker.workerId).catch(() => undefined);
      await this.provider.stop(worker.workerId, this.config.workerStopGraceMs);
    }
    await this.forgetWorker(worker);
    this.workers.delete(worker.workerId);
  }

  /** A worker that is gone: its jobs return to the queue, its capacity and its traffic go. */
  private async forgetWorker(worker: ManagedWorker): Promise<void> {
    if (worker.routing === 'QUEUE') await this.releaseJobs(worker.workerId);
    this.balancer.remove(worker.workerId);
    this.capacity.release(worker.workerId);
    this.registry.forget(worker.workerId);
  }

  private async releaseJobs(workerId: string): Promise<void> {
    for (const job of await this.store.jobs.releaseWorker(workerId)) {
      this.events.jobChanged(job.id);
      this.events.jobsQueued(job.endpointId);
    }
  }

  /** A worker process ended. If nobody asked it to, its jobs return to the queue at once. */
  private async exited(exit: WorkerExit): Promise<void> {
    const worker = this.workers.get(exit.workerId);
    if (!worker || exit.expected || worker.phase === 'STOPPING') return;
    const reason = exit.signal ? `the worker was killed by ${exit.signal}` : `the worker exited with code ${exit.code}`;
    const lastLines = this.provider.logs(worker.workerId, 20).map((l) => l.line);
    this.log.warn({ workerId: worker.workerId, endpointId: worker.endpointId, reason }, 'worker exited unexpectedly');
    this.crashes.record(worker.endpointId, reason, lastLines, this.now());
    this.workers.delete(worker.workerId);
    this.frozen.remove(worker.endpointId, worker.workerId);
    await this.forgetWorker(worker);
    this.runSoon();
  }
}
