// The SQLite store's change mark: `data_version` changes when another connection (the CLI,
// another process on the same file) commits, and `total_changes()` counts every row this
// connection changed. Both only grow, so their sum changes whenever either does.
import type Database from 'better-sqlite3';

export function changeMarkReader(db: Database.Database): () => number {
  const statement = db.prepare('SELECT total_changes() + (SELECT data_version FROM pragma_data_version())').pluck();
  return () => statement.get() as number;
}
