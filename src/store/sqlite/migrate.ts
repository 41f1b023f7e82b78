// Numbered, append-only migrations: NNN_name.sql files applied in order, each once, each in a transaction.
import type Database from 'better-sqlite3';
import { shippedFile } from '../../paths.js';
import { pendingMigrations, readMigrationFiles, type Migration } from '../shared/migrations.js';

export type { Migration } from '../shared/migrations.js';

export const SQLITE_MIGRATIONS_DIR = shippedFile('store', 'sqlite', 'migrations');

export function readMigrations(dir = SQLITE_MIGRATIONS_DIR): Migration[] {
  return readMigrationFiles(dir);
}

/**
 * Applies pending migrations; returns the ones applied now. Refuses a database newer than this
 * code. `beforeApplying` runs first when any are pending, and may refuse them by throwing.
 */
export function migrateSqlite(
  db: Database.Database,
  migrations = readMigrations(),
  beforeApplying?: (pending: Migration[]) => void,
): Migration[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = new Set((db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version));
  const pending = pendingMigrations(migrations, applied);
  if (pending.length > 0) beforeApplying?.(pending);
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  for (const migration of pending) {
    db.transaction(() => {
      db.exec(migration.sql);
      record.run(migration.version, migration.name, new Date().toISOString());
    })();
  }
  return pending;
}
