// The SQLite store's API key mark: `api_key_changes.n`, moved by triggers on every write to
// api_keys by any connection (this one, the CLI, another process on the same file), so writes to
// jobs and everything else leave it alone. A group whose commit failed undoes its triggers' moves
// too; `failedGroups` then moves instead, so a value is never seen again with other contents.
import type Database from 'better-sqlite3';

/** A count of failed groups moves the mark past any count of changes. */
const FAILED_GROUP_STEP = 2 ** 32;

/**
 * Reads the mark at most once per event-loop turn and drops it in the turn's check phase. Requests
 * are handled in the poll phase, after they arrived, so a turn's first read sees every key write
 * committed before any of its requests arrived, as one read per request would. (A first read made
 * in a check phase also serves the next poll phase: a window of microseconds.) Outside a group a
 * read is a transaction of its own, shared-memory locks included (about 2 µs); the load balancer
 * made one per request, 5–10 % of its CPU in profiles.
 */
export function apiKeysMarkReader(db: Database.Database, failedGroups: () => number): () => number {
  const statement = db.prepare('SELECT n FROM api_key_changes WHERE id = 1').pluck();
  let thisTurn: number | undefined;
  const forget = () => (thisTurn = undefined);
  return () => {
    if (thisTurn === undefined) {
      thisTurn = (statement.get() as number) + failedGroups() * FAILED_GROUP_STEP;
      setImmediate(forget);
    }
    return thisTurn;
  };
}
