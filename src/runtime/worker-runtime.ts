// Gantry's own workers: a control loop per endpoint that places, starts, freezes, thaws and
// stops worker processes by the scaling policy, replaces crashed and unhealthy ones, and rolls
// stale ones onto the current configuration after their current job.
import type { GantryConfig } from '../config.js';
import type { EndpointRecord, Store } from '../store/store.js';
import type { WorkerRegistry } from '../services/worker-registry.js';
import type { WorkerCredentialService } from '../services/worker-credentials.js';
import type { JobEvents } from '../services/waitlist.js';
import { idleTimeoutApplies } from '../domain/endpoint-spec.js';
import { decideScaling, type ScalingInputs } from '../domain/scaling-policy.js';
import { randomId } from '../domain/ids.js';
import type { CapacityPool } from './capacity-pool.js';
import type { Provider, WorkerExit } from './provider.js';
import { CrashTracker } from './crash-tracker.js';
import { launchSpec } from './worker-launch.js';
import { deriveState, type ManagedWorker, type WorkerState } from './managed-worker.js';
import { FrozenPool } from './frozen-pool.js';

export interface RuntimeLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export class WorkerRuntime {
  private readonly workers = new Map<string, ManagedWorker>();
  private readonly crashes: CrashTracker;
  private readonly frozen: FrozenPool;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private again = false;
  private soon: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly store: Store,
    private readonly provider: Provider,
    private readonly capacity: CapacityPool,
    private readonly registry: WorkerRegistry,
    private readonly credentials: WorkerCredentialService,
    private readonly events: JobEvents,
    private readonly config: GantryConfig,
    private readonly log: RuntimeLog,
    private readonly now: () => number = Date.now,
  ) {
    this.crashes = new CrashTracker(config.crashBackoffMs, 60_000);
    this.frozen = new FrozenPool();
  }

  start(): void {
    this.unsubscribe = this.provider.onExit((exit) => void this.exited(exit));
    this.events.onQueued((endpointId) => this.nudge(endpointId));
    this.timer = setInterval(() => void this.tick(), this.config.scaleIntervalMs);
    this.timer.unref();
    void this.tick();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    clearTimeout(this.soon);
    this.unsubscribe?.();
    await this.ticking;
    await this.provider.close();
    this.workers.clear();
  }

  /**
   * A job arrived and no worker was waiting for it. With no worker at all (scale from zero) the
   * loop runs at once rather than at its next tick; otherwise the regular tick decides.
   */
  nudge(endpointId: string): void {
    if (this.workersOf(endpointId).length > 0) return;
    this.runSoon();
  }

  /** Runs one pass shortly, coalescing the requests that arrive meanwhile. */
  runSoon(): void {
    if (this.soon) return;
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
    return deriveState(worker, this.registry.activity(worker.workerId), this.now(), this.config);
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
    for (const endpoint of endpoints) {
      if (endpoint.spec.type === 'QUEUE') await this.reconcile(endpoint);
    }
  }

  private async reconcile(endpoint: EndpointRecord): Promise<void> {
    const now = this.now();
    await this.expireFrozen(endpoint, now);
    const mine = this.workersOf(endpoint.id);
    for (const worker of mine) await this.tend(worker, endpoint, now);
    const active = this.workersOf(endpoint.id).filter((w) => w.phase !== 'STOPPING');

    const stats = await this.store.jobs.queueStats(endpoint.id);
    const inputs: ScalingInputs = {
      now,
      queued: stats.queued,
      queuedLowPriority: stats.queuedLowPriority,
      oldestQueuedAt: stats.oldestQueuedAt,
      inFlight: stats.inProgress,
      workers: active.map((w) => {
        const activity = this.registry.activity(w.workerId);
        return {
          workerId: w.workerId,
          state: this.stateOf(w),
          busy: activity?.busy ?? 0,
          idleSince: activity ? activity.idleSince : null,
          startedAt: w.createdAt,
        };
      }),
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

  /** Per-worker upkeep: place throttled ones, drain stale or recycled ones, replace unhealthy ones. */
  private async tend(worker: ManagedWorker, endpoint: EndpointRecord, now: number): Promise<void> {
    if (worker.phase === 'THROTTLED') {
      await this.launch(worker, endpoint);
      return;
    }
    if (worker.phase !== 'RUNNING') return;
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

  private async scaleUp(endpoint: EndpointRecord, now: number): Promise<boolean> {
    const thawed = this.frozen.take(endpoint.id, endpoint.version);
    if (thawed) {
      const worker = this.workers.get(thawed);
      if (worker) {
        await this.provider.thaw(worker.workerId);
        this.registry.unpark(worker.workerId);
        this.events.jobsQueued(endpoint.id);
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
      const credential = await this.credentials.create(endpoint.id);
      const handle = await this.provider.start(launchSpec(endpoint, worker.workerId, credential, allocation, this.config));
      worker.phase = 'RUNNING';
      worker.pid = handle.pid ?? null;
      worker.processStartedAt = handle.startedAt;
      this.log.info({ workerId: worker.workerId, endpointId: endpoint.id, version: worker.version }, 'worker started');
    } catch (err) {
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
    const busy = this.registry.activity(worker.workerId)?.busy ?? 0;
    if (busy > 0) return;
    if (endpoint.spec.flashboot !== 'OFF' && worker.version === endpoint.version && this.frozen.hasRoom(endpoint.id, endpoint.spec.flashboot)) {
      this.registry.park(worker.workerId);
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
    this.frozen.remove(worker.endpointId, worker.workerId);
    this.log.info({ workerId: worker.workerId, endpointId: worker.endpointId, reason }, 'stopping worker');
    if (worker.pid !== null || worker.processStartedAt !== null) {
      // A frozen process cannot act on SIGTERM; thaw it first.
      await this.provider.thaw(worker.workerId).catch(() => undefined);
      await this.provider.stop(worker.workerId, this.config.workerStopGraceMs);
    }
    await this.releaseJobs(worker.workerId);
    this.capacity.release(worker.workerId);
    this.registry.forget(worker.workerId);
    this.workers.delete(worker.workerId);
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
    await this.releaseJobs(worker.workerId);
    this.capacity.release(worker.workerId);
    this.registry.forget(worker.workerId);
    this.runSoon();
  }
}
