// Chooses the store a configuration asks for: PostgreSQL when a database URL is set, else the
// embedded SQLite file in the data directory.
import { join } from 'node:path';
import { redact, type GantryConfig } from '../config.js';
import type { Store } from './store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import { PostgresStore } from './postgres/postgres-store.js';
import { silentLogger, type Logger } from '../domain/logger.js';

export function databaseFile(config: GantryConfig): string {
  return join(config.dataDir, 'gantry.db');
}

/** Where the store lives, for messages (a PostgreSQL password is hidden). */
export function storeLocation(config: GantryConfig): string {
  return config.databaseUrl ? redact(config.databaseUrl) : databaseFile(config);
}

/** Opens the store and brings its schema up to date. */
export async function openStore(config: GantryConfig, log: Logger = silentLogger): Promise<Store> {
  if (config.databaseUrl) return PostgresStore.open({ url: config.databaseUrl, max: config.databasePoolSize }, log);
  return new SqliteStore(databaseFile(config), log);
}
