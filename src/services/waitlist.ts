// Long-poll waiters keyed by job, endpoint or worker: a waiter sleeps until it is woken, its time
// runs out, or its client goes away. Nothing polls the database.

type Wake = () => void;

export class Waitlist {
  private readonly waiters = new Map<string, Set<Wake>>();

  /** Resolves true when woken, false on timeout or abort. */
  wait(key: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted || timeoutMs <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      let set = this.waiters.get(key);
      if (!set) {
        set = new Set();
        this.waiters.set(key, set);
      }
      const finish = (woken: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const current = this.waiters.get(key);
        if (current) {
          current.delete(wake);
          if (current.size === 0) this.waiters.delete(key);
        }
        resolve(woken);
      };
      const wake: Wake = () => finish(true);
      const onAbort = () => finish(false);
      const timer = setTimeout(() => finish(false), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      set.add(wake);
    });
  }

  wakeAll(key: string): void {
    const set = this.waiters.get(key);
    if (!set) return;
    for (const wake of [...set]) wake();
  }

  /** Wakes the longest-waiting waiter only, so one new job does not stampede every idle worker. */
  wakeOne(key: string): boolean {
    const set = this.waiters.get(key);
    const first = set?.values().next();
    if (!first || first.done) return false;
    first.value();
    return true;
  }

  count(key: string): number {
    return this.waiters.get(key)?.size ?? 0;
  }
}

/** The notifications the queue runs on. One process today; a shared bus carries them across replicas later. */
export class JobEvents {
  readonly jobs = new Waitlist();
  readonly queues = new Waitlist();
  readonly stops = new Waitlist();
  private readonly queuedListeners: ((endpointId: string) => void)[] = [];

  /** Called when a job is queued and no worker was waiting for it (so capacity may be needed). */
  onQueued(listener: (endpointId: string) => void): void {
    this.queuedListeners.push(listener);
  }

  jobChanged(jobId: string): void {
    this.jobs.wakeAll(jobId);
  }

  jobsQueued(endpointId: string, count = 1): void {
    for (let i = 0; i < count; i++) {
      if (!this.queues.wakeOne(endpointId)) {
        for (const listener of this.queuedListeners) listener(endpointId);
        break;
      }
    }
  }

  stopRequested(workerId: string): void {
    this.stops.wakeAll(workerId);
  }
}
