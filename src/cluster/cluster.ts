// What one Gantry process needs to know about the others serving the same deployment. The
// embedded store has exactly one process: it always leads, keeps rate limits in memory and has
// no peers. On PostgreSQL the replicas coordinate through the database.
import type { RateLimiter } from './rate-limiter.js';
import { MemoryRateLimiter } from './rate-limiter.js';
import type { RateLimitQuotas } from '../config.js';
import type { EventBus } from './events.js';
import type { Leadership } from './leader-lease.js';
import type { HttpAddress, LocalWorkerRow } from '../domain/workers.js';
import type { PeerDirectory } from '../domain/workers.js';
import type { Clock } from '../domain/clock.js';

export interface Cluster {
  readonly replicaId: string;
  /** The time jobs, leases and rate windows are kept by, the same on every replica (decision 47). */
  readonly now: Clock;
  /** Absent with a single process: local wake-ups are all there is. */
  readonly bus: EventBus | undefined;
  readonly leadership: Leadership;
  readonly rateLimiter: RateLimiter;
  readonly peers: PeerDirectory | undefined;
  /** The leader's address when another replica leads (it runs the workers); undefined when this one does. */
  leaderAddress(): HttpAddress | undefined;
  /** Reads the shared clock once, before the server answers anything: no request is timed by this machine's clock alone. */
  syncClock(): Promise<void>;
  /** `localWorkers` is read on every heartbeat to publish this replica's workers (and keeps the clock in step). */
  start(localWorkers: () => LocalWorkerRow[]): Promise<void>;
  close(): Promise<void>;
}

class AlwaysLeader implements Leadership {
  isLeader(): boolean {
    return true;
  }

  onChange(listener: (leader: boolean) => void): void {
    listener(true);
  }
}

export class SingleProcessCluster implements Cluster {
  readonly bus = undefined;
  readonly peers = undefined;
  readonly leadership = new AlwaysLeader();
  readonly rateLimiter: RateLimiter;
  readonly now: Clock = Date.now;

  constructor(
    readonly replicaId: string,
    quotas: RateLimitQuotas,
  ) {
    this.rateLimiter = new MemoryRateLimiter(quotas);
  }

  leaderAddress(): undefined {
    return undefined;
  }

  async syncClock(): Promise<void> {}

  async start(): Promise<void> {}

  async close(): Promise<void> {}
}
