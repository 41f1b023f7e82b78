// Workers as seen through the worker protocol: when each last called, which jobs it holds,
// and whether it reported itself unhealthy. Stop requests live in the store, so any replica can hand them out.
// A worker id is bound to the endpoint it first called for: another endpoint's credential cannot
// act as it. One credential can make only so many workers known, and a worker counts as ready
// only once it has pinged or reported a job, as real workers do; a bare long-poll proves nothing.
import type { Clock } from '../domain/clock.js';
import { ApiError, conflict } from '../domain/errors.js';
import { Cancellation } from '../domain/cancellation.js';

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
  /** Pinged or reported on a job, so it is counted as ready when idle. */
  proven: boolean;
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
  /** Pinged or reported on a job: behaves like a worker, not just a long-poll with a made-up id. */
  proven: boolean;
}

export class WorkerRegistry {
  private readonly workers = new Map<string, SeenWorker>();
  /** Frozen workers: their open long-polls must not be handed jobs they cannot run. */
  private readonly parked = new Set<string>();
  /** Long-polls of parked workers, each resumed when its worker is unparked. */
  private readonly resumes = new Map<string, Set<() => void>>();
  /** Workers on their way out, and the open long-polls of each, to answer when one retires. */
  private readonly retiring = new Set<string>();
  private readonly openTakesOf = new Map<string, Set<Cancellation>>();
  private readonly recycleListeners = new Set<(workerId: string) => void>();

  park(workerId: string): void {
    this.parked.add(workerId);
  }

  unpark(workerId: string): void {
    this.parked.delete(workerId);
    for (const resume of this.resumes.get(workerId) ?? []) resume();
    this.resumes.delete(workerId);
  }

  /**
   * A parked worker's long-poll waits here, not on the job queue (where it would swallow wake-ups
   * meant for workers that can take a job): until the worker is unparked, `ms` pass, or it ends.
   */
  whenUnparked(workerId: string, ms: number, ended: Cancellation): Promise<void> {
    return new Promise((resolve) => {
      let resumes = this.resumes.get(workerId);
      if (!resumes) this.resumes.set(workerId, (resumes = new Set()));
      const done = () => {
        clearTimeout(timer);
        forget();
        resumes.delete(done);
        if (resumes.size === 0 && this.resumes.get(workerId) === resumes) this.resumes.delete(workerId);
        resolve();
      };
      const timer = setTimeout(done, ms);
      const forget = ended.onAbort(done);
      resumes.add(done);
    });
  }

  isParked(workerId: string): boolean {
    return this.parked.has(workerId);
  }

  /**
   * The worker is being stopped (scaled down, recycled, replaced): its open long-polls are
   * answered now with no job, so it can exit, and it takes nothing more.
   */
  retire(workerId: string): void {
    this.retiring.add(workerId);
    for (const take of this.openTakesOf.get(workerId) ?? []) take.abort();
  }

  isRetiring(workerId: string): boolean {
    return this.retiring.has(workerId);
  }

  /**
   * A worker not heard from for `staleAfterMs` is no longer counted; an endpoint's credential may
   * make at most `maxPerEndpoint` workers known at once. `now` is the clock its callers pass times
   * of: the cluster's (decision 47).
   */
  constructor(
    private readonly staleAfterMs: number,
    private readonly maxPerEndpoint = Number.POSITIVE_INFINITY,
    readonly now: Clock = Date.now,
  ) {}

  private isStale(worker: SeenWorker, now: number): boolean {
    return worker.openTakes === 0 && now - worker.lastSeenAt > this.staleAfterMs;
  }

  /** Binds a worker id to an endpoint: the first endpoint to use it keeps it while it is live. */
  private entry(workerId: string, endpointId: string, now: number): SeenWorker {
    let worker = this.workers.get(workerId);
    if (worker && worker.endpointId !== endpointId) {
      if (!this.isStale(worker, now)) throw conflict(`worker ${workerId} belongs to another endpoint`);
      this.forget(workerId);
      worker = undefined;
    }
    if (!worker) {
      if (this.liveCount(endpointId, now) >= this.maxPerEndpoint) {
        throw new ApiError(
          429,
          `endpoint ${endpointId} already has ${this.maxPerEndpoint} workers known; a worker id must be reused or left to lapse`,
          undefined,
          {
            'Retry-After': String(Math.ceil(this.staleAfterMs / 1000)),
          },
        );
      }
      worker = {
        endpointId,
        firstSeenAt: now,
        idleSince: now,
        lastSeenAt: now,
        openTakes: 0,
        jobs: new Set(),
        unhealthy: undefined,
        recycleRequested: false,
        proven: false,
      };
      this.workers.set(workerId, worker);
    }
    worker.lastSeenAt = now;
    return worker;
  }

  private liveCount(endpointId: string, now: number): number {
    let count = 0;
    for (const [id, worker] of this.workers) {
      if (worker.endpointId !== endpointId) continue;
      if (this.isStale(worker, now)) this.workers.delete(id);
      else count++;
    }
    return count;
  }

  /** A result, progress or stream chunk for a job: what a worker does. */
  reported(workerId: string, endpointId: string, now: number): void {
    this.entry(workerId, endpointId, now).proven = true;
  }

  seen(workerId: string, endpointId: string, now: number): void {
    this.entry(workerId, endpointId, now);
  }

  /**
   * A long-poll opens. Its signal aborts when the client leaves or the worker retires (one
   * controller, fed by both: combining signals per take costs more than the take on a busy queue).
   * Call `close` when it ends.
   */
  openTake(workerId: string, endpointId: string, now: number, client: Cancellation): { ended: Cancellation; close(now: number): void } {
    this.entry(workerId, endpointId, now).openTakes++;
    const take = new Cancellation();
    if (this.retiring.has(workerId)) take.abort();
    const forgetClient = client.onAbort(() => take.abort());
    let open = this.openTakesOf.get(workerId);
    if (!open) this.openTakesOf.set(workerId, (open = new Set()));
    open.add(take);
    return {
      ended: take,
      close: (closedAt) => {
        forgetClient();
        open.delete(take);
        if (open.size === 0) this.openTakesOf.delete(workerId);
        const worker = this.workers.get(workerId);
        if (worker) {
          worker.openTakes = Math.max(0, worker.openTakes - 1);
          worker.lastSeenAt = closedAt;
        }
      },
    };
  }

  jobsTaken(workerId: string, jobIds: string[]): void {
    const worker = this.workers.get(workerId);
    if (!worker) return;
    for (const id of jobIds) worker.jobs.add(id);
    if (worker.jobs.size > 0) worker.idleSince = null;
  }

  jobReleased(workerId: string, jobId: string, now = this.now()): void {
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
      proven: w.proven,
    };
  }

  /** Ids of the workers seen for an endpoint, live or recently heard from. */
  seenWorkers(endpointId: string): string[] {
    return [...this.workers].filter(([, w]) => w.endpointId === endpointId).map(([id]) => id);
  }

  forget(workerId: string): void {
    this.workers.delete(workerId);
    this.parked.delete(workerId);
    this.retiring.delete(workerId);
  }

  /** A ping states the jobs the worker is running right now. */
  pinged(workerId: string, endpointId: string, now: number, jobIds: string[], unhealthy: string | undefined): void {
    const worker = this.entry(workerId, endpointId, now);
    worker.proven = true;
    worker.jobs = new Set(jobIds);
    if (jobIds.length > 0) worker.idleSince = null;
    else worker.idleSince ??= now;
    worker.unhealthy = unhealthy;
  }

  /** The worker asked to be recycled (refresh_worker): it takes no further job, and whoever runs it hears now. */
  requestRecycle(workerId: string): void {
    const worker = this.workers.get(workerId);
    if (!worker) return;
    worker.recycleRequested = true;
    this.retire(workerId);
    for (const listener of this.recycleListeners) listener(workerId);
  }

  onRecycleRequested(listener: (workerId: string) => void): () => void {
    this.recycleListeners.add(listener);
    return () => this.recycleListeners.delete(listener);
  }

  recycleRequested(workerId: string): boolean {
    return this.workers.get(workerId)?.recycleRequested ?? false;
  }

  counts(endpointId: string, now: number): WorkerCounts {
    const counts: WorkerCounts = { idle: 0, initializing: 0, ready: 0, running: 0, throttled: 0, unhealthy: 0 };
    for (const [id, worker] of this.workers) {
      if (worker.endpointId !== endpointId) continue;
      if (this.isStale(worker, now)) {
        this.workers.delete(id);
        continue;
      }
      if (worker.unhealthy !== undefined) counts.unhealthy++;
      else if (worker.jobs.size > 0) counts.running++;
      else if (!worker.proven) counts.initializing++;
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
