// The SQLite store's API key mark: `api_key_changes.n`, moved by triggers on every write to
// api_keys by any connection (this one, the CLI, another process on the same file), so writes to
// jobs and everything else leave it alone. A group whose commit failed undoes its triggers' moves
// too; `failedGroups` then moves instead, so a value is never seen again with other contents.
import type Database from 'better-sqlite3';

/** A count of failed groups moves the mark past any count of changes. */
const FAILED_GROUP_STEP = 2 ** 32;

export function apiKeysMarkReader(db: Database.Database, failedGroups: () => number): () => number {
  const statement = db.prepare('SELECT n FROM api_key_changes WHERE id = 1').pluck();
  return () => (statement.get() as number) + failedGroups() * FAILED_GROUP_STEP;
}
