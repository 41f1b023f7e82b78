// FlashBoot in the control loop: a worker scaled down is frozen (kept, not running, holding no
// job) while its endpoint's pool has room; the next scale-up thaws one of the current release
// instead of cold-starting; frozen ones past their retention are stopped.
import type { EndpointRecord } from '../store/store.js';
import type { Logger } from '../domain/logger.js';
import { FrozenPool } from './frozen-pool.js';
import type { WorkerKind } from './kinds/worker-kind.js';
import type { ManagedWorker } from './managed-worker.js';
import type { Provider } from './provider.js';
import type { WorkerUsageFeed } from './worker-usage.js';

export interface FlashBootHooks {
  provider: Pick<Provider, 'freeze' | 'thaw'>;
  usage: WorkerUsageFeed;
  log: Logger;
  now(): number;
  worker(workerId: string): ManagedWorker | undefined;
  kindOf(worker: ManagedWorker): WorkerKind;
  retire(worker: ManagedWorker, reason: string): Promise<void>;
}

export class FlashBoot {
  readonly frozen = new FrozenPool();

  constructor(private readonly hooks: FlashBootHooks) {}

  /** Freezes an idle worker of the current release if the endpoint keeps frozen workers and has room. */
  async freezeIfRoom(worker: ManagedWorker, endpoint: EndpointRecord): Promise<boolean> {
    const { flashboot } = endpoint.spec;
    if (flashboot === 'OFF' || worker.version !== endpoint.version || !this.frozen.hasRoom(endpoint.id, flashboot)) return false;
    const { provider, usage, log, now } = this.hooks;
    this.hooks.kindOf(worker).park(worker.workerId);
    await provider.freeze(worker.workerId);
    worker.phase = 'FROZEN';
    worker.frozenAt = now();
    usage.changed(worker.workerId, 'FROZEN', worker.frozenAt);
    this.frozen.add(endpoint.id, worker.workerId, worker.version, worker.frozenAt);
    log.info({ workerId: worker.workerId, endpointId: endpoint.id }, 'worker frozen');
    return true;
  }

  /** Resumes a frozen worker of the current release, if one is kept. */
  async thawOne(endpoint: EndpointRecord): Promise<boolean> {
    const workerId = this.frozen.take(endpoint.id, endpoint.version);
    const worker = workerId === undefined ? undefined : this.hooks.worker(workerId);
    if (!worker) return false;
    const { provider, usage, log, now } = this.hooks;
    await provider.thaw(worker.workerId);
    this.hooks.kindOf(worker).unpark(worker);
    worker.phase = 'RUNNING';
    worker.frozenAt = null;
    usage.changed(worker.workerId, 'ACTIVE', now());
    log.info({ workerId: worker.workerId, endpointId: endpoint.id }, 'worker thawed');
    return true;
  }

  /**
   * Another endpoint's worker cannot be placed: a frozen worker (of any other endpoint, frozen
   * longest ago) gives its capacity up, so a worker that would run is not held up by one that sleeps.
   */
  async makeRoomFor(endpointId: string): Promise<void> {
    const workerId = this.frozen.oldest(endpointId);
    const worker = workerId === undefined ? undefined : this.hooks.worker(workerId);
    if (worker) await this.hooks.retire(worker, `its capacity is wanted by endpoint ${endpointId}`);
  }

  /** Stops the endpoint's frozen workers kept too long, or of an older release. */
  async expire(endpoint: EndpointRecord, now: number): Promise<void> {
    for (const workerId of this.frozen.expired(endpoint.id, endpoint.spec.flashboot, endpoint.version, now)) {
      const worker = this.hooks.worker(workerId);
      if (worker) await this.hooks.retire(worker, 'frozen too long');
    }
  }
}
