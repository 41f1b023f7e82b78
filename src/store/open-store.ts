// Chooses the store a configuration asks for: PostgreSQL when a database URL is set, else the
// embedded SQLite file in the data directory.
import type { GantryConfig } from '../config.js';
import type { Store } from './store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import { ServerLock } from './sqlite/server-lock.js';
import { PostgresStore } from './postgres/postgres-store.js';
import { silentLogger, type Logger } from '../domain/logger.js';
import { databaseFile } from './store-location.js';

/**
 * Opens the store and brings its schema up to date. `serving`: for the server, which alone may
 * serve an embedded store (decision 46); commands open it beside the server.
 */
export async function openStore(config: GantryConfig, log: Logger = silentLogger, serving = false): Promise<Store> {
  if (config.databaseUrl) return PostgresStore.open({ url: config.databaseUrl, max: config.databasePoolSize }, log);
  const file = databaseFile(config);
  if (!serving) return new SqliteStore(file, log);
  const lock = ServerLock.take(file);
  try {
    return new SqliteStore(file, log, lock);
  } catch (error) {
    lock.release();
    throw error;
  }
}
