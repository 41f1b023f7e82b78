// Queue workers: they take jobs through the worker protocol with a credential of their own, so
// what the runtime knows of them comes from the registry (pings, takes, jobs held). A queue
// worker that dies gives its jobs back to the queue at once rather than after its lease lapses.
import type { GantryConfig } from '../../config.js';
import type { Clock } from '../../domain/clock.js';
import type { Allocation } from '../../catalog/capacity-pool.js';
import type { WorkerState } from '../../domain/workers.js';
import type { EndpointRecord, Store } from '../../store/store.js';
import type { ManagedWorker } from '../managed-worker.js';
import type { QueueSignals, SecretEnvironment, WorkerCredentialIssuer } from '../ports.js';
import type { WorkerSpec } from '../provider.js';
import { baseLaunchSpec } from '../worker-launch.js';
import { workerEnvironment } from '../worker-env.js';
import type { WorkerActivity, WorkerRegistry } from '../worker-registry.js';
import type { Demand, Wakeups, WorkerKind, WorkerLoad } from './worker-kind.js';

export interface QueueWorkersDeps {
  store: Store;
  registry: WorkerRegistry;
  credentials: WorkerCredentialIssuer;
  signals: QueueSignals;
  secrets: SecretEnvironment;
  config: GantryConfig;
  /** The cluster's clock (decision 47). */
  now: Clock;
  /** A job the runtime ended (failed): its waiters, metrics and webhook learn of it as of any job that ends. */
  jobFinished(jobId: string): Promise<void>;
}

export class QueueWorkers implements WorkerKind {
  /** QueueSignals cannot unsubscribe: one listener forwards to whoever listens now. */
  private wake: Wakeups | undefined;
  private subscribed = false;

  constructor(private readonly deps: QueueWorkersDeps) {}

  async launchSpec(endpoint: EndpointRecord, workerId: string, allocation: Allocation): Promise<WorkerSpec> {
    const { config } = this.deps;
    const credential = await this.deps.credentials.create(endpoint.id);
    const spec = await baseLaunchSpec(endpoint, workerId, allocation, this.deps.secrets);
    // The worker-protocol variables win: an endpoint's env must not point a worker elsewhere.
    // A worker calls the replica that started it, which alone tracks its state (frozen, recycled).
    return { ...spec, env: { ...spec.env, ...workerEnvironment(config, endpoint.id, credential, workerId, config.replicaUrl) } };
  }

  started(): void {
    // It announces itself through the worker protocol.
  }

  state(worker: ManagedWorker, now: number): WorkerState {
    return queueWorkerState(worker, this.deps.registry.activity(worker.workerId), now, this.deps.config);
  }

  load(worker: ManagedWorker): WorkerLoad {
    const activity = this.deps.registry.activity(worker.workerId);
    return { busy: activity?.busy ?? 0, idleSince: activity ? activity.idleSince : null };
  }

  hasServed(worker: ManagedWorker): boolean {
    const activity = this.deps.registry.activity(worker.workerId);
    return activity !== undefined && activity.lastSeenAt >= worker.createdAt;
  }

  replaceReason(worker: ManagedWorker, now: number): string | undefined {
    const activity = this.deps.registry.activity(worker.workerId);
    if (activity?.recycleRequested && activity.busy === 0) return 'the worker asked to be recycled';
    if (this.state(worker, now) !== 'UNHEALTHY') return undefined;
    // Never heard from in its init timeout: it holds no job, so nothing is gained by waiting.
    if (!this.hasServed(worker)) return 'unhealthy: it never called the server within --worker-init-timeout-ms';
    // A worker that went quiet may only be between pings: give it a lease's length.
    if (now - (activity?.lastSeenAt ?? worker.createdAt) <= this.deps.config.jobLeaseMs) return undefined;
    return activity?.unhealthy ? `unhealthy: ${activity.unhealthy}` : 'unhealthy: stopped answering';
  }

  park(workerId: string): void {
    this.deps.registry.park(workerId);
  }

  retire(workerId: string): void {
    this.deps.registry.retire(workerId);
  }

  unpark(worker: ManagedWorker): void {
    this.deps.registry.unpark(worker.workerId);
    // Its open long-poll may have passed jobs on while it was frozen.
    this.deps.signals.jobsQueued(worker.endpointId);
  }

  forget(workerId: string): void {
    this.deps.registry.forget(workerId);
  }

  async releaseWork(workerId: string, crashed: boolean): Promise<void> {
    const lost = crashed ? { now: this.deps.now(), maxLosses: this.deps.config.maxLeaseLosses } : undefined;
    const { requeued, failed } = await this.deps.store.jobs.releaseWorker(workerId, lost);
    for (const job of requeued) {
      this.deps.signals.jobChanged(job.id);
      this.deps.signals.jobsQueued(job.endpointId);
    }
    for (const job of failed) await this.deps.jobFinished(job.id);
  }

  async demand(endpoint: EndpointRecord): Promise<Demand> {
    const stats = await this.deps.store.jobs.queueStats(endpoint.id);
    return {
      queued: stats.queued,
      queuedLowPriority: stats.queuedLowPriority,
      oldestQueuedAt: stats.oldestQueuedAt,
      inFlight: stats.inProgress,
    };
  }

  listen(wake: Wakeups): () => void {
    this.wake = wake;
    if (!this.subscribed) {
      this.subscribed = true;
      // A job no worker was waiting for: with workers up, the queue delay decides at the next tick.
      this.deps.signals.onQueued((endpointId) => this.wake?.scaleFromZero(endpointId));
      // A worker asking to be recycled is replaced at once, not at the next tick.
      this.deps.registry.onRecycleRequested(() => this.wake?.passNow());
    }
    return () => {
      if (this.wake === wake) this.wake = undefined;
    };
  }
}

export interface StateTimings {
  workerPingIntervalMs: number;
  workerInitTimeoutMs: number;
}

/** A queue worker's state from what the worker protocol saw of it. */
export function queueWorkerState(
  worker: ManagedWorker,
  activity: WorkerActivity | undefined,
  now: number,
  timings: StateTimings,
): WorkerState {
  if (worker.phase === 'THROTTLED') return 'THROTTLED';
  const startedAt = worker.processStartedAt ?? worker.createdAt;
  if (!activity || activity.lastSeenAt < startedAt) {
    return now - startedAt > timings.workerInitTimeoutMs ? 'UNHEALTHY' : 'INITIALIZING';
  }
  if (activity.unhealthy !== undefined) return 'UNHEALTHY';
  // Three missed pings while not waiting on a take: the process is stuck or gone.
  if (activity.openTakes === 0 && now - activity.lastSeenAt > 3 * timings.workerPingIntervalMs) return 'UNHEALTHY';
  return activity.busy > 0 ? 'RUNNING' : 'IDLE';
}
