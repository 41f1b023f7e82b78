// The server's store, opened by a command that works straight in it (keys, worker-env): never a
// new one, so a wrong --data-dir (or the wrong working directory) says so instead of leaving an
// empty database behind and handing out a key or credential no server knows.
import { existsSync } from 'node:fs';
import type { GantryConfig } from '../config.js';
import { databaseFile } from '../store/store-location.js';
import { CliError, EXIT_USAGE } from './options.js';

export async function openExistingStore(config: GantryConfig) {
  if (!config.databaseUrl && !existsSync(databaseFile(config))) {
    throw new CliError(
      `no Gantry database at ${databaseFile(config)}: run this where the server keeps its data, or give its --data-dir (GANTRY_DATA_DIR) or --database`,
      EXIT_USAGE,
    );
  }
  const { openStore } = await import('../store/open-store.js'); // see decision 38
  return openStore(config);
}
