// Brings a configuration's store up to the newest schema without opening it for use, and says
// which migrations it applied (`gantry migrate`).
import type { GantryConfig } from '../config.js';
import type { Migration } from './sqlite/migrate.js';
import { migrateSqlite, readMigrations } from './sqlite/migrate.js';
import { refuseBesideServer } from './sqlite/server-lock.js';
import { openSqliteFile } from './sqlite/sqlite-file.js';
import { migratePostgres } from './postgres/migrate.js';
import { createPool } from './postgres/database.js';
import { databaseFile, storeLocation } from './store-location.js';

export async function migrateStore(config: GantryConfig): Promise<{ applied: Migration[]; location: string }> {
  if (config.databaseUrl) {
    const pool = createPool({ url: config.databaseUrl, max: 1 });
    try {
      return { applied: await migratePostgres(pool), location: storeLocation(config) };
    } finally {
      await pool.end();
    }
  }
  const file = databaseFile(config);
  const db = openSqliteFile(file);
  try {
    return { applied: migrateSqlite(db, readMigrations(), refuseBesideServer(file)), location: file };
  } finally {
    db.close();
  }
}
