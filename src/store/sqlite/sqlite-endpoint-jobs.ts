// The jobs of a deleted endpoint on SQLite. One statement deleting a long history held the event
// loop, and so every other endpoint's requests, for seconds (a million jobs: about 3 s). The
// endpoint's delete now only hides its jobs in its own transaction; the rows then go in batches,
// each a group commit of its own, with the event loop free in between.
import type Database from 'better-sqlite3';
import type { SqliteQueuePurges } from './sqlite-queue-purge.js';

/** Jobs per batch: some 10-20 ms of SQLite each, as for the rows of a purge. */
export const DELETED_ENDPOINT_BATCH = 1000;

export class SqliteEndpointJobs {
  private readonly pickBatch: Database.Statement;
  private readonly deleteStreamsOf: Database.Statement;
  private readonly deleteJob: Database.Statement;
  private readonly forgetGeneration: Database.Statement;
  private readonly clearDueWebhooks: Database.Statement;
  private readonly dropRunningWebhooks: Database.Statement;
  /** Deletes up to `limit` of the endpoint's jobs with their streams; at 0, the endpoint's queue record goes too. */
  readonly deleteBatch: (endpointId: string, limit: number) => number;

  constructor(
    db: Database.Database,
    private readonly purges: SqliteQueuePurges,
  ) {
    this.pickBatch = db.prepare('SELECT seq, id FROM jobs WHERE endpoint_id = ? LIMIT ?');
    this.deleteStreamsOf = db.prepare('DELETE FROM job_stream WHERE job_id = ?');
    this.deleteJob = db.prepare('DELETE FROM jobs WHERE seq = ?');
    this.forgetGeneration = db.prepare('DELETE FROM queue_generations WHERE endpoint_id = ?');
    // Both through partial indexes, which hold only the few due deliveries and running jobs; left
    // to itself SQLite would read every job of the endpoint instead.
    this.clearDueWebhooks = db.prepare(`UPDATE jobs INDEXED BY jobs_webhooks_due SET webhook_due_at = NULL
      WHERE webhook_due_at IS NOT NULL AND endpoint_id = ?`);
    this.dropRunningWebhooks = db.prepare(`UPDATE jobs INDEXED BY jobs_running SET webhook = NULL
      WHERE status = 'IN_PROGRESS' AND endpoint_id = ?`);
    this.deleteBatch = db.transaction((endpointId: string, limit: number): number => {
      const batch = this.pickBatch.all(endpointId, limit) as { seq: number; id: string }[];
      for (const { seq, id } of batch) {
        this.deleteStreamsOf.run(id);
        this.deleteJob.run(seq);
      }
      if (batch.length === 0) this.forgetGeneration.run(endpointId);
      return batch.length;
    });
  }

  /**
   * Run inside the endpoint's delete: its queued jobs can no longer be taken, and no webhook of its
   * jobs goes out any more, neither one due now nor one a worker whose credential is still cached
   * would make due by finishing its running job before the row's batch comes.
   */
  hide(endpointId: string): void {
    this.purges.hideQueue(endpointId);
    this.clearDueWebhooks.run(endpointId);
    this.dropRunningWebhooks.run(endpointId);
  }
}
