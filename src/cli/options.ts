// Options shared by the CLI's verbs, and the way every verb reports a failure.
import type { Command } from 'commander';
import { ConfigError, loadConfig, type ConfigFlags, type GantryConfig } from '../config.js';
import { SETTINGS } from '../settings/table.js';
import { helpLine } from '../settings/setting.js';

export const EXIT_USAGE = 2;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** The options that say where the store is: the embedded SQLite's directory or a PostgreSQL URL. */
export function withDataDir(command: Command): Command {
  return command
    .option(SETTINGS.dataDir.flag, helpLine(SETTINGS.dataDir))
    .option(SETTINGS.databaseUrl.flag, helpLine(SETTINGS.databaseUrl));
}

export interface StoreFlags {
  dataDir?: string;
  database?: string;
}

/** Loads the configuration from flags and environment; a bad setting is a usage error. */
export function configFrom(flags: ConfigFlags): GantryConfig {
  try {
    return loadConfig(flags);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message, EXIT_USAGE);
    throw error;
  }
}
