// Purges on SQLite (docs/decisions/0015): a purge starts the endpoint's next queue generation and
// counts the one it hides, in one transaction; the hidden rows are deleted later in batches.
import type Database from 'better-sqlite3';

export class SqliteQueuePurges {
  private readonly nextGeneration: Database.Statement;
  private readonly countGeneration: Database.Statement;
  private readonly deleteHidden: Database.Statement;

  constructor(private readonly db: Database.Database) {
    this.nextGeneration = db
      .prepare(
        `INSERT INTO queue_generations (endpoint_id, generation) VALUES (?, 1)
         ON CONFLICT (endpoint_id) DO UPDATE SET generation = generation + 1 RETURNING generation`,
      )
      .pluck();
    this.countGeneration = db
      .prepare(`SELECT count(*) FROM jobs WHERE endpoint_id = ? AND queue_generation = ? AND status = 'IN_QUEUE'`)
      .pluck();
    // CROSS JOIN keeps queue_generations the outer loop, so each endpoint's old generations are one index range.
    this.deleteHidden = db.prepare(`DELETE FROM jobs WHERE seq IN (SELECT j.seq FROM queue_generations g
      CROSS JOIN jobs j ON j.endpoint_id = g.endpoint_id AND j.queue_generation < g.generation AND j.status = 'IN_QUEUE' LIMIT ?)`);
  }

  /** Hides the endpoint's queued jobs at once, without counting them. */
  hideQueue(endpointId: string): void {
    this.nextGeneration.get(endpointId);
  }

  /** Hides the endpoint's queued jobs at once; answers how many there were. */
  purge(endpointId: string): number {
    return this.db.transaction(() => {
      const generation = this.nextGeneration.get(endpointId) as number;
      return this.countGeneration.get(endpointId, generation - 1) as number;
    })();
  }

  /** Deletes up to `limit` rows of purged jobs; answers how many. */
  deleteBatch(limit: number): number {
    return this.deleteHidden.run(limit).changes;
  }
}
