// Options shared by the CLI's verbs, and the way every verb reports a failure.
import type { Command } from 'commander';
import { ConfigError, loadConfig, type ConfigFlags, type GantryConfig } from '../config.js';

export const EXIT_USAGE = 2;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export function withDataDir(command: Command): Command {
  return command.option('--data-dir <dir>', 'where Gantry keeps its database (env GANTRY_DATA_DIR)');
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
