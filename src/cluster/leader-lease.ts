// One replica at a time leads: it runs the sweepers and the autoscaler. Leadership is a row
// with an expiry on the database's clock; the leader renews it every third of its length, and
// another replica takes it over once it lapses (the leader died or lost the database).
import type pg from 'pg';
import { PeriodicTask } from '../domain/periodic-task.js';
import type { Logger } from '../domain/logger.js';
import { storeErrorFields } from '../store/unavailable.js';
import { DATABASE_NOW_MS } from '../store/postgres/database.js';

const LEASE = 'leader';

export interface Leadership {
  isLeader(): boolean;
  /** Called with true when this replica becomes leader and false when it stops being one. */
  onChange(listener: (leader: boolean) => void): void;
}

export class LeaderLease implements Leadership {
  private leader = false;
  /** Local time by which leadership must have been renewed, or it is given up. */
  private validUntil = 0;
  private readonly listeners: ((leader: boolean) => void)[] = [];
  /** Renews every third of the lease, so two renewals may fail before it lapses. */
  private readonly renewal: PeriodicTask;

  constructor(
    private readonly pool: pg.Pool,
    private readonly replicaId: string,
    private readonly leaseMs: number,
    private readonly log: Logger,
  ) {
    this.renewal = new PeriodicTask({
      run: () => this.renew(),
      everyMs: Math.max(50, Math.floor(leaseMs / 3)),
      onError: (err) => log.warn(storeErrorFields(err), 'could not renew the leader lease'),
    });
  }

  isLeader(): boolean {
    return this.leader;
  }

  onChange(listener: (leader: boolean) => void): void {
    this.listeners.push(listener);
  }

  async start(): Promise<void> {
    await this.renewal.runNow();
    this.renewal.start();
  }

  private async renew(): Promise<void> {
    const startedAt = Date.now();
    try {
      const result = await this.pool.query(
        `INSERT INTO leases (name, holder, expires_at) VALUES ($1, $2, ${DATABASE_NOW_MS} + $3)
         ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
         WHERE leases.holder = EXCLUDED.holder OR leases.expires_at < ${DATABASE_NOW_MS}
         RETURNING holder`,
        [LEASE, this.replicaId, this.leaseMs],
      );
      const held = result.rowCount === 1;
      // Measured from before the query, so local time never runs past the database's expiry.
      if (held) this.validUntil = startedAt + this.leaseMs;
      this.set(held);
    } catch (err) {
      this.log.warn(storeErrorFields(err), 'could not renew the leader lease');
      if (Date.now() >= this.validUntil - this.leaseMs / 3) this.set(false);
    }
  }

  private set(leader: boolean): void {
    if (leader === this.leader) return;
    this.leader = leader;
    this.log.info({ leader }, leader ? 'this replica is now the leader' : 'this replica is no longer the leader');
    for (const listener of this.listeners) listener(leader);
  }

  /** Steps down and frees the lease at once, so another replica need not wait for it to lapse. */
  async close(): Promise<void> {
    await this.renewal.stop();
    const wasLeader = this.leader;
    this.set(false);
    if (wasLeader)
      await this.pool.query('DELETE FROM leases WHERE name = $1 AND holder = $2', [LEASE, this.replicaId]).catch(() => undefined);
  }
}
