// Chooses the store a configuration asks for: PostgreSQL when a database URL is set, else the
// embedded SQLite file in the data directory.
import type { GantryConfig } from '../config.js';
import type { Store } from './store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import { PostgresStore } from './postgres/postgres-store.js';
import { silentLogger, type Logger } from '../domain/logger.js';
import { databaseFile } from './store-location.js';

/** Opens the store and brings its schema up to date. */
export async function openStore(config: GantryConfig, log: Logger = silentLogger): Promise<Store> {
  if (config.databaseUrl) return PostgresStore.open({ url: config.databaseUrl, max: config.databasePoolSize }, log);
  return new SqliteStore(databaseFile(config), log);
}
