#!/usr/bin/env node
// The gantry command: the operator's verbs (serve, keys, ...) and the everyday ones that talk to
// a running server (endpoints, jobs, logs, ...); commands.ts lists them all, program.ts builds them.
import { CommanderError } from 'commander';
import { CliError, EXIT_USAGE } from './options.js';
import { StoreRefusal } from '../store/shared/refusals.js';
import { gantryProgram } from './program.js';

try {
  await gantryProgram().parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Help and version exit 0; commander has already printed what it had to say.
    process.exit(error.exitCode === 0 ? 0 : EXIT_USAGE);
  }
  if (error instanceof CliError || error instanceof StoreRefusal) {
    process.stderr.write(`gantry: ${error.message}\n`);
    process.exit(error instanceof CliError ? error.exitCode : 1);
  }
  process.stderr.write(`gantry: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
}
