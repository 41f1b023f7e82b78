// Workers as seen through the worker protocol: when each last called, which jobs it holds,
// and whether it reported itself unhealthy. Stop requests live in the store, so any replica can hand them out.

export interface WorkerCounts {
  idle: number;
  initializing: number;
  ready: number;
  running: number;
  throttled: number;
  unhealthy: number;
}

/** What the runtime reads about one worker. */
export interface WorkerActivity {
  firstSeenAt: number;
  lastSeenAt: number;
  openTakes: number;
  busy: number;
  idleSince: number | null;
  unhealthy: string | undefined;
  recycleRequested: boolean;
}

interface SeenWorker {
  endpointId: string;
  firstSeenAt: number;
  idleSince: number | null;
  lastSeenAt: number;
  openTakes: number;
  jobs: Set<string>;
  unhealthy: string | undefined;
  recycleRequested: boolean;
}

export class WorkerRegistry {
  private readonly workers = new Map<string, SeenWorker>();
  /** Frozen workers: their open long-polls must not be handed jobs they cannot run. */
  private readonly parked = new Set<string>();

  park(workerId: string): void {
    this.parked.add(workerId);
  }

  unpark(workerId: string): void {
    this.parked.delete(workerId);
  }

  isParked(workerId: string): boolean {
    return this.parked.has(workerId);
  }

  /** A worker not heard from for this long is no longer counted. */
  constructor(private readonly staleAfterMs: number) {}

  private entry(workerId: string, endpointId: string, now: number): SeenWorker {
    let worker = this.workers.get(workerId);
    if (!worker) {
      worker = { endpointId, firstSeenAt: now, idleSince: now, lastSeenAt: now, openTakes: 0, jobs: new Set(), unhealthy: undefined, recycleRequested: false };
      this.workers.set(workerId, worker);
    }
    worker.endpointId = endpointId;
    worker.lastSeenAt = now;
    return worker;
  }

  seen(workerId: string, endpointId: string, now: number): void {
    this.entry(workerId, endpointId, now);
  }

  takeStarted(workerId: string, endpointId: string, now: number): void {
    this.entry(workerId, endpointId, now).openTakes++;
  }

  takeEnded(workerId: string, now: number): void {
    const worker = this.workers.get(workerId);
    if (worker) {
      worker.openTakes = Math.max(0, worker.openTakes - 1);
      worker.lastSeenAt = now;
    }
  }

  jobsTaken(workerId: string, jobIds: string[]): void {
    const worker = this.workers.get(workerId);
    if (!worker) return;
    for (const id of jobIds) worker.jobs.add(id);
    if (worker.jobs.size > 0) worker.idleSince = null;
  }

  jobReleased(workerId: string, jobId: string, now = Date.now()): void {
    const worker = this.workers.get(workerId);
    if (!worker) return;
    worker.jobs.delete(jobId);
    if (worker.jobs.size === 0 && worker.idleSince === null) worker.idleSince = now;
  }

  activity(workerId: string): WorkerActivity | undefined {
    const w = this.workers.get(workerId);
    if (!w) return undefined;
    return {
      firstSeenAt: w.firstSeenAt,
      lastSeenAt: w.lastSeenAt,
      openTakes: w.openTakes,
      busy: w.jobs.size,
      idleSince: w.idleSince,
      unhealthy: w.unhealthy,
      recycleRequested: w.recycleRequested,
    };
  }

  /** Ids of the workers seen for an endpoint, live or recently heard from. */
  seenWorkers(endpointId: string): string[] {
    return [...this.workers].filter(([, w]) => w.endpointId === endpointId).map(([id]) => id);
  }

  forget(workerId: string): void {
    this.workers.delete(workerId);
    this.parked.delete(workerId);
  }

  /** A ping states the jobs the worker is running right now. */
  pinged(workerId: string, endpointId: string, now: number, jobIds: string[], unhealthy: string | undefined): void {
    const worker = this.entry(workerId, endpointId, now);
    worker.jobs = new Set(jobIds);
    if (jobIds.length > 0) worker.idleSince = null;
    else worker.idleSince ??= now;
    worker.unhealthy = unhealthy;
  }

  requestRecycle(workerId: string): void {
    const worker = this.workers.get(workerId);
    if (worker) worker.recycleRequested = true;
  }

  recycleRequested(workerId: string): boolean {
    return this.workers.get(workerId)?.recycleRequested ?? false;
  }

  counts(endpointId: string, now: number): WorkerCounts {
    const counts: WorkerCounts = { idle: 0, initializing: 0, ready: 0, running: 0, throttled: 0, unhealthy: 0 };
    for (const [id, worker] of this.workers) {
      if (worker.endpointId !== endpointId) continue;
      if (worker.openTakes === 0 && now - worker.lastSeenAt > this.staleAfterMs) {
        this.workers.delete(id);
        continue;
      }
      if (worker.unhealthy !== undefined) counts.unhealthy++;
      else if (worker.jobs.size > 0) counts.running++;
      else counts.idle++;
    }
    counts.ready = counts.idle + counts.running;
    return counts;
  }

  /** Endpoints whose workers were heard from. */
  endpointIds(): Set<string> {
    return new Set([...this.workers.values()].map((w) => w.endpointId));
  }

  forgetEndpoint(endpointId: string): void {
    for (const [id, worker] of this.workers) if (worker.endpointId === endpointId) this.workers.delete(id);
  }
}
