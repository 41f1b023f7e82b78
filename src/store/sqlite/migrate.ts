// Numbered, append-only migrations: NNN_name.sql files applied in order, each once, each in a transaction.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { shippedFile } from '../../paths.js';

export const SQLITE_MIGRATIONS_DIR = shippedFile('store', 'sqlite', 'migrations');

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function readMigrations(dir = SQLITE_MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d{3}_[\w-]+\.sql$/.test(file))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 3)),
      name: file.slice(4, -4),
      sql: readFileSync(join(dir, file), 'utf8'),
    }));
}

/** Applies pending migrations; returns the ones applied now. Refuses a database newer than this code. */
export function migrateSqlite(db: Database.Database, migrations = readMigrations()): Migration[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = new Set(
    (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version),
  );
  const newest = Math.max(0, ...migrations.map((m) => m.version));
  const unknown = [...applied].filter((v) => v > newest);
  if (unknown.length > 0) {
    throw new Error(`database schema version ${Math.max(...unknown)} is newer than this Gantry (knows up to ${newest})`);
  }
  const pending = migrations.filter((m) => !applied.has(m.version));
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  for (const migration of pending) {
    db.transaction(() => {
      db.exec(migration.sql);
      record.run(migration.version, migration.name, new Date().toISOString());
    })();
  }
  return pending;
}
