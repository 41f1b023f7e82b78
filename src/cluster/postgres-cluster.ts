// Replicas sharing one PostgreSQL: notifications over LISTEN/NOTIFY, a leader lease for the
// sweepers and the autoscaler, shared rate-limit windows and a shared view of the workers.
import type { GantryConfig } from '../config.js';
import type { PostgresStore } from '../store/postgres/postgres-store.js';
import type { Cluster } from './cluster.js';
import { LeaderLease } from './leader-lease.js';
import { CLOCK_SKEW_WARNING_MS, DatabaseClock } from './database-clock.js';
import type { Clock } from '../domain/clock.js';
import { PostgresEventBus } from './postgres-event-bus.js';
import { PostgresRateLimiter } from './postgres-rate-limiter.js';
import { ReplicaWorkers } from './replica-workers.js';
import type { HttpAddress, LocalWorkerRow } from '../domain/workers.js';
import { PeriodicTask } from '../domain/periodic-task.js';
import type { Logger } from '../domain/logger.js';
import { storeErrorFields } from '../store/unavailable.js';
import { postgresSchemaVersion } from '../store/postgres/migrate.js';

const HEARTBEAT_MS = 1000;

export class PostgresCluster implements Cluster {
  readonly bus: PostgresEventBus;
  readonly leadership: LeaderLease;
  readonly rateLimiter: PostgresRateLimiter;
  readonly peers: ReplicaWorkers;
  readonly now: Clock;
  private readonly clock: DatabaseClock;
  private skewed = false;
  private heartbeat: PeriodicTask | undefined;

  constructor(
    readonly replicaId: string,
    store: PostgresStore,
    config: GantryConfig,
    private readonly log: Logger,
  ) {
    this.peers = new ReplicaWorkers(store.pool, replicaId, () => config.replicaUrl, 3 * HEARTBEAT_MS, postgresSchemaVersion());
    // A newcomer's hello counts until its first heartbeat row has been read here (one beat each, with room).
    this.bus = new PostgresEventBus(store.pool, store.options, replicaId, log, () => this.peers.otherReplicas, 5 * HEARTBEAT_MS);
    store.notifications.carryFrom(this.bus);
    this.bus.subscribe((event) => {
      if (event.kind === 'key') store.forgetApiKey(event.id);
    });
    this.leadership = new LeaderLease(store.pool, replicaId, config.leaderLeaseMs, log);
    this.clock = new DatabaseClock(store.pool);
    this.now = this.clock.now;
    this.rateLimiter = new PostgresRateLimiter(store.batchPool, config.rateLimits, this.now);
  }

  leaderAddress(): HttpAddress | undefined {
    const leader = this.peers.leader;
    if (this.leadership.isLeader() || !leader || leader.id === this.replicaId) return undefined;
    const url = new URL(leader.url);
    return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)), healthPort: 0 };
  }

  async start(localWorkers: () => LocalWorkerRow[]): Promise<void> {
    await this.syncClock();
    await this.bus.start();
    await this.leadership.start();
    this.heartbeat = new PeriodicTask({
      run: async () => {
        await this.syncClock();
        await this.peers.beat(localWorkers());
      },
      everyMs: HEARTBEAT_MS,
      onError: (err) => this.log.warn(storeErrorFields(err), 'could not share this replica’s workers'),
    });
    this.heartbeat.start({ runNow: true });
  }

  async syncClock(): Promise<void> {
    const offsetMs = await this.clock.sync();
    const skewed = Math.abs(offsetMs) > CLOCK_SKEW_WARNING_MS;
    if (skewed === this.skewed) return;
    this.skewed = skewed;
    if (skewed)
      this.log.warn(
        { offsetMs },
        'this machine’s clock is off the database’s: Gantry keeps the database’s time, but run NTP on every replica',
      );
    else this.log.info({ offsetMs }, 'this machine’s clock agrees with the database’s again');
  }

  async close(): Promise<void> {
    await this.heartbeat?.stop();
    await this.leadership.close();
    await this.peers.close();
    await this.bus.close();
  }
}
