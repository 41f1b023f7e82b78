// Deletes the rows of purged jobs behind the purge (docs/decisions/0015). A purge only hides its
// queue; the rows go here, in small batches with the event loop free in between, so the queue keeps
// answering while a large backlog is deleted. The leader's sweeper restarts it after a restart.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '../store/store.js';
import type { Logger } from '../domain/logger.js';

/**
 * Rows per store call, and the pause after each: a batch costs SQLite some 10-20 ms (every row
 * touches a random page of the job id index), so requests get the event loop between batches.
 */
const BATCH = 1000;
const PAUSE_MS = 5;

export class PurgedJobDeleter {
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
  ) {}

  /** Deletes until no purged row is left; a call while that runs makes it look once more at the end. */
  start(): void {
    if (this.stopped) return;
    this.again = true;
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
    });
  }

  /** Waits for the batch under way; nothing more is deleted by this process afterwards. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private async drain(): Promise<void> {
    try {
      while (this.again && !this.stopped) {
        this.again = false;
        while (!this.stopped && (await this.store.jobs.deletePurged(BATCH)) > 0) await sleep(PAUSE_MS);
      }
    } catch (err) {
      this.log.error({ err }, 'deleting purged jobs failed; the next sweep tries again');
    }
  }
}
