// HTTP (load-balancing) workers: they serve the endpoint's own HTTP API on the ports it asks
// for, and the balancer forwards requests to them at the address the provider reports. What the
// runtime knows of them comes from the balancer (health checks, requests in flight and held).
import type { GantryConfig } from '../../config.js';
import type { Allocation } from '../../catalog/capacity-pool.js';
import { httpWorkerSettings } from '../../domain/http-worker.js';
import type { WorkerState } from '../../domain/workers.js';
import type { EndpointRecord } from '../../store/store.js';
import type { BalancerPool } from '../balancer-pool.js';
import type { ManagedWorker } from '../managed-worker.js';
import type { WorkerHandle, WorkerSpec } from '../provider.js';
import type { SecretEnvironment } from '../ports.js';
import { baseLaunchSpec } from '../worker-launch.js';
import type { Demand, Wakeups, WorkerKind, WorkerLoad } from './worker-kind.js';

export type HttpWorkerSettings = Pick<GantryConfig, 'workerInitTimeoutMs' | 'lbUnhealthyMs'>;

export class HttpWorkers implements WorkerKind {
  constructor(
    private readonly balancer: BalancerPool,
    private readonly config: HttpWorkerSettings,
    private readonly secrets: SecretEnvironment,
  ) {}

  async launchSpec(endpoint: EndpointRecord, workerId: string, allocation: Allocation): Promise<WorkerSpec> {
    const spec = await baseLaunchSpec(endpoint, workerId, allocation, this.secrets);
    const http = httpWorkerSettings(endpoint.spec);
    return {
      ...spec,
      env: {
        ...spec.env,
        PORT: String(http.port),
        PORT_HEALTH: String(http.healthPort),
        HEALTH_CHECK_PATH: http.healthPath,
        RUNPOD_POD_ID: workerId,
        RUNPOD_ENDPOINT_ID: endpoint.id,
      },
      http: { port: http.port, healthPort: http.healthPort },
    };
  }

  started(worker: ManagedWorker, endpoint: EndpointRecord, handle: WorkerHandle): void {
    // The provider chose where the worker serves (host and ports); only it knows.
    if (!handle.http) throw new Error('the provider did not say where the HTTP worker serves');
    this.balancer.add(endpoint.id, worker.workerId, handle.http, httpWorkerSettings(endpoint.spec).healthPath);
  }

  state(worker: ManagedWorker, now: number): WorkerState {
    if (worker.phase === 'THROTTLED') return 'THROTTLED';
    const backend = this.balancer.get(worker.workerId);
    if (!backend || backend.health === 'INITIALIZING') {
      // Back to initializing after it was ready (a reload, say) is the worker's own business.
      if (backend?.lastReadyAt != null) return 'INITIALIZING';
      const startedAt = worker.processStartedAt ?? worker.createdAt;
      return now - startedAt > this.config.workerInitTimeoutMs ? 'UNHEALTHY' : 'INITIALIZING';
    }
    if (backend.health === 'UNHEALTHY') return 'UNHEALTHY';
    return backend.inFlight > 0 ? 'RUNNING' : 'IDLE';
  }

  load(worker: ManagedWorker): WorkerLoad {
    const backend = this.balancer.get(worker.workerId);
    return { busy: backend?.inFlight ?? 0, idleSince: backend?.idleSince ?? null };
  }

  hasServed(worker: ManagedWorker): boolean {
    return this.balancer.get(worker.workerId)?.lastReadyAt != null;
  }

  replaceReason(worker: ManagedWorker, now: number): string | undefined {
    if (this.state(worker, now) !== 'UNHEALTHY') return undefined;
    const backend = this.balancer.get(worker.workerId);
    // A failing health check may be a hiccup: it must keep failing for lbUnhealthyMs.
    if (backend?.unhealthySince != null && now - backend.unhealthySince < this.config.lbUnhealthyMs) return undefined;
    return `unhealthy: ${backend?.reason ?? 'never became ready'}`;
  }

  park(workerId: string): void {
    this.balancer.park(workerId);
  }

  /** Requests in flight finish; no new one is routed to it. */
  retire(workerId: string): void {
    this.balancer.park(workerId);
  }

  unpark(worker: ManagedWorker): void {
    this.balancer.unpark(worker.workerId);
  }

  forget(workerId: string): void {
    this.balancer.remove(workerId);
  }

  endpointsLive(live: ReadonlySet<string>): void {
    this.balancer.backends.letGoAllBut(live);
  }

  async releaseWork(): Promise<void> {
    // Requests in flight to a worker that is gone fail at the client; held ones wait for another.
  }

  async demand(endpoint: EndpointRecord): Promise<Demand> {
    const { held, inFlight } = this.balancer.demand(endpoint.id);
    return { queued: held, queuedLowPriority: 0, oldestQueuedAt: null, inFlight };
  }

  listen(wake: Wakeups): () => void {
    // A held request means no worker had room: the scaler should look now, not at its next tick.
    return this.balancer.onHeld(() => wake.passNow());
  }
}
