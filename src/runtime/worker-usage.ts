// What billing needs from the control loop: the moment each worker starts costing (placed and
// starting), is frozen or thawed, and ends. The runtime calls `changed` at each transition, with
// its own clock, so a meter closes intervals at the exact transition time.
import type { Allocation } from '../catalog/capacity-pool.js';
import type { EndpointRecord } from '../store/store.js';

export interface WorkerUsageChange {
  workerId: string;
  endpointId: string;
  /** The endpoint's owner, captured at the start: the endpoint may be deleted before the worker ends. */
  accountId: string;
  allocation: Allocation;
  /** Container disk, GB. */
  diskGb: number;
  /** ACTIVE from placement until frozen or ended; null: the worker is gone. */
  state: 'ACTIVE' | 'FROZEN' | null;
  at: number;
}

export type WorkerUsageListener = (change: WorkerUsageChange) => void;

export class WorkerUsageFeed {
  private readonly listeners = new Set<WorkerUsageListener>();
  /** The static part of each live worker, from its start. */
  private readonly live = new Map<string, Omit<WorkerUsageChange, 'state' | 'at'>>();

  listen(listener: WorkerUsageListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Placed and starting: it costs from now on. */
  started(worker: { workerId: string }, endpoint: EndpointRecord, allocation: Allocation, at: number): void {
    const live = {
      workerId: worker.workerId,
      endpointId: endpoint.id,
      accountId: endpoint.accountId,
      allocation,
      diskGb: endpoint.spec.disk,
    };
    this.live.set(worker.workerId, live);
    this.emit({ ...live, state: 'ACTIVE', at });
  }

  changed(workerId: string, state: 'ACTIVE' | 'FROZEN', at: number): void {
    const worker = this.live.get(workerId);
    if (worker) this.emit({ ...worker, state, at });
  }

  /** The worker is gone; a worker never started (still throttled) is ignored. */
  ended(workerId: string, at: number): void {
    const worker = this.live.get(workerId);
    if (!worker) return;
    this.live.delete(workerId);
    this.emit({ ...worker, state: null, at });
  }

  private emit(change: WorkerUsageChange): void {
    for (const listener of this.listeners) listener(change);
  }
}
