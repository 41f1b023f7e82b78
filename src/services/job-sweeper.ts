// Enforces time on the queue: execution timeouts, job expiry (TTL and result retention) and
// lapsed worker leases. Runs on a timer; each pass works in bounded batches.
import type { Store } from '../store/store.js';
import type { DisplacedJob } from '../store/job-store.js';
import type { JobService } from './jobs.js';
import type { Clock } from '../domain/clock.js';
import type { JobEvents } from './waitlist.js';
import { PeriodicTask } from '../domain/periodic-task.js';
import type { Logger } from '../domain/logger.js';
import { logPassFailure } from '../store/unavailable.js';

const BATCH = 500;
/** A stop request no stop channel collected within this time belongs to a worker that is gone. */
const STOP_REQUEST_TTL_MS = 10 * 60_000;

export interface SweepSettings {
  sweepIntervalMs: number;
  maxLeaseLosses: number;
}

export class JobSweeper {
  private readonly loop: PeriodicTask;

  constructor(
    private readonly store: Store,
    private readonly jobs: JobService,
    private readonly events: JobEvents,
    private readonly settings: SweepSettings,
    log: Logger,
    private readonly now: Clock = Date.now,
  ) {
    this.loop = new PeriodicTask({
      run: () => this.sweep(),
      everyMs: settings.sweepIntervalMs,
      onError: (err) => logPassFailure(log, err, 'job sweep failed'),
    });
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** One pass; exposed so tests can drive time explicitly. */
  async sweep(): Promise<void> {
    const now = this.now();
    for (const job of await this.store.jobs.timeOutOverdue(now, BATCH)) await this.afterFinish(job);
    const { requeued, failed } = await this.store.jobs.releaseLapsedLeases(now, this.settings.maxLeaseLosses, BATCH);
    for (const job of failed) await this.afterFinish(job);
    for (const job of requeued) {
      this.events.jobChanged(job.id);
      this.events.jobsQueued(job.endpointId);
    }
    await this.store.jobs.forgetStops(now - STOP_REQUEST_TTL_MS);
    await this.store.submitKeys.deleteExpired(now, BATCH);
    // Purges another replica (or a previous run of this one) did not finish deleting.
    this.jobs.purgedRows?.start();
    for (const job of await this.store.jobs.deleteExpired(now, BATCH)) {
      if (job.status === 'IN_PROGRESS' && job.workerId) await this.jobs.stopOnWorker(job.endpointId, job.workerId, job.id);
      this.events.jobChanged(job.id);
    }
  }

  private async afterFinish(displaced: DisplacedJob): Promise<void> {
    if (displaced.workerId) await this.jobs.stopOnWorker(displaced.endpointId, displaced.workerId, displaced.id);
    const job = await this.store.jobs.getState(displaced.id);
    if (job) this.jobs.finished(job);
  }
}
