// The LISTEN/NOTIFY channel replicas share (the event bus in src/cluster speaks on it). The store
// sends on it itself where a change must reach every replica when, and only if, it commits.

export const EVENT_CHANNEL = 'gantry_events';

/** Names the store as the sender of a payload, so that every replica, the sending one too, acts on it. */
export const STORE_SENDER = '-';

/** The payload telling replicas that an API key changed (its cached copy must go). */
export function keyChangedPayload(id: string): string {
  return `${STORE_SENDER}\nk ${id}`;
}

/** Notifications waiting to go out to the other replicas (the event bus's). */
export interface WaitingNotifications {
  /**
   * One payload for a statement about to go out, or null when none waits; the statement sends it
   * now. `own`: lines this statement must carry itself (see NewJob.notice), placed first.
   */
  take(own?: readonly string[]): string | null;
  /** A taken payload whose statement failed (so, rolled back, it never went out): sent some other way. */
  giveBack(payload: string): void;
  /** Lines a statement had to carry but had no room for, once it has committed: sent some other way. */
  sendLater(lines: readonly string[]): void;
}

/** Room for a statement's own lines in a payload (the rest of NOTIFY's 8000 bytes is for waiting events). */
const OWN_LINES_ROOM = 3500;

/**
 * Lets the hot job statements carry waiting notifications: a NOTIFY inside a statement goes out
 * when that statement commits, so a busy replica sends its events without round trips of their
 * own (docs/decisions/0016). Empty until a cluster connects its event bus.
 */
export class NotificationCarrier {
  private waiting: WaitingNotifications | undefined;

  carryFrom(waiting: WaitingNotifications): void {
    this.waiting = waiting;
  }

  /**
   * Runs a statement with a waiting payload as its notification parameter (null: none), `own`
   * lines among it: they go out when, and only if, this statement commits.
   */
  async carry<T>(send: (payload: string | null) => Promise<T>, own: readonly string[] = []): Promise<T> {
    // Not made unique: a queued line is a count, and the bus adds the counts of one endpoint up.
    const lines = own;
    let room = OWN_LINES_ROOM;
    const fit = lines.findIndex((line) => (room -= line.length + 1) < 0);
    const carried = fit === -1 ? lines : lines.slice(0, fit);
    const payload = this.waiting?.take(carried) ?? null;
    try {
      const result = await send(payload);
      // Only now: sent before the commit, they would wake the other replicas too early.
      if (fit !== -1) this.waiting?.sendLater(lines.slice(fit));
      return result;
    } catch (error) {
      if (payload !== null) this.waiting?.giveBack(payload);
      throw error;
    }
  }
}

/**
 * The SQL a statement needs to carry a notification in parameter `$n`: a CTE to put in its WITH
 * list and a condition to AND into its WHERE. The condition makes PostgreSQL run the CTE once,
 * whatever rows the statement touches (none too).
 */
export function carriedNotification(n: number): { cte: string; condition: string } {
  return {
    cte: `told AS (SELECT pg_notify('${EVENT_CHANNEL}', $${n}::text) WHERE $${n}::text IS NOT NULL)`,
    condition: '(SELECT count(*) FROM told) >= 0',
  };
}
