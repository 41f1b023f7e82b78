// A background loop: runs a task every N ms and whenever asked, never two runs at once. A run
// asked for while one is under way happens right after it (requests coalesce into one); a
// scheduled run that falls due meanwhile is skipped, since the next one is not far. Errors go to
// a callback, never unhandled. stop() waits for the run in flight and prevents further ones;
// start() may follow again (a replica that regains leadership).

/** The timers a periodic task uses; tests pass a manual one to decide when time passes. */
export interface Scheduler {
  /** Calls fn every ms until cancelled, without keeping the process alive. */
  every(ms: number, fn: () => void): () => void;
  /** Calls fn once, after the current work (a macrotask), without keeping the process alive. */
  soon(fn: () => void): () => void;
}

export const realScheduler: Scheduler = {
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
  soon(fn) {
    const timer = setTimeout(fn, 0);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

export interface PeriodicTaskOptions {
  /** What one run does. */
  run: () => Promise<void>;
  /** Time between scheduled runs. */
  everyMs: number;
  /** Told about a run that failed (or threw); the loop carries on. */
  onError: (err: unknown) => void;
  scheduler?: Scheduler;
}

export class PeriodicTask {
  private readonly scheduler: Scheduler;
  private cancelInterval: (() => void) | undefined;
  private cancelSoon: (() => void) | undefined;
  private inFlight: Promise<void> | undefined;
  private again = false;
  private active = false;
  /** Set by stop(): no run starts until start() again. */
  private stopped = false;

  constructor(private readonly options: PeriodicTaskOptions) {
    this.scheduler = options.scheduler ?? realScheduler;
  }

  get running(): boolean {
    return this.active;
  }

  /** Starts the schedule; with `runNow` the first run starts at once rather than after everyMs. */
  start(options: { runNow?: boolean } = {}): void {
    if (this.active) return;
    this.active = true;
    this.stopped = false;
    this.cancelInterval = this.scheduler.every(this.options.everyMs, () => {
      if (!this.inFlight) void this.runNow();
    });
    if (options.runNow) void this.runNow();
  }

  /** Asks for a run shortly; requests made before it starts are one run. */
  runSoon(): void {
    if (!this.active || this.cancelSoon) return;
    this.cancelSoon = this.scheduler.soon(() => {
      this.cancelSoon = undefined;
      void this.runNow();
    });
  }

  /**
   * Runs now, or right after the run under way; resolves when that run is over. Runs even when
   * the schedule is not started (a test or a caller driving the loop by hand), never after stop().
   */
  runNow(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.inFlight) {
      this.again = true;
      return this.inFlight;
    }
    const loop = async (): Promise<void> => {
      do {
        this.again = false;
        try {
          await this.options.run();
        } catch (err) {
          this.report(err);
        }
      } while (this.again && !this.stopped);
    };
    this.inFlight = loop().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  /** Ends the schedule and waits for the run in flight; no run starts afterwards until start(). */
  async stop(): Promise<void> {
    this.active = false;
    this.stopped = true;
    this.cancelInterval?.();
    this.cancelInterval = undefined;
    this.cancelSoon?.();
    this.cancelSoon = undefined;
    await this.inFlight;
  }

  private report(err: unknown): void {
    try {
      this.options.onError(err);
    } catch {
      // A failing error callback must not end the loop either.
    }
  }
}
