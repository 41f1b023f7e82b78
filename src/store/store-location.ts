// Where a configuration keeps its store, without loading either store: commands that only name
// the location (in a message, or to check that it exists) stay quick to start.
import { join } from 'node:path';
import { redact, type GantryConfig } from '../config.js';

export function databaseFile(config: GantryConfig): string {
  return join(config.dataDir, 'gantry.db');
}

/** Where the store lives, for messages (a PostgreSQL password is hidden). */
export function storeLocation(config: GantryConfig): string {
  return config.databaseUrl ? redact(config.databaseUrl) : databaseFile(config);
}
