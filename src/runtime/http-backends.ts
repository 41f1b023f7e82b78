import type { HttpAddress } from '../domain/workers.js';
// The load-balancing workers of every endpoint as the balancer sees them: where each serves,
// whether its health check says it is ready, and how many requests it holds. Requests go to the
// ready worker with the fewest outstanding requests; with none ready and free they are held
// until one is, or until their time is up.

export type BackendHealth = 'INITIALIZING' | 'READY' | 'UNHEALTHY';

export interface Backend {
  workerId: string;
  endpointId: string;
  address: HttpAddress;
  healthPath: string;
  health: BackendHealth;
  /** Why the last health check failed, if it did. */
  reason: string | undefined;
  /** When it was last ready (ms); null until its first 200. */
  lastReadyAt: number | null;
  unhealthySince: number | null;
  inFlight: number;
  /** When it last had no request (ms); null while it holds some or before it was ready. */
  idleSince: number | null;
  /** Frozen (FlashBoot): no traffic, no health checks. */
  parked: boolean;
}

interface Waiter {
  limit: number;
  /** A slot; none (the hold ended); or 'deleted': the endpoint is gone. */
  grant: (backend: Backend | 'deleted' | undefined) => void;
}

export class Backends {
  private readonly byWorker = new Map<string, Backend>();
  private readonly byEndpoint = new Map<string, Set<Backend>>();
  private readonly waiters = new Map<string, Waiter[]>();
  private readonly heldListeners = new Set<(endpointId: string) => void>();

  constructor(private readonly now: () => number = Date.now) {}

  add(endpointId: string, workerId: string, address: HttpAddress, healthPath: string): Backend {
    const backend: Backend = {
      workerId,
      endpointId,
      address,
      healthPath,
      health: 'INITIALIZING',
      reason: undefined,
      lastReadyAt: null,
      unhealthySince: null,
      inFlight: 0,
      idleSince: null,
      parked: false,
    };
    this.byWorker.set(workerId, backend);
    let set = this.byEndpoint.get(endpointId);
    if (!set) this.byEndpoint.set(endpointId, (set = new Set()));
    set.add(backend);
    return backend;
  }

  remove(workerId: string): void {
    const backend = this.byWorker.get(workerId);
    if (!backend) return;
    this.byWorker.delete(workerId);
    const set = this.byEndpoint.get(backend.endpointId);
    set?.delete(backend);
    if (set?.size === 0) this.byEndpoint.delete(backend.endpointId);
  }

  get(workerId: string): Backend | undefined {
    return this.byWorker.get(workerId);
  }

  of(endpointId: string): Backend[] {
    return [...(this.byEndpoint.get(endpointId) ?? [])];
  }

  all(): Backend[] {
    return [...this.byWorker.values()];
  }

  setParked(workerId: string, parked: boolean): void {
    const backend = this.byWorker.get(workerId);
    if (!backend) return;
    backend.parked = parked;
    if (!parked) this.serveWaiters(backend.endpointId);
  }

  /** Records a health check's verdict; a worker turning ready takes held requests at once. */
  setHealth(backend: Backend, health: BackendHealth, reason: string | undefined): void {
    const now = this.now();
    if (health === 'READY') {
      backend.lastReadyAt = now;
      backend.unhealthySince = null;
      if (backend.inFlight === 0) backend.idleSince ??= now;
    } else if (health === 'UNHEALTHY') {
      backend.unhealthySince ??= now;
    }
    const changed = backend.health !== health;
    backend.health = health;
    backend.reason = reason;
    if (changed && health === 'READY') this.serveWaiters(backend.endpointId);
  }

  /** A ready worker with room, fewest outstanding requests first; the caller must release it. */
  tryAcquire(endpointId: string, limit: number): Backend | undefined {
    let best: Backend | undefined;
    for (const b of this.byEndpoint.get(endpointId) ?? []) {
      if (b.health !== 'READY' || b.parked || b.inFlight >= limit) continue;
      if (!best || b.inFlight < best.inFlight) best = b;
    }
    if (best) this.take(best);
    return best;
  }

  /**
   * Like tryAcquire, but with nothing free the request is held until a worker has room, up to
   * holdMs or until `signal` aborts; then undefined.
   */
  async acquire(endpointId: string, limit: number, holdMs: number, signal: AbortSignal): Promise<Backend | 'deleted' | undefined> {
    const free = this.tryAcquire(endpointId, limit);
    if (free || holdMs === 0 || signal.aborted) return free;
    return new Promise((resolve) => {
      const list = this.waiters.get(endpointId) ?? [];
      this.waiters.set(endpointId, list);
      const done = (backend: Backend | 'deleted' | undefined) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', giveUp);
        resolve(backend);
      };
      const waiter: Waiter = { limit, grant: done };
      const giveUp = () => {
        const at = list.indexOf(waiter);
        if (at >= 0) list.splice(at, 1);
        if (list.length === 0 && this.waiters.get(endpointId) === list) this.waiters.delete(endpointId);
        done(undefined);
      };
      const timer = setTimeout(giveUp, holdMs);
      signal.addEventListener('abort', giveUp, { once: true });
      list.push(waiter);
      for (const listener of this.heldListeners) listener(endpointId);
    });
  }

  /** Held requests of endpoints not in `live` (deleted) are let go now, not at the end of their hold. */
  letGoAllBut(live: ReadonlySet<string>): void {
    for (const [endpointId, list] of [...this.waiters]) {
      if (live.has(endpointId)) continue;
      this.waiters.delete(endpointId);
      for (const waiter of list.splice(0)) waiter.grant('deleted');
    }
  }

  release(backend: Backend): void {
    backend.inFlight--;
    if (backend.inFlight === 0) backend.idleSince = this.now();
    this.serveWaiters(backend.endpointId);
  }

  /** Requests in flight and held, for the scaler. */
  demand(endpointId: string): { inFlight: number; held: number } {
    let inFlight = 0;
    for (const b of this.byEndpoint.get(endpointId) ?? []) inFlight += b.inFlight;
    return { inFlight, held: this.waiters.get(endpointId)?.length ?? 0 };
  }

  /** Called when a request starts waiting: the scaler may need to start a worker now. */
  onHeld(listener: (endpointId: string) => void): () => void {
    this.heldListeners.add(listener);
    return () => this.heldListeners.delete(listener);
  }

  private take(backend: Backend): void {
    backend.inFlight++;
    backend.idleSince = null;
  }

  /** Hands free slots to held requests, oldest first. */
  private serveWaiters(endpointId: string): void {
    const list = this.waiters.get(endpointId);
    while (list && list.length > 0) {
      const backend = this.tryAcquire(endpointId, list[0]!.limit);
      if (!backend) return;
      list.shift()!.grant(backend);
    }
    if (list?.length === 0) this.waiters.delete(endpointId);
  }
}
