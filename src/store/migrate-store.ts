// Brings a configuration's store up to the newest schema without opening it for use, and says
// which migrations it applied (`gantry migrate`).
import Database from 'better-sqlite3';
import type { GantryConfig } from '../config.js';
import type { Migration } from './sqlite/migrate.js';
import { migrateSqlite } from './sqlite/migrate.js';
import { preparePrivateDatabaseFile } from './sqlite/private-files.js';
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
  preparePrivateDatabaseFile(file);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  try {
    return { applied: migrateSqlite(db), location: file };
  } finally {
    db.close();
  }
}
