// The time replicas sharing one PostgreSQL keep their jobs by: this machine's clock moved by how
// far it is off the database's, measured on every heartbeat. A lease, deadline, expiry or rate
// window one replica writes is judged by another (decision 47): were each to read its own machine's
// clock, a replica whose clock runs behind would see running jobs' leases lapse and queue them
// again, and one ahead would keep a dead worker's jobs for as long as it is off.
import type pg from 'pg';
import { DATABASE_NOW_MS } from '../store/postgres/database.js';
import type { Clock } from '../domain/clock.js';
import type { Store } from '../store/store.js';
import { PostgresStore } from '../store/postgres/postgres-store.js';

/** Off the database's clock by more than this, a machine's own clock wants fixing: the log and `gantry doctor` say so. */
export const CLOCK_SKEW_WARNING_MS = 2000;

/** Samples kept: the one with the quickest round trip of these sets the offset, as NTP filters. */
const SAMPLES = 8;

interface Sample {
  offsetMs: number;
  roundTripMs: number;
}

export class DatabaseClock {
  private offsetMs = 0;
  private samples: Sample[] = [];

  constructor(
    private readonly pool: pg.Pool,
    /** This machine's clock. */
    private readonly local: Clock = Date.now,
  ) {}

  /** The database's time, as well as this replica knows it; this machine's own before the first sync. */
  readonly now: Clock = () => this.local() + this.offsetMs;

  /**
   * Reads the database's clock once; answers the offset now in use: how far (ms) this machine's
   * clock is behind the database's, negative when ahead.
   */
  async sync(): Promise<number> {
    const sentAt = this.local();
    const { rows } = await this.pool.query<{ now: string }>(`SELECT ${DATABASE_NOW_MS} AS now`);
    const receivedAt = this.local();
    // The database read its clock somewhere in the round trip: the middle is the best guess.
    const sample = { offsetMs: Number(rows[0]!.now) - (sentAt + receivedAt) / 2, roundTripMs: receivedAt - sentAt };
    const kept = this.samples.filter((s) => agree(s, sample)).slice(1 - SAMPLES);
    this.samples = [...kept, sample];
    const best = this.samples.reduce((a, b) => (b.roundTripMs < a.roundTripMs ? b : a));
    // Whole milliseconds: every time is stored as an integer.
    this.offsetMs = Math.round(best.offsetMs);
    return this.offsetMs;
  }
}

/**
 * Whether two samples can both be right, each within half its round trip. When not, this
 * machine's clock was set or stepped between them, and the older one no longer says anything.
 */
function agree(older: Sample, newer: Sample): boolean {
  return Math.abs(older.offsetMs - newer.offsetMs) <= (older.roundTripMs + newer.roundTripMs) / 2 + 1;
}

/** The clock a one-off command keeps, read once: the database's on PostgreSQL, where replicas keep it too. */
export async function commandClock(store: Store): Promise<Clock> {
  if (!(store instanceof PostgresStore)) return Date.now;
  const clock = new DatabaseClock(store.pool);
  await clock.sync();
  return clock.now;
}
